import Foundation
import Testing

import Quire

/// What a save writes for the desktop indexers, where each reads it: the indexed values in `dc:subject` (Tracker),
/// the title in `user.xdg.comment` (Baloo), and the way back from a hit inside a package to the package.
@Suite struct SearchMetadataIndexerTests {
    /// Saves a notes document with search metadata and two notes whose titles are indexed.
    static func save(_ kind: DocumentFixtures.Kind, in folder: TemporaryFolder, comment: String? = "Things to do") throws -> URL {
        kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata = SearchMetadata(title: "Errands", keywords: ["home"], authors: ["Ann"], comment: comment)
        DocumentFixtures.fill(document, titles: ["Buy zucchini", "Call the plumber", "Buy zucchini"])
        let url = folder.file("Errands.\(kind.fileExtension)")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        return url
    }

    @Test func indexedValuesAreInTheSubjectTrackerReads() throws {
        let folder = try TemporaryFolder()
        let url = try Self.save(DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite), in: folder)
        let top = String(decoding: try #require(try ArchiveEntries.data(of: url, at: DocumentPackageLayout.archiveMetaXML)), as: UTF8.self)
        #expect(top.contains("<dc:subject>Buy zucchini\nCall the plumber</dc:subject>"))
        // Quire's own reader still takes the values from the user-defined fields, one per distinct value.
        #expect(try SearchMetadata(contentsOf: url).indexedValues["Note.title"]?.sorted() == ["Buy zucchini", "Call the plumber"])
    }

    @Test func titleAndCommentAreInTheCommentAttributeBalooReads() throws {
        let folder = try TemporaryFolder()
        let url = try Self.save(DocumentFixtures.Kind(format: .package, storeType: .sqlite), in: folder)
        let comment = try #require(try ExtendedAttributes.value(SearchMetadata.commentAttribute, of: url))
        #expect(String(decoding: comment, as: UTF8.self) == "Errands\nThings to do")
        let tags = try #require(try ExtendedAttributes.value(SearchMetadata.tagsAttribute, of: url))
        #expect(String(decoding: tags, as: UTF8.self) == "home")

        let untitled = try TemporaryFolder()
        let second = try Self.save(DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite), in: untitled, comment: nil)
        let titleOnly = try #require(try ExtendedAttributes.value(SearchMetadata.commentAttribute, of: second))
        #expect(String(decoding: titleOnly, as: UTF8.self) == "Errands")
    }

    @Test func aHitOnAPackagesSummaryLeadsToThePackage() throws {
        let folder = try TemporaryFolder()
        let package = try Self.save(DocumentFixtures.Kind(format: .package, storeType: .sqlite), in: folder)
        let summary = package.appendingPathComponent(DocumentPackageLayout.summary)
        #expect(FileManager.default.fileExists(atPath: summary.path))
        #expect(SearchMetadata.documentURL(forIndexedFile: summary).standardizedFileURL.path == package.standardizedFileURL.path)
        #expect(SearchMetadata.documentURL(forIndexedFile: package.appendingPathComponent(DocumentPackageLayout.metaXML))
            .standardizedFileURL.path == package.standardizedFileURL.path)
        // A summary.txt in an ordinary Metadata folder (no mimetype beside) and other files are their own documents.
        let plain = folder.file("Notes/Metadata/summary.txt")
        try FileManager.default.createDirectory(at: plain.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: plain)
        #expect(SearchMetadata.documentURL(forIndexedFile: plain) == plain)
        let store = package.appendingPathComponent(DocumentPackageLayout.storePath)
        #expect(SearchMetadata.documentURL(forIndexedFile: store) == store)
    }
}
