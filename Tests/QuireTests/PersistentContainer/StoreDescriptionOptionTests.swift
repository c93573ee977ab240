import Foundation
import Testing

import Quire

/// Store descriptions as Apple's samples set them up: options Quire does not know, remote-change and history
/// keys, the timeout and SQLite pragmas; and the coordinator adding a store from a description.
@Suite struct StoreDescriptionOptionTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// A description of a store of `type` in `folder`.
    static func description(_ type: StoreType, in folder: TemporaryFolder) -> PersistentStoreDescription {
        let description = PersistentStoreDescription(url: folder.file("Sub/Runs.\(type.rawValue.lowercased())"))
        description.type = type
        return description
    }

    /// The processIDs of the runs a fresh container reads from the description's store.
    static func storedRuns(_ description: PersistentStoreDescription) throws -> [Int64] {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("processID")]
        return try context.fetch(request).map { $0.value(forKey: "processID") as? Int64 ?? -1 }
    }

    @Test(arguments: types)
    func optionsQuireDoesNotKnowAreIgnoredAndTheStoreLoads(type: StoreType) async throws {
        let folder = try TemporaryFolder()
        let container = try PersistentContainer(name: "Runs", managedObjectModel: Fixtures.runModel())
        let description = Self.description(type, in: folder)
        // As Apple's history sample sets them up, plus iOS's file protection, which Linux has no use for.
        description.setOption(true, forKey: "NSPersistentHistoryTrackingKey")
        description.setOption(true, forKey: "NSPersistentStoreRemoteChangeNotificationPostOptionKey")
        description.setOption("NSFileProtectionComplete", forKey: "NSPersistentStoreFileProtectionKey")
        container.persistentStoreDescriptions = [description]
        let stores = try await container.loadPersistentStores()
        let store = try #require(stores.first)
        #expect(store.options.ignoredCoreDataOptions == ["NSPersistentStoreFileProtectionKey"])
        #expect(store.options.persistentHistoryTracking && store.options.postsRemoteChangeNotifications)
        try container.viewContext.performAndWait {
            let run = EntityDescription.insertNewObject(forEntityName: "Run", into: container.viewContext)
            run.setValue(Date(), forKey: "date")
            run.setValue(7, forKey: "processID")
            try container.viewContext.save()
        }
        if type != .inMemory { #expect(try Self.storedRuns(description) == [7]) }
    }

    @Test func timeoutAndPragmasReachTheSQLiteConnection() throws {
        let folder = try TemporaryFolder()
        let description = Self.description(.sqlite, in: folder)
        #expect(description.timeout == 5)
        description.timeout = 0.05
        description.setValue("DELETE", forPragmaNamed: "journal_mode")
        description.setValue(-4000, forPragmaNamed: "cache_size")
        description.setValue(nil, forPragmaNamed: "cache_size")
        description.setValue(-2000, forPragmaNamed: "cache_size")
        #expect(description.timeout == 0.05)
        #expect(description.sqlitePragmas["journal_mode"] as? String == "DELETE")
        #expect(description.sqlitePragmas["cache_size"] as? Int == -2000)
        #expect(description.options[StoreOptions.CoreDataKey.timeout] as? Double == 0.05)

        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let store = try coordinator.addPersistentStore(with: description)
        #expect(store.options.journalMode == .delete && store.options.timeout == 0.05)
        #expect(store.options.sqlitePragmas["cache_size"] == "-2000")
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        run.setValue(Date(), forKey: "date")
        try context.save()
        let url = try #require(description.url)
        // The rollback journal the pragma asked for: no write-ahead log beside the file.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(try RawSQLite(url).rows("PRAGMA journal_mode").first?.first.map { String(decoding: $0.data, as: UTF8.self) } == "delete")

        // Another connection holds the write lock: the save gives up after the description's timeout.
        let other = try RawSQLite(url, readOnly: false)
        try other.execute("BEGIN IMMEDIATE")
        run.setValue(3, forKey: "processID")
        #expect(throws: QuireError.self) { try context.save() }
        try other.execute("ROLLBACK")
        try context.save()
    }

    @Test(arguments: types)
    func theCoordinatorAddsAStoreFromADescription(type: StoreType) async throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let description = Self.description(type, in: folder)
        description.setOption(true, forKey: "NSSomeFutureOption")
        // Synchronously: the handler runs before the call returns.
        let reported = Reported()
        coordinator.addPersistentStore(with: description) { described, error in
            reported.add(described === description, error)
        }
        #expect(reported.all.count == 1 && reported.all.first?.0 == true && reported.all.first?.1 == nil)
        #expect(coordinator.persistentStores.count == 1)
        #expect(coordinator.persistentStores.first?.type == type)
        if type != .inMemory {
            #expect(FileManager.default.fileExists(atPath: try #require(description.url).path))
            // The same file again: refused, and reported to the handler.
            coordinator.addPersistentStore(with: description) { _, error in reported.add(false, error) }
            #expect(reported.all.count == 2 && reported.all.last?.1 != nil)
        }
    }

    @Test func aDescriptionAddedAsynchronouslyReportsOnAnotherThread() async throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let garbage = folder.file("Garbage.sqlite")
        try Data("not a database".utf8).write(to: garbage)
        let good = Self.description(.sqlite, in: folder)
        let bad = PersistentStoreDescription(url: garbage)
        for description in [good, bad] { description.shouldAddStoreAsynchronously = true }
        let errors = await withCheckedContinuation { (continuation: CheckedContinuation<[String: Bool], Never>) in
            let reported = Reported()
            for description in [good, bad] {
                coordinator.addPersistentStore(with: description) { described, error in
                    if reported.add(described === good, error) == 2 {
                        continuation.resume(returning: Dictionary(
                            reported.all.map { ($0.0 ? "good" : "bad", $0.1 != nil) }, uniquingKeysWith: { first, _ in first }))
                    }
                }
            }
        }
        #expect(errors == ["good": false, "bad": true])
        #expect(coordinator.persistentStores.map(\.url) == [good.url])
        #expect(try Data(contentsOf: garbage) == Data("not a database".utf8))
    }

    /// What completion handlers reported, from any thread.
    final class Reported: @unchecked Sendable {
        // `@unchecked Sendable`: `entries` is read and written only under `lock`.
        private let lock = NSLock()
        private var entries: [(Bool, (any Error)?)] = []
        @discardableResult
        func add(_ flag: Bool, _ error: (any Error)?) -> Int { lock.withLock { entries.append((flag, error)); return entries.count } }
        var all: [(Bool, (any Error)?)] { lock.withLock { entries } }
    }
}
