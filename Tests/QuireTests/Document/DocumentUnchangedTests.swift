import Foundation
import Testing

import Quire

#if canImport(Glibc)
import Glibc
#endif

/// A document opened read-only, or saved with no change, leaves its file system as it was: no new files, no
/// file replaced (same inodes), no file written (same sizes and modification times).
@Suite struct DocumentUnchangedTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Every file and folder under the test folder: path, inode, size and modification time (nanoseconds).
    func snapshot() throws -> [String] {
        let root = folder.url.path
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var lines: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var status = stat()
            guard lstat(root + "/" + relative, &status) == 0 else { continue }
            lines.append("\(relative) ino \(status.st_ino) size \(status.st_size) mtime \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
        }
        return lines.sorted()
    }

    /// A saved document of `kind` with two notes.
    func savedDocument(_ kind: DocumentFixtures.Kind) throws -> URL {
        kind.register()
        let url = folder.file("Notes.\(kind.fileExtension)")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["alpha", "beta"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        return url
    }

    func titles(_ document: PersistentDocument) throws -> [String] {
        let context = document.managedObjectContext
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }

    @Test(arguments: DocumentFixtures.kinds)
    func openingReadOnlyWritesNothing(kind: DocumentFixtures.Kind) throws {
        let url = try savedDocument(kind)
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let typeName = kind.typeName + "-readonly"
        DocumentTypeRegistry.shared.register(
            DocumentType(
                name: typeName, mimeType: DocumentFixtures.mimeType, extensions: [kind.fileExtension], format: kind.format,
                storeType: kind.storeType, storeOptions: readOnly))
        let before = try snapshot()
        let document = try PersistentDocument(contentsOf: url, ofType: typeName, model: DocumentFixtures.model())
        #expect(try titles(document) == ["alpha", "beta"])
        document.close()
        #expect(try snapshot() == before)
    }

    @Test(arguments: DocumentFixtures.kinds)
    func savingWithNoChangeWritesNothing(kind: DocumentFixtures.Kind) throws {
        let url = try savedDocument(kind)
        let before = try snapshot()
        let document = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        #expect(try titles(document) == ["alpha", "beta"])
        try document.save()
        try document.autosave()
        #expect(!document.isDocumentEdited)
        try document.save()
        document.close()
        #expect(try snapshot() == before)
    }

    @Test(arguments: DocumentFixtures.kinds)
    func aChangeStillSaves(kind: DocumentFixtures.Kind) throws {
        let url = try savedDocument(kind)
        // Search metadata only.
        var before = try snapshot()
        var document = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.title = "Renamed"
        try document.save()
        document.close()
        #expect(try snapshot() != before)
        #expect(try SearchMetadata(contentsOf: url).title == "Renamed")
        // Additional content only.
        before = try snapshot()
        document = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        try FileManager.default.createDirectory(at: document.additionalContentURL, withIntermediateDirectories: true)
        try Data("extra".utf8).write(to: document.additionalContentURL.appendingPathComponent("extra.txt"))
        try document.save()
        document.close()
        #expect(try snapshot() != before)
        // An object.
        before = try snapshot()
        document = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["gamma"])
        try document.save()
        document.close()
        #expect(try snapshot() != before)
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["alpha", "beta", "gamma"])
    }
}
