import Foundation
import QuireTestSupport
import Testing

import Quire
import QuirePostgres

/// A PostgreSQL schema written with an earlier model version: Quire migrates stores between versions only in files,
/// so adding the schema with a newer model and the automatic options, or with a staged migration, is refused with an
/// error that says so and what to do, before anything is written: the schema still opens with its own version.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresMigrationRefusalTests {
    @Test(arguments: ["automatic", "staged"])
    func aSchemaOfAnEarlierVersionIsRefusedAndLeftAsItWas(_ path: String) throws {
        let folder = try TemporaryFolder()
        let journal = try JournalFixture(in: folder)
        let database = try #require(PostgresTestServer.storeURL())
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[0])
            let store = try coordinator.addPersistentStore(type: .sqlite, at: journal.url)
            try coordinator.remove(try coordinator.migratePersistentStore(store, to: database, type: .postgres))
        }
        var options = StoreOptions()
        if path == "automatic" {
            options.migratesAutomatically = true
            options.infersMappingModel = true
        } else {
            let v1 = journal.versions[0], v2 = journal.versions[1]
            options.stagedMigrationManager = StagedMigrationManager([LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])])
        }
        let newer = try PersistentStoreCoordinator(managedObjectModel: journal.versions[1])
        let error = expectError(.migrationManagerSourceStore) { try newer.addPersistentStore(type: .postgres, at: database, options: options) }
        #expect(error?.message.contains("is not a file: Quire migrates stores between model versions only in files") == true,
            "\(error?.message ?? "")")

        let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[0])
        let store = try coordinator.addPersistentStore(type: .postgres, at: database)
        #expect(journal.versions[0].isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Entry")) } == JournalFixture.entryCount)
        try coordinator.remove(store)
    }
}
