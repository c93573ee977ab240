import Foundation
import Testing

@testable import Quire

/// Search metadata: the ODF meta file round-trips, hostile text is escaped, and a filesystem without
/// extended attributes still saves (with a warning).
@Suite struct SearchMetadataTests {
    @Test func metaXMLRoundTripsAndEscapes() throws {
        var metadata = SearchMetadata(title: "R&D <plans>", keywords: ["a,b", "ü"], authors: ["Ann \"A\"", "Bob"], comment: "line 1\nline 2")
        metadata.objectCount = 7
        metadata.indexedValues = ["Note.title": ["x < y", "z"]]
        metadata.storeMetadata = ["NSStoreType": "SQLite"]
        metadata.modificationDate = Date(timeIntervalSince1970: 1_700_000_000)
        var parsed = SearchMetadata()
        try parsed.parseMetaXML(metadata.metaXML(), source: URL(fileURLWithPath: "/meta.xml"))
        #expect(parsed == metadata)
        #expect(metadata.extendedAttributes["user.xdg.tags"] == Data("a b,ü".utf8))
        let summary = String(decoding: metadata.summaryText(), as: UTF8.self)
        #expect(summary.contains("Title: R&D <plans>"))
        #expect(summary.contains("Comment: line 1 line 2"))
    }

    @Test func malformedMetaXMLIsRefused() throws {
        var parsed = SearchMetadata()
        let error = expectQuireError(.fileReadCorruptFile) {
            try parsed.parseMetaXML(Data("<office:document-meta><dc:title>".utf8), source: URL(fileURLWithPath: "/x/meta.xml"))
        }
        #expect(error?.message.contains("/x/meta.xml") ?? false)
    }

    /// A writable folder on a filesystem that refuses `user.*` extended attributes, if one is mounted.
    static let folderWithoutExtendedAttributes: URL? = {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 3, !fields[3].contains("ro") || fields[3].contains("rw") else { continue }
            let folder = URL(fileURLWithPath: String(fields[1])).appendingPathComponent("quire-xattr-probe-\(UUID().uuidString)")
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)) != nil else { continue }
            defer { try? FileManager.default.removeItem(at: folder) }
            do {
                try ExtendedAttributes.set("user.quire.probe", to: Data("1".utf8), on: folder)
            } catch {
                if ExtendedAttributes.isUnsupported(error) { return URL(fileURLWithPath: String(fields[1])) }
            }
        }
        return nil
    }()

    @Test(.enabled(if: folderWithoutExtendedAttributes != nil, "no writable filesystem without extended attributes is mounted here (ext4 and tmpfs both have them)"))
    func saveSucceedsWithAWarningWhereExtendedAttributesAreRefused() throws {
        let base = try #require(Self.folderWithoutExtendedAttributes)
        let kind = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        kind.register()
        let url = base.appendingPathComponent("quire-no-xattr-\(UUID().uuidString).noteszip")
        defer { try? FileManager.default.removeItem(at: url) }
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.keywords = ["k"]
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        #expect(!document.lastSaveWarnings.isEmpty)
        #expect(try SearchMetadata(contentsOf: url).keywords == ["k"])
        document.close()
    }
}
