import Foundation
import Testing

import Quire
import QuirePostgres
import QuireTestSupport

/// Save As moves a store to a PostgreSQL database and back, external data included, without changing the graph.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresSaveAsTests {
    @Test func anSQLiteStoreMovesToPostgreSQLAndBackUnchanged() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.everyTypeModel()
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let original = folder.file("Original.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: original, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let entity = try #require(model.entitiesByName["Sample"])
        let big = Data((0..<5_000).map { UInt8($0 % 251) })
        for index in 0..<30 {
            let sample = ManagedObject(entity: entity, insertInto: context)
            sample.setValue("sample \(index)", forKey: "vString")
            sample.setValue(Int64(index), forKey: "vInteger64")
            sample.setValue(Decimal(string: "\(index).25") ?? 0, forKey: "vDecimal")
            sample.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 1000.5), forKey: "vDate")
            sample.setValue(index % 3 == 0 ? big : Data([UInt8(index)]), forKey: "vBinarydata")
        }
        try context.save()
        let before = try ObjectGraphDump(context: context)
        let externalFiles = try FileManager.default.contentsOfDirectory(
            at: folder.file(".Original_SUPPORT/_EXTERNAL_DATA"), includingPropertiesForKeys: nil)
        #expect(externalFiles.count == 10)

        // To PostgreSQL: the objects keep working in the context, and the database holds the same graph.
        let database = try #require(PostgresTestServer.storeURL())
        let store = try #require(coordinator.persistentStores.first)
        let moved = try coordinator.migratePersistentStore(store, to: database, type: .postgres)
        #expect(moved.type == .postgres)
        #expect(try ObjectGraphDump(context: context).differences(from: before).isEmpty)
        let fresh = try ObjectGraphDump(storeAt: database, type: .postgres, modelFile: nil)
        #expect(fresh.differences(from: before).isEmpty)
        // No schema left behind by the staging.
        #expect(coordinator.persistentStores.count == 1)

        // And back to a new SQLite file, whose external data files are written again.
        let back = folder.file("Back.sqlite")
        var backOptions = StoreOptions()
        backOptions.externalDataThreshold = 100
        try coordinator.migratePersistentStore(moved, to: back, options: backOptions, type: .sqlite)
        let reread = try ObjectGraphDump(storeAt: back, type: .sqlite)
        #expect(reread.differences(from: before).isEmpty)
        let backFiles = try FileManager.default.contentsOfDirectory(
            at: folder.file(".Back_SUPPORT/_EXTERNAL_DATA"), includingPropertiesForKeys: nil)
        #expect(backFiles.count == 10)
    }

    @Test func saveAsRefusesASchemaThatHoldsAStore() throws {
        let database = try #require(PostgresTestServer.storeURL())
        let model = Fixtures.companyModel()
        let first = try PersistentStoreCoordinator(managedObjectModel: model)
        try first.addPersistentStore(type: .postgres, at: database)
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("A.sqlite"))
        let error = try #require(throws: QuireError.self) { try coordinator.migratePersistentStore(store, to: database, type: .postgres) }
        #expect(error.message.contains("already holds tables"))
        #expect(coordinator.persistentStores.first === store)
    }
}
