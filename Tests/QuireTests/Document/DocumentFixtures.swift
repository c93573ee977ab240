import Foundation
import Testing

import Quire

/// Document types for every format and every store type this build has, and a notes model.
enum DocumentFixtures {
    /// The store types that can be added here (SQLite today; XML, binary once their stores exist).
    static let storeTypes: [StoreType] = [.sqlite, .xml, .binary].filter { type in
        guard let folder = try? TemporaryFolder() else { return false }
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel())
            _ = try coordinator.addPersistentStore(type: type, at: folder.file("probe"))
            return true
        } catch {
            return false
        }
    }

    /// Every (format, store type) pair.
    static let kinds: [Kind] = DocumentType.Format.allCases.flatMap { format in storeTypes.map { Kind(format: format, storeType: $0) } }

    struct Kind: Sendable, CustomStringConvertible {
        var format: DocumentType.Format
        var storeType: StoreType
        var typeName: String { "Notes-\(format.rawValue)-\(storeType.rawValue)" }
        var fileExtension: String { format == .package ? "notes" : format == .zipArchive ? "noteszip" : "notestar" }
        var description: String { typeName }

        /// Registers the type (idempotent) and returns its name.
        @discardableResult
        func register(options: StoreOptions = StoreOptions()) -> String {
            DocumentTypeRegistry.shared.register(
                DocumentType(
                    name: typeName, mimeType: DocumentFixtures.mimeType, extensions: [fileExtension], format: format,
                    storeType: storeType, storeOptions: options))
            return typeName
        }
    }

    static let mimeType = "application/x-quire-notes"

    /// Notes (title indexed for search, body, transient draft) in folders, with tags (many-to-many).
    static func model() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        let draft = AttributeDescription(name: "draft", type: .string)
        draft.isTransient = true
        let note = EntityDescription(name: "Note", properties: [
            title,
            AttributeDescription(name: "body", type: .string),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
            draft,
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "notes"),
        ])
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, inverse: "folder", deleteRule: .cascade),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, inverse: "tags"),
        ])
        return ManagedObjectModel(entities: [note, folder, tag])
    }

    /// Inserts a folder "Inbox" with notes titled as given.
    static func fill(_ document: PersistentDocument, titles: [String]) {
        let context = document.managedObjectContext
        context.performAndWait {
            let entities = document.managedObjectModel.entitiesByName
            guard let folderEntity = entities["Folder"], let noteEntity = entities["Note"] else { return }
            let folder = ManagedObject(entity: folderEntity, insertInto: context)
            folder.setValue("Inbox", forKey: "name")
            for title in titles {
                let note = ManagedObject(entity: noteEntity, insertInto: context)
                note.setValue(title, forKey: "title")
                note.setValue(folder, forKey: "folder")
            }
        }
    }

    /// The sorted titles of the document's notes.
    static func titles(_ document: PersistentDocument) throws -> [String] {
        let context = document.managedObjectContext
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }

    /// The titles in the document at a URL, opened afresh.
    static func titles(at url: URL, kind: Kind) throws -> [String] {
        let document = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: model())
        defer { document.close() }
        return try titles(document)
    }
}

/// Expects `body` to throw a ``QuireError`` with `code`, and returns it.
@discardableResult
func expectQuireError<T>(
    _ code: QuireError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> QuireError? {
    do {
        _ = try body()
        Issue.record("Expected \(code), nothing was thrown.", sourceLocation: sourceLocation)
    } catch let error as QuireError {
        if error.code != code { Issue.record("Expected \(code), got \(error.code): \(error)", sourceLocation: sourceLocation) }
        return error
    } catch {
        Issue.record("Expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
