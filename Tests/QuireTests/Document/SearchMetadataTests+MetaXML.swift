// Round-trips every field through the meta.xml writer and parser, which have no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

extension SearchMetadataTests {
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
}
