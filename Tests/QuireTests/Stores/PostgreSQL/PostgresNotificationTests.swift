import Foundation
import Testing

import Quire
import QuirePostgres
import QuirePostgresTestSupport
import QuireTestSupport

/// Saves made by a coordinator in another process reach this one through `LISTEN`/`NOTIFY`.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNotificationTests {
    final class Received: @unchecked Sendable {
        // `@unchecked Sendable`: `changes` is read and written only under `lock`.
        private let lock = NSLock()
        private var changes: [ContextDidSave] = []
        func add(_ change: ContextDidSave) { lock.withLock { changes.append(change) } }
        var all: [ContextDidSave] { lock.withLock { changes } }
    }

    private func slots(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: "Slot")
        request.sortDescriptors = [SortKey("index")]
        return try context.fetch(request)
    }

    private func runBump(_ url: URL) throws {
        let worker = try #require(CrashTests.worker, "quire-crash-worker is not built; run swift build --build-tests first")
        let process = Process()
        process.executableURL = worker
        process.arguments = ["pg-writer", "bump", url.absoluteString]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.contains("bumped"), "\(output)")
    }

    @Test func anotherProcessSaveIsAnnouncedMergedAndShownByARefresh() throws {
        let url = try #require(PostgresTestServer.storeURL())
        try PostgresContention.seed(url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PostgresContention.model())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let merging = ManagedObjectContext()
        merging.persistentStoreCoordinator = coordinator
        let plain = ManagedObjectContext()
        plain.persistentStoreCoordinator = coordinator
        let merged = try slots(merging)
        let unmerged = try slots(plain)
        #expect(merged.first?.value(forKey: "w0") as? Int64 == 0)
        #expect(unmerged.first?.value(forKey: "w0") as? Int64 == 0)

        let received = Received()
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStore.remoteChangeNotification, object: coordinator, queue: nil
        ) { notification in
            if let changes = ContextDidSave.remoteChange(notification) { received.add(changes) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let observation = merging.automaticallyMergeRemoteChanges()
        defer { observation.cancel() }

        try runBump(url)
        let deadline = Date().addingTimeInterval(10)
        while received.all.isEmpty && Date() < deadline { usleep(10_000) }
        let changes = try #require(received.all.first, "no notification within 10 s")
        #expect(changes.updatedObjectIDs == [merged[0].objectID])
        #expect(changes.insertedObjectIDs.count == 1)
        // The merging context shows the new value without being asked (the merge runs on its queue).
        var value: Int64?
        for _ in 0..<200 {
            merging.performAndWait { value = merged[0].value(forKey: "w0") as? Int64 }
            if value == 42 { break }
            usleep(10_000)
        }
        #expect(value == 42)
        #expect(try slots(merging).count == PostgresContention.slotCount + 1)
        // A context that does not merge shows it once it refreshes the object.
        plain.refresh(unmerged[0], mergeChanges: false)
        #expect(unmerged[0].value(forKey: "w0") as? Int64 == 42)
    }
}
