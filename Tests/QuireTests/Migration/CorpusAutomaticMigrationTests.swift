import Foundation
import QuireTestSupport
import Testing

import Quire

/// Every real store of the fixtures (Fixtures/CoreData) that is older than the newest version of its app's model
/// bundle, opened with that newest version and the automatic-migration options, as an app does after an update:
/// each migrates, keeping every object of the entities all versions share, or is refused with an error naming what
/// Core Data refuses too, the store unchanged.
@Suite struct CorpusAutomaticMigrationTests {
    /// A store, its bundle, and the error it must be refused with (nil: it migrates). (MagicalRecord's
    /// `Recipes.sqlite` is at the newest version of its bundle, so it is not one of them; CoreDataPlus's
    /// `SampleModel2_V1.sqlite`, whose app builds its model in code, has its own test below.)
    struct Case: CustomTestStringConvertible, Sendable {
        let store: String
        let bundle: String
        let refusal: String?
        var testDescription: String { "\(store) with \((bundle as NSString).lastPathComponent)" }
    }

    static let cases: [Case] = [
        Case(store: "CoreDataPlus/SampleModel_V1.sqlite", bundle: "CoreDataPlus/SampleModel.xcdatamodeld", refusal: nil),
        Case(store: "CoreDataPlus/SampleModel_V2.sqlite", bundle: "CoreDataPlus/SampleModel.xcdatamodeld", refusal: nil),
        Case(store: "CoreDataPlus/SampleModel3_V1.sqlite", bundle: "CoreDataPlus/SampleModel3.xcdatamodeld", refusal: nil),
        Case(store: "BookMigration/Model1.sqlite", bundle: "BookMigration/Model.xcdatamodeld", refusal: nil),
        Case(store: "XCServerCoreData/XCServerCoreData_2.0.0_empty.sqlite", bundle: "XCServerCoreData/XCServerCoreData.xcdatamodeld", refusal: nil),
        Case(store: "XCServerCoreData/XCServerCoreData_2.0.1.sqlite", bundle: "XCServerCoreData/XCServerCoreData.xcdatamodeld", refusal: nil),
        // Version 2.0.0 turned Integration.endedTime (and other times) from strings into dates: a type change
        // lightweight migration does not make, in Core Data either.
        Case(
            store: "XCServerCoreData/XCServerCoreData_1.2.0.sqlite", bundle: "XCServerCoreData/XCServerCoreData.xcdatamodeld",
            refusal: "'Integration.endedTime' changes type from string to date"),
    ] + (1...5).map { Case(store: "Moody/" + ($0 == 1 ? "Moody.moody" : "Moody \($0).moody"),
        bundle: "Models/objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", refusal: nil) }

    /// The objects of each entity (not its sub-entities') a store holds, read with a model.
    static func counts(_ url: URL, model: ManagedObjectModel) throws -> [String: Int] {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var counts: [String: Int] = [:]
            for entity in model.entities where !entity.isAbstract {
                let request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                counts[entity.name] = try context.count(for: request)
            }
            return counts
        }
    }

    @Test(arguments: cases)
    func migratesWithTheAutomaticOptions(_ fixture: Case) throws {
        let folder = try TemporaryFolder()
        let url = folder.file((fixture.store as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/" + fixture.store), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let before = try Data(contentsOf: url)
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/" + fixture.bundle))
        let newest = try #require(bundle.models.last)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: url)
        let start = try #require(bundle.models.lastIndex { $0.isConfiguration(nil, compatibleWithStoreMetadata: metadata) },
            "the store is of no version of its bundle")
        #expect(start < bundle.models.count - 1, "the store is not older than the newest version")
        // The entities every version from the store's to the newest has: their objects must all stay.
        let shared = bundle.models[start...].map { Set($0.entitiesByName.keys) }.reduce(Set(newest.entitiesByName.keys)) { $0.intersection($1) }
        let counted = try Self.counts(url, model: bundle.models[start]).filter { shared.contains($0.key) }

        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: newest)
        if let refusal = fixture.refusal {
            let error = expectError(.inferredMappingModel) { try coordinator.addPersistentStore(type: .sqlite, at: url, options: options) }
            #expect(error?.message.contains(refusal) == true, "\(error?.message ?? "")")
            #expect(try Data(contentsOf: url) == before)
            return
        }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        #expect(newest.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        try coordinator.remove(store)
        let migrated = try Self.counts(url, model: newest).filter { shared.contains($0.key) }
        #expect(migrated == counted)
        #expect(counted.values.reduce(0, +) > 0 || fixture.store.contains("empty"))
    }

    /// CoreDataPlus's SampleModel2 is built in code, so the only real copies of its two versions are the models
    /// Core Data cached in its stores: `SampleModel2_V1.sqlite` opened with the one cached in
    /// `SampleModel2_V2.sqlite` and the automatic options migrates from its own cached model (V2 drops
    /// `Author.siteURL` and renames `Book.cover` to `frontCover` by its renaming identifier), every object kept and
    /// every cover carried over under its new name.
    @Test func sampleModel2V1MigratesToTheVersionCachedInTheV2Store() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let source = try ManagedObjectModel.forStore(at: url, type: .sqlite)
        let newest = try ManagedObjectModel.forStore(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V2.sqlite"), type: .sqlite)
        #expect(source.source == .modelCache && newest.source == .modelCache)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: url)
        #expect(!newest.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let counted = try Self.counts(url, model: source.model)
        let covers = try sqlite3(url, "SELECT hex(ZCOVER) FROM ZBOOK ORDER BY ZTITLE, hex(ZCOVER)")

        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: newest.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        #expect(newest.model.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        try coordinator.remove(store)
        #expect(try Self.counts(url, model: newest.model) == counted)
        #expect(counted["Book"] == 51 && counted["GraphicNovel"] == 1 && counted["Page"] == 4970)
        #expect(try sqlite3(url, "SELECT hex(ZFRONTCOVER) FROM ZBOOK ORDER BY ZTITLE, hex(ZFRONTCOVER)") == covers)
    }
}
