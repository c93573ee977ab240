import Foundation
import Testing

import Quire

extension SearchMetadataTests {
    /// Indexed text made of characters XML escapes (`"` becomes six bytes) once pushed `meta.xml` past the 4 MiB
    /// its reader accepts, so a document's own search metadata could not be read back. The budgets now count
    /// escaped bytes and the writer never writes more than the reader takes.
    @Test func indexedTextOfEscapedCharactersStaysReadable() throws {
        let folder = try TemporaryFolder()
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        _ = kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.title = "Quotes"
        let quotes = String(repeating: "\"", count: 60_000)
        DocumentFixtures.fill(document, titles: (0..<40).map { "\($0)" + quotes })
        let url = folder.file("Quotes.\(kind.fileExtension)")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        let meta = try Data(contentsOf: url.appendingPathComponent(DocumentPackageLayout.metaXML))
        #expect(meta.count <= 4 << 20)
        let read = try SearchMetadata(contentsOf: url)
        #expect(read.title == "Quotes")
        #expect(read.indexedValues["Note.title"]?.first?.hasSuffix(quotes) == true)
    }
}

extension SearchMetadataTests {
    /// The indexed values are read a page of objects at a time; every distinct value of a store larger than a
    /// page still arrives, once, in the store's order.
    @Test func indexedValuesSpanSeveralPages() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        _ = kind.register()
        let folder = try TemporaryFolder()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        let titles = (0..<2_500).map { "Note \($0)" } + ["Note 7", "Note 2499"]
        DocumentFixtures.fill(document, titles: titles)
        try document.save(to: folder.file("Pages.\(kind.fileExtension)"), ofType: kind.typeName, for: .saveAs)
        let values = try document.currentSearchMetadata().indexedValues["Note.title"] ?? []
        document.close()
        #expect(values.count == 2_500)
        #expect(Set(values) == Set(titles))
    }
}
