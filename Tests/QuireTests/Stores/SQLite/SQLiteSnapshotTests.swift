import Foundation
import QuireTestSupport
import Testing

import Quire
import QuireCore
@testable import QuireStores
@testable import QuireSQLite

/// Save As between SQLite stores copies the database file itself when its write-ahead log can be emptied, and
/// uses the backup API when it cannot (another connection holds a read transaction on the log): the copy holds
/// every saved object either way, and the source keeps working.
@Suite struct SQLiteSnapshotTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Saves `count` items named from `start` into an open stack.
    static func save(_ context: ManagedObjectContext, _ count: Int, from start: Int = 0) throws {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Department"])
        for index in start..<(start + count) { ManagedObject(entity: entity, insertInto: context).setValue("d\(index)", forKey: "name") }
        try context.save()
    }

    /// The names of the departments in a closed store, read read-only.
    static func names(at url: URL) throws -> Set<String> {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        var options = StoreOptions()
        options.isReadOnly = true
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return Set(try context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).compactMap { $0.value(forKey: "name") as? String })
    }

    @Test(arguments: [false, true])
    func aCopyHoldsEverySavedObject(readerHoldsTheLog: Bool) throws {
        let source = folder.file("Source-\(readerHoldsTheLog).sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: source)
        try Self.save(context, 50)
        // Another connection's read transaction keeps the log from being emptied: the backup API copies then.
        let reader = try SQLiteConnection(url: source, readOnly: true, create: false)
        defer { reader.close() }
        if readerHoldsTheLog {
            try reader.execute("BEGIN; SELECT count(*) FROM ZDEPARTMENT;")
        }
        try Self.save(context, 50, from: 50)
        var status = stat()
        #expect(stat(source.path + "-wal", &status) == 0 && status.st_size > 0, "the second save is in the log")
        let store = try #require(coordinator.persistentStores.first)
        let target = folder.file("Copy-\(readerHoldsTheLog).sqlite")
        let moved = try coordinator.migratePersistentStore(store, to: target, type: .sqlite)
        if readerHoldsTheLog { try reader.execute("COMMIT") }
        try coordinator.remove(moved)
        let expected = Set((0..<100).map { "d\($0)" })
        #expect(try Self.names(at: target) == expected)
        #expect(try StoreVerification.problems(inStoreAt: target, type: .sqlite).isEmpty)
        // The copy is a rollback-journal database, alone.
        #expect(!FileManager.default.fileExists(atPath: target.path + "-wal"))
        #expect(try Self.names(at: source) == expected)
    }

    /// The copy of a store in write-ahead-log mode is a rollback-journal database of its own: the file format's
    /// versions say so, SQLite finds it whole, and a read-only open makes no file beside it.
    @Test func aSnapshotIsARollbackJournalDatabase() throws {
        let source = folder.file("Logged.sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: source)
        try Self.save(context, 30)
        let store = try #require(coordinator.persistentStores.first)
        let snapshot = folder.file("Snapshot.sqlite")
        try store.backend.writeSnapshot(to: snapshot)
        let header = try Array(Data(contentsOf: snapshot).prefix(100))
        #expect(header[18] == 1 && header[19] == 1, "\(header[18]), \(header[19])")
        let connection = try SQLiteConnection(url: snapshot, readOnly: true, create: false)
        let check = try connection.prepare("PRAGMA integrity_check")
        #expect(try check.step() && check.string(at: 0) == "ok")
        check.finalize()
        let mode = try connection.prepare("PRAGMA journal_mode")
        #expect(try mode.step() && mode.string(at: 0) == "delete")
        mode.finalize()
        connection.close()
        #expect(try Self.names(at: snapshot) == Set((0..<30).map { "d\($0)" }))
        let beside = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("Snapshot") }
        #expect(beside == ["Snapshot.sqlite"])
    }

    /// The source store, still attached to another coordinator, keeps its connection's locks and goes on saving.
    @Test func theSourceGoesOnAfterItsFileWasCopied() throws {
        let source = folder.file("Live.sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: source)
        try Self.save(context, 10)
        let other = try PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
        let otherStore = try other.addPersistentStore(type: .sqlite, at: source)
        let otherContext = ManagedObjectContext()
        otherContext.persistentStoreCoordinator = other
        let store = try #require(coordinator.persistentStores.first)
        try other.migratePersistentStore(otherStore, to: folder.file("Copy.sqlite"), type: .sqlite)
        try Self.save(context, 10, from: 10)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 20)
        try coordinator.remove(store)
        #expect(try Self.names(at: source).count == 20)
        #expect(try Self.names(at: folder.file("Copy.sqlite")).count == 10)
    }
}
