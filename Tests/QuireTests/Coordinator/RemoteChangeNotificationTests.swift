import Foundation
import Testing

import Quire
import QuirePostgres

/// `NSPersistentStoreRemoteChange` as Apple's history samples use it: a store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` posts it, with its coordinator as the object, after
/// every write: this coordinator's saves and batch requests (with the records), another coordinator's or another
/// process's writes to the same file (noticed by watching it).
@Suite struct RemoteChangeNotificationTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// The remote-change notifications one coordinator posted, as they arrive (on the private queue).
    final class Received: @unchecked Sendable {
        // `@unchecked Sendable`: `notes` is read and written only under `lock`; `observer` is set once, before any
        // notification can arrive, and read by `deinit`.
        struct Note {
            var write: ContextDidSave
            var everything: Bool
            var isLocal: Bool
            var storeUUID: String?
            var storeURL: URL?
            var token: PersistentHistoryToken?
            var onMainThread: Bool
        }

        private let lock = NSLock()
        private var notes: [Note] = []
        private var observer: (any NSObjectProtocol)?

        init(_ coordinator: PersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) {
                [weak self] notification in
                let info = notification.userInfo ?? [:]
                let note = Note(
                    write: ContextDidSave.remoteChange(notification) ?? ContextDidSave(),
                    everything: info[PersistentStore.RemoteChangeKey.everything] as? Bool ?? false,
                    isLocal: info[PersistentStore.RemoteChangeKey.isLocal] as? Bool ?? false,
                    storeUUID: info[PersistentStore.RemoteChangeKey.storeUUID] as? String,
                    storeURL: info[PersistentStore.RemoteChangeKey.storeURL] as? URL,
                    token: info[PersistentStore.RemoteChangeKey.historyToken] as? PersistentHistoryToken,
                    onMainThread: Thread.isMainThread)
                self?.lock.withLock { self?.notes.append(note) }
            }
        }

        deinit { observer.map(NotificationCenter.default.removeObserver) }

        var all: [Note] { lock.withLock { notes } }

        /// Waits (up to 10 s, a guard against a hang, not a measure) until `count` notifications matching
        /// `condition` arrived; returns them.
        func wait(for count: Int = 1, _ condition: (Note) -> Bool = { _ in true }) -> [Note] {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let matching = all.filter(condition)
                if matching.count >= count { return matching }
                usleep(5_000)
            }
            return all.filter(condition)
        }
    }

    static func url(_ type: StoreType, _ folder: TemporaryFolder) -> URL? {
        type == .inMemory ? nil : folder.file("Runs.\(type.rawValue.lowercased())")
    }

    static func options(posting: Bool) -> StoreOptions {
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        options.postsRemoteChangeNotifications = posting
        return options
    }

    static func insertRun(_ context: ManagedObjectContext, _ processID: Int64) throws -> ManagedObject {
        let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        run.setValue(Date(), forKey: "date")
        run.setValue(processID, forKey: "processID")
        try context.save()
        return run
    }

    @Test(arguments: types)
    func thisCoordinatorsWritesArePostedWithTheirRecords(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let url = type == .postgres ? PostgresTestServer.storeURL() : Self.url(type, folder)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: Self.options(posting: true))
        let received = Received(coordinator)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator

        let run = try Self.insertRun(context, 1)
        let saved = try #require(received.wait { !$0.write.insertedObjectIDs.isEmpty }.first)
        #expect(saved.write.insertedObjectIDs == [run.objectID])
        #expect(saved.isLocal && !saved.everything && !saved.onMainThread)
        #expect(saved.storeUUID == store.identifier && saved.storeURL == store.url)
        // The history token as it is after the write (PostgreSQL stores keep no history).
        #expect(saved.token == coordinator.currentPersistentHistoryToken() && (saved.token != nil) == (type != .postgres))

        // Batch requests too: the records when their IDs are asked for.
        let insert = BatchInsertRequest(entityName: "Run", objects: [["date": Date(), "processID": 2]])
        insert.resultType = .objectIDs
        let inserted = try #require(try context.execute(insert).objectIDs)
        #expect(received.wait { $0.write.insertedObjectIDs == Set(inserted) }.count == 1)
        let delete = BatchDeleteRequest(objectIDs: [run.objectID])
        delete.resultType = .objectIDs
        try context.execute(delete)
        #expect(received.wait { $0.write.deletedObjectIDs == [run.objectID] }.count == 1)
        #expect(received.all.filter { !$0.isLocal }.isEmpty)
    }

    @Test func aStoreWithoutTheOptionPostsNothing() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let quiet = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Quiet.sqlite"), options: Self.options(posting: false))
        let loud = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Loud.sqlite"), options: Self.options(posting: true))
        let received = Received(coordinator)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let first = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        first.setValue(Date(), forKey: "date")
        context.assign(first, to: quiet)
        try context.save()
        let second = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        second.setValue(Date(), forKey: "date")
        context.assign(second, to: loud)
        try context.save()
        // Notifications are posted in order on one queue: once the second save's has come, the first's would have.
        #expect(received.wait { $0.write.insertedObjectIDs == [second.objectID] }.count == 1)
        #expect(received.all.map(\.storeUUID) == [loud.identifier])
    }

    @Test(arguments: [StoreType.sqlite, .xml, .binary])
    func anotherCoordinatorsWritesToTheFileArePosted(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let url = try #require(Self.url(type, folder))
        let watched = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        try watched.addPersistentStore(type: type, at: url, options: Self.options(posting: true))
        let received = Received(watched)
        let mine = ManagedObjectContext()
        mine.persistentStoreCoordinator = watched
        _ = try Self.insertRun(mine, 1)
        #expect(received.wait { $0.isLocal }.count == 1)

        // Another coordinator, which does not post, writes the same file.
        let other = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        try other.addPersistentStore(type: type, at: url, options: Self.options(posting: false))
        let theirs = ManagedObjectContext()
        theirs.persistentStoreCoordinator = other
        _ = try Self.insertRun(theirs, 2)
        let foreign = received.wait { !$0.isLocal }
        let note = try #require(foreign.first, "no notification of the other coordinator's save")
        // Which records changed is not known: read the history from the token.
        #expect(note.everything && note.write.isEmpty && note.storeURL == url)
        #expect(note.token != nil)
        if type == .sqlite {
            let since = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            #expect(try mine.execute(since).transactions?.count == 2)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs SQLite's shell (Debian's sqlite3, which make test installs)"))
    func anotherProcessWritingTheSQLiteFileIsPosted() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Runs.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.options(posting: true))
        let received = Received(coordinator)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let run = try Self.insertRun(context, 1)
        #expect(received.wait { $0.isLocal }.count == 1)

        // SQLite's own shell, in a process of its own.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [url.path, "UPDATE ZRUN SET ZPROCESSID = 99, Z_OPT = Z_OPT + 1"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(received.wait { !$0.isLocal && $0.everything }.count >= 1, "no notification of the other process's write")
        // A context that refreshes reads what the process wrote.
        context.refresh(run, mergeChanges: false)
        context.stalenessInterval = 0
        #expect(run.value(forKey: "processID") as? Int64 == 99)
    }
}

/// This coordinator's writes to a PostgreSQL store are posted too (other coordinators' saves:
/// ``PostgresNotificationTests``).
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresRemoteChangeNotificationTests {
    @Test func thisCoordinatorsWritesArePosted() throws {
        try RemoteChangeNotificationTests().thisCoordinatorsWritesArePostedWithTheirRecords(type: .postgres)
    }
}
