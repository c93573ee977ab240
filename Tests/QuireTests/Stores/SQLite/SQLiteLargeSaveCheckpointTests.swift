// Reads the SQLite store's connection (its wal_autocheckpoint), which has no public face: uses QuireStores'
// package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// A save that writes many rows lets the write-ahead log grow to `StoreOptions.largeSaveWALSize` before
/// checkpointing it, so the pages an import's saves rewrite are copied into the database once per several saves;
/// the usual interval comes back after the save, and a smaller save checkpoints the log as before.
@Suite("SQLite's checkpoints around large saves")
struct SQLiteLargeSaveCheckpointTests {
    /// The size of the database file itself (not its log).
    static func databaseBytes(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    }

    static func logBytes(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0
    }

    @Test func aLargeSaveLeavesItsPagesInTheLogUntilASmallerSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Import.sqlite")
        // 12,000 records are about 6 MB of pages: more than SQLite's interval of 1,000 pages (4 MB).
        let (coordinator, connection, _, keys) = try SQLiteLargeSaveCacheTests.save(12_000, at: url)
        #expect(try connection.pragmaInteger("wal_autocheckpoint") == 1000)
        #expect(try Self.logBytes(url) > 4_000_000)
        #expect(try Self.databaseBytes(url) < 1_000_000, "the save's commit checkpointed the log")

        // A save of one row commits with SQLite's interval, passes it, and checkpoints.
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Record"])
        ManagedObject(entity: entity, insertInto: context).setValue("one more", forKey: "key")
        try context.save()
        #expect(try Self.databaseBytes(url) > 4_000_000)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try SQLiteLargeSaveCacheTests.readsBack(keys + ["one more"], at: url))
    }

    @Test func withoutTheLargerIntervalTheSaveCheckpoints() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Checkpointed.sqlite")
        var options = StoreOptions()
        options.largeSaveWALSize = 0
        let (coordinator, connection, _, keys) = try SQLiteLargeSaveCacheTests.save(12_000, at: url, options: options)
        #expect(try connection.pragmaInteger("wal_autocheckpoint") == 1000)
        #expect(try Self.databaseBytes(url) > 4_000_000)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try SQLiteLargeSaveCacheTests.readsBack(keys, at: url))
    }

    @Test func anIntervalOfYourOwnIsKept() throws {
        let folder = try TemporaryFolder()
        for own in ["0", "50000"] {
            var options = StoreOptions()
            options.sqlitePragmas["wal_autocheckpoint"] = own
            let (coordinator, connection, _, _) = try SQLiteLargeSaveCacheTests.save(
                2_000, at: folder.file("Own\(own).sqlite"), options: options)
            #expect(try connection.pragmaInteger("wal_autocheckpoint") == Int64(own))
            withExtendedLifetime(coordinator) {}
        }
    }
}
