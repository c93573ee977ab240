// Reads the SQLite store's connection (its cache_size and SQLite's spill counter), which has no public face:
// uses QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// A save that writes many rows gets a larger page cache for its transaction (`StoreOptions.largeSaveCacheSize`)
/// and gives it back afterwards, so its dirty pages are not spilled and written twice, and the memory is held
/// only while it runs.
@Suite("SQLite's page cache for large saves")
struct SQLiteLargeSaveCacheTests {
    static func model() -> ManagedObjectModel {
        let key = AttributeDescription(name: "key", type: .string)
        key.isIndexed = true
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Record", properties: [key, AttributeDescription(name: "payload", type: .string)])
        ])
    }

    /// Saves `count` records with an indexed random key and a 400-byte payload (several MB of dirty pages, more
    /// than SQLite's default 2 MB cache) through a new stack with `options`; returns the store's connection
    /// (still open), its spills during the save, and the keys saved.
    static func save(
        _ count: Int, at url: URL, options: StoreOptions = StoreOptions()
    ) throws -> (PersistentStoreCoordinator, SQLiteConnection, spills: Int, keys: [String]) {
        let (coordinator, context) = try Fixtures.stack(model(), at: url, options: options)
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        let connection = try #require(store.connection)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Record"])
        let payload = String(repeating: "p", count: 400)
        var keys: [String] = []
        for _ in 0..<count {
            let record = ManagedObject(entity: entity, insertInto: context)
            let key = UUID().uuidString
            record.setValue(key, forKey: "key")
            record.setValue(payload, forKey: "payload")
            keys.append(key)
        }
        let before = connection.cacheSpills
        try context.save()
        return (coordinator, connection, connection.cacheSpills - before, keys)
    }

    /// Whether a new stack on `url` reads back every key once.
    static func readsBack(_ keys: [String], at url: URL) throws -> Bool {
        let (_, context) = try Fixtures.stack(model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Record")
        let stored = try context.fetch(request).compactMap { $0.value(forKey: "key") as? String }
        return stored.sorted() == keys.sorted()
    }

    @Test func aLargeSaveIsNotSpilledAndTheCacheShrinksAfter() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Large.sqlite")
        let (coordinator, connection, spills, keys) = try Self.save(12_000, at: url)
        #expect(spills == 0)
        // SQLite's default again (-2000: 2,000 KiB).
        #expect(try connection.pragmaInteger("cache_size") == -2000)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try Self.readsBack(keys, at: url))
    }

    @Test func withoutTheLargerCacheTheSameSaveSpills() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Spilled.sqlite")
        var options = StoreOptions()
        options.largeSaveCacheSize = 0
        let (coordinator, connection, spills, keys) = try Self.save(12_000, at: url, options: options)
        #expect(spills > 0)
        #expect(try connection.pragmaInteger("cache_size") == -2000)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try Self.readsBack(keys, at: url))
    }

    @Test func aLargerCacheOfYourOwnIsKept() throws {
        let folder = try TemporaryFolder()
        var options = StoreOptions()
        options.sqlitePragmas["cache_size"] = "-131072"
        let (coordinator, connection, spills, _) = try Self.save(12_000, at: folder.file("Own.sqlite"), options: options)
        #expect(spills == 0)
        #expect(try connection.pragmaInteger("cache_size") == -131072)
        withExtendedLifetime(coordinator) {}
    }

    @Test func aSmallerCacheOfYourOwnComesBackAfterTheSave() throws {
        let folder = try TemporaryFolder()
        var options = StoreOptions()
        options.sqlitePragmas["cache_size"] = "100"
        let (coordinator, connection, spills, _) = try Self.save(12_000, at: folder.file("Small.sqlite"), options: options)
        #expect(spills == 0)
        #expect(try connection.pragmaInteger("cache_size") == 100)
        withExtendedLifetime(coordinator) {}
    }

    @Test func aLargeSaveThatFailsGivesTheCacheBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Conflict.sqlite")
        let (coordinator, connection, _, keys) = try Self.save(StoreOptions.largeSaveRowCount, at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Record")
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let records = try context.fetch(request)
        #expect(records.allSatisfy { $0.value(forKey: "payload") as? String != nil })
        // Another stack changes one record after this context read it: this context's save conflicts.
        let (_, other) = try Fixtures.stack(Self.model(), at: url)
        let changed = try #require(try other.fetch(request).first { $0.value(forKey: "key") as? String == keys[0] })
        changed.setValue("changed elsewhere", forKey: "payload")
        try other.save()
        for record in records { record.setValue("mine", forKey: "payload") }
        #expect(throws: QuireError.self) { try context.save() }
        #expect(try connection.pragmaInteger("cache_size") == -2000)
        let (_, reader) = try Fixtures.stack(Self.model(), at: url)
        let payloads = try reader.fetch(request).compactMap { $0.value(forKey: "payload") as? String }
        #expect(payloads.count == keys.count && !payloads.contains("mine") && payloads.contains("changed elsewhere"))
    }
}
