import CSQLite
import Foundation
import Testing

import Quire

/// Every kind of bad file is refused with the right code, and nothing is written.
@Suite struct BadFileTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Adds a store at `url` and returns the error; checks the folder's files did not change.
    private func openError(_ url: URL, options: StoreOptions = StoreOptions()) throws -> QuireError {
        let before = try snapshotOfFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let error = try #require(throws: QuireError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        }
        #expect(try snapshotOfFolder() == before, "opening wrote to the folder")
        #expect(error.context.file?.path == url.path)
        return error
    }

    private func snapshotOfFolder() throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.file(name).path, isDirectory: &isDirectory)
            result[name] = isDirectory.boolValue ? Data("<dir>".utf8) : try Data(contentsOf: folder.file(name))
        }
        return result
    }

    private func validStore(_ name: String) throws -> URL {
        let url = folder.file(name)
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: url)
        for index in 0..<200 {
            let run = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
            run.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
        }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        let url = folder.file("Photo.sqlite")
        try Data("\u{89}PNG\r\n\u{1A}\n".utf8 + (0..<2000).map { UInt8($0 % 251) }).write(to: url)
        let error = try openError(url)
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("not an SQLite database"))
    }

    @Test func aTruncatedDatabaseIsRefused() throws {
        let url = try validStore("Runs.sqlite")
        let whole = try Data(contentsOf: url)
        #expect(whole.count > 8192)
        for length in [50, 4096 + 100, whole.count - 4096] {
            let cut = folder.file("Cut\(length).sqlite")
            try whole.prefix(length).write(to: cut)
            let error = try openError(cut)
            #expect(error.code == .fileReadCorruptFile, "length \(length): \(error)")
            #expect(error.message.contains("truncated"))
        }
    }

    @Test func aDatabaseOfAnotherSchemaIsRefused() throws {
        let url = folder.file("Other.sqlite")
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x')", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let error = try openError(url)
        #expect(error.code == .persistentStoreIncompatibleSchema)
        #expect(error.message.contains("neither a Quire nor a Core Data store"))
    }

    @Test func aStoreOfAnotherModelIsRefused() throws {
        let url = try validStore("Runs.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
    }

    @Test func aStoreOfAnotherModelIsRefusedLeavingNoSideFiles() throws {
        let url = try validStore("Runs.sqlite")
        for readOnly in [false, true] {
            var options = StoreOptions()
            options.isReadOnly = readOnly
            let before = try snapshotOfFolder()
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            let error = try #require(throws: QuireError.self) {
                try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            }
            #expect(error.code == .persistentStoreIncompatibleVersionHash)
            #expect(try snapshotOfFolder() == before, "read-only \(readOnly): the refused open left files")
        }
    }

    @Test func aReadOnlyOpenWritesNothing() throws {
        let url = try validStore("Runs.sqlite")
        let before = try snapshotOfFolder()
        #expect(before.keys.sorted() == ["Runs.sqlite"])
        var options = StoreOptions()
        options.isReadOnly = true
        do {
            let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: url, options: options)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Run")) == 200)
            _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: url)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        #expect(try snapshotOfFolder() == before, "the read-only open left files")
    }

    @Test func aReadOnlyOpenReadsTheTransactionsOfAWriteAheadLog() throws {
        let url = try validStore("Runs.sqlite")
        // Another connection keeps the database open with a transaction in its WAL, not yet checkpointed.
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "PRAGMA wal_autocheckpoint = 0; DELETE FROM ZRUN WHERE Z_PK <= 50", nil, nil, nil) == SQLITE_OK)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(!wal.isEmpty)
        var options = StoreOptions()
        options.isReadOnly = true
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: url, options: options)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Run")) == 150)
    }

    @Test func aReadOnlyFileIsRefusedForWritingAndOpensReadOnly() throws {
        let url = try validStore("Runs.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path) }
        let error = try openError(url)
        #expect(error.code == .fileWriteNoPermission)
        var options = StoreOptions()
        options.isReadOnly = true
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: url, options: options)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Run")) == 200)
    }

    @Test func aMissingFileOpenedReadOnlyIsRefused() throws {
        var options = StoreOptions()
        options.isReadOnly = true
        let error = try openError(folder.file("Missing.sqlite"), options: options)
        #expect(error.code == .fileReadNoSuchFile)
    }

    @Test func aFolderIsNotAStore() throws {
        let url = folder.file("Folder.sqlite")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        #expect(try openError(url).code == .fileReadCorruptFile)
    }

    @Test func corruptMetadataIsRefused() throws {
        let url = try validStore("Runs.sqlite")
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "UPDATE Z_METADATA SET Z_PLIST = x'626f67757321'", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let error = try openError(url)
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("metadata"))
    }

    @Test func unknownStoreTypeIsRefused() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        #expect { try coordinator.addPersistentStore(type: StoreType(rawValue: "Nope"), at: folder.file("x")) } throws: {
            ($0 as? QuireError)?.code == .persistentStoreInvalidType
        }
    }

    @Test func invalidModelsAreRefusedWithTheirNames() throws {
        let broken = EntityDescription(name: "Broken", properties: [
            RelationshipDescription(name: "owner", destination: "Ghost")
        ])
        let error = try #require(throws: QuireError.self) {
            try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [broken]))
        }
        #expect(error.code == .invalidModel)
        #expect(error.context.entity == "Broken" && error.context.key == "owner")
        #expect(error.message.contains("Ghost"))
    }
}
