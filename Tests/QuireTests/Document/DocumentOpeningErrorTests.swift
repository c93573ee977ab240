import Foundation
import Testing

import Quire

/// Errors from opening a document name the document the user opened, not its private working copy, and advise
/// in a document's terms (issue 18).
@Suite struct DocumentOpeningErrorTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// The notes model with one more attribute: a store written with the notes model is incompatible with it.
    static func newerModel() -> ManagedObjectModel {
        let model = DocumentFixtures.model()
        let entities = model.entities.map { entity -> EntityDescription in
            guard entity.name == "Note" else { return entity }
            return EntityDescription(
                name: "Note", properties: entity.properties + [AttributeDescription(name: "colour", type: .string)])
        }
        return ManagedObjectModel(entities: entities)
    }

    @Test(arguments: [DocumentType.Format.package, .zipArchive])
    func wrongModelNamesTheDocumentAndItsTypesStoreOptions(format: DocumentType.Format) throws {
        let kind = DocumentFixtures.Kind(format: format, storeType: .sqlite)
        let typeName = kind.register()
        let url = folder.file("Notes.\(kind.fileExtension)")
        let document = try PersistentDocument(type: typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["One"])
        try document.save(to: url, ofType: typeName, for: .saveAs)
        document.close()

        let error = try #require(throws: QuireError.self) {
            try PersistentDocument(contentsOf: url, ofType: typeName, model: Self.newerModel())
        }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.hasPrefix("The document '\(url.path)' was written with an incompatible model"), "\(error.message)")
        #expect(!error.message.contains("StoreContent/persistentStore"), "\(error.message)")
        #expect(error.message.contains("storeOptions of its document type '\(typeName)' (DocumentType.storeOptions)"), "\(error.message)")
        #expect(!error.message.contains("add it with the options"), "\(error.message)")
        #expect(error.context.file == url)
    }

    @Test func typeMismatchSaysTheFormatInWords() throws {
        let zip = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        let package = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        let zipName = zip.register()
        let packageName = package.register()
        let url = folder.file("Notes.\(zip.fileExtension)")
        let document = try PersistentDocument(type: zipName, model: DocumentFixtures.model())
        try document.save(to: url, ofType: zipName, for: .saveAs)
        document.close()
        let error = try #require(throws: QuireError.self) {
            try PersistentDocument(contentsOf: url, ofType: packageName, model: DocumentFixtures.model())
        }
        #expect(error.code == .documentTypeMismatch)
        #expect(error.message.contains("is a zip archive of MIME type"), "\(error.message)")
        #expect(error.message.contains("not a package of type"), "\(error.message)")
        #expect(!error.message.contains("zipArchive"), "\(error.message)")
    }
}
