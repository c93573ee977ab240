import Foundation
import Testing

import Quire

#if canImport(Glibc)
import Glibc
#endif

/// Save As between two stores of the same kind and model copies the store's file (SQLite's online backup API
/// for SQLite) instead of its records: what the file holds beyond the model's tables comes along, the copy
/// gets a UUID of its own, external data files are linked and checked.
@Suite struct SaveAsSameKindTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func sqliteToSQLiteCopiesTheFile() throws {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        let bytes = Data((0..<5000).map { UInt8($0 % 251) })
        _ = try stack.insert("Sample", ["vBinarydata": bytes, "vString": "one"])
        _ = try stack.insert("Sample", ["vString": "two"])
        try stack.context.save()
        let source = try #require(stack.url)
        // A table the model does not know (as Core Data's history or CloudKit tables are to an app's model):
        // a record-by-record copy would drop it, a copy of the file keeps it.
        try RawSQLite(source, readOnly: false).execute("CREATE TABLE ANOTE (Z_PK INTEGER PRIMARY KEY, ZNOTE VARCHAR); INSERT INTO ANOTE VALUES (1, 'kept')")
        let store = try #require(stack.store)

        let url = folder.file("Copy.sqlite")
        let saved = try stack.coordinator.migratePersistentStore(store, to: url, options: options, type: .sqlite)
        #expect(saved.identifier != store.identifier)
        #expect(try RawSQLite(url).rows("SELECT ZNOTE FROM ANOTE").count == 1)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: url)
        #expect(metadata[StoreMetadataKey.storeUUID] == .string(saved.identifier))
        #expect(try stack.fetch("Sample", "vString == 'one'").first?.dataValue(forKey: "vBinarydata") == bytes)
        // The external data file is the source's, linked.
        let from = ExternalDataFiles(storeURL: source, type: .sqlite)
        let to = ExternalDataFiles(storeURL: url, type: .sqlite)
        let name = try #require(from.fileNames().first)
        var a = stat()
        var b = stat()
        #expect(stat(from.file(name).path, &a) == 0 && stat(to.file(name).path, &b) == 0)
        #expect(a.st_ino == b.st_ino)
        // The source file is as it was: its own UUID, both samples.
        let sourceMetadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: source)
        #expect(sourceMetadata[StoreMetadataKey.storeUUID] == .string(store.identifier))
    }

    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func aMissingExternalDataFileIsRefusedAsByARecordCopy(type: StoreType) throws {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let kind = try #require(StoreKind.all.first { $0.type == type })
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        _ = try stack.insert("Sample", ["vBinarydata": Data(count: 4000), "vString": "one"])
        try stack.context.save()
        let source = try #require(stack.url)
        let files = ExternalDataFiles(storeURL: source, type: type)
        try FileManager.default.removeItem(at: files.file(try #require(files.fileNames().first)))
        let url = folder.file("Copy-" + source.lastPathComponent)
        let error = try #require(throws: QuireError.self) {
            try stack.coordinator.migratePersistentStore(try #require(stack.store), to: url, options: options, type: type)
        }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.context.key == "vBinarydata")
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: ExternalDataFiles.supportFolder(forStore: url, type: type).path))
    }
}
