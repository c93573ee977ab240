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
}
