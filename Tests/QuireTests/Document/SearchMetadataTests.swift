import Foundation
import Testing

@testable import Quire
import QuireCore
import QuireStores

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

    @Test func archivesCarryMetaXMLAtTheTopForTracker() throws {
        let folder = try TemporaryFolder()
        let kind = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        _ = kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.title = "Quarterly"
        let url = folder.file("Top.\(kind.fileExtension)")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        let top = try #require(try FlatArchive.entryData(of: url, at: DocumentPackageLayout.archiveMetaXML, maximumSize: 1 << 20))
        let nested = try #require(try FlatArchive.entryData(of: url, at: DocumentPackageLayout.metaXML, maximumSize: 1 << 20))
        #expect(top == nested)
        #expect(String(decoding: top, as: UTF8.self).contains("<dc:title>Quarterly</dc:title>"))
    }

    @Test func malformedMetaXMLIsRefused() throws {
        var parsed = SearchMetadata()
        let error = expectQuireError(.fileReadCorruptFile) {
            try parsed.parseMetaXML(Data("<office:document-meta><dc:title>".utf8), source: URL(fileURLWithPath: "/x/meta.xml"))
        }
        #expect(error?.message.contains("/x/meta.xml") ?? false)
    }

    /// Hostile meta files found by outside testing (issue 14): a processing instruction without data crashed
    /// Foundation's XMLParser; Quire's scanner reads past it or refuses the file, never crashes.
    @Test func hostileMetaXMLNeverCrashes() throws {
        var parsed = SearchMetadata()
        try parsed.parseMetaXML(
            Data("<?a?><office:document-meta><?b?><dc:title>T &amp; U</dc:title></office:document-meta>".utf8),
            source: URL(fileURLWithPath: "/x/meta.xml"))
        #expect(parsed.title == "T & U")
        for hostile in [
            "<?a?>", "<?a", "<!DOCTYPE x [<!ENTITY e \"e\">]><office:document-meta/>", "<office:document-meta>&e;</office:document-meta>",
            "<office:document-meta></dc:title>", "<other/>", "<office:document-meta/><office:document-meta/>",
            String(repeating: "<office:document-meta>", count: 10_000),
            "<office:document-meta" + (0..<5000).map { " a\($0)=''" }.joined() + "/>",
        ] {
            let error = expectQuireError(.fileReadCorruptFile) {
                try parsed.parseMetaXML(Data(hostile.utf8), source: URL(fileURLWithPath: "/x/meta.xml"))
            }
            #expect(error?.message.contains("/x/meta.xml") ?? false, "\(hostile.prefix(40))")
        }
    }

    /// Runs `mount` or `umount` with arguments; true when it succeeded.
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Whether this process may mount a ramfs (root, as on the project's machines and CI): ramfs refuses
    /// `user.*` extended attributes, so it stands for a filesystem without them.
    static let canMountRamfs: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("quire-ramfs-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run("/bin/mount", ["-t", "ramfs", "ramfs", probe.path]) else { return false }
        return run("/bin/umount", [probe.path])
    }()

    @Test(.enabled(if: canMountRamfs, "mounting a ramfs (a filesystem without extended attributes) needs root"))
    func saveSucceedsWithAWarningWhereExtendedAttributesAreRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("quire-ramfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try #require(Self.run("/bin/mount", ["-t", "ramfs", "ramfs", base.path]))
        defer {
            _ = Self.run("/bin/umount", [base.path])
            try? FileManager.default.removeItem(at: base)
        }
        #expect(throws: (any Error).self) { try ExtendedAttributes.set("user.quire.probe", to: Data("1".utf8), on: base) }
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
