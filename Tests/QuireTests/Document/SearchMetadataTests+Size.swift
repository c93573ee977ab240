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
