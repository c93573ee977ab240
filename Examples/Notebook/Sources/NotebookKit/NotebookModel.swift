import Foundation
import Quire

/// The Notebook's model, built in code: one `Notebook` (its title, which search indexers find the document by),
/// `Note`s (title, body, dates, an image kept as external data) and `Tag`s.
///
/// A Mac app with the same model (the same entities, attributes and relationships in Xcode) writes stores the
/// Notebook opens: Core Data's SQLite layout and version hashes are Quire's too (see `MacStore`).
public enum NotebookModel {
    /// The model every document of the app uses. A model is immutable once a coordinator uses it, and
    /// `ManagedObjectModel` is `Sendable`.
    public static let shared: ManagedObjectModel = make()

    /// Entity names.
    public static let notebook = "Notebook", note = "Note", tag = "Tag"

    /// Builds the model.
    public static func make() -> ManagedObjectModel {
        let notebookTitle = AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "")
        let notebook = EntityDescription(name: Self.notebook, properties: [notebookTitle])

        let title = AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "")
        // Indexed for search: the values travel into the document's search metadata (Tracker's nie:subject).
        title.isIndexedBySpotlight = true
        let image = AttributeDescription(name: "image", type: .binaryData)
        // Core Data's "Allows External Storage": large images become files in the document's _EXTERNAL_DATA.
        image.allowsExternalBinaryDataStorage = true
        let note = EntityDescription(name: Self.note, properties: [
            title,
            AttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "modified", type: .date),
            image,
            RelationshipDescription(name: "tags", destination: Self.tag, toMany: true, inverse: "notes"),
        ])
        let tag = EntityDescription(name: Self.tag, properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "notes", destination: Self.note, toMany: true, inverse: "tags"),
        ])
        return ManagedObjectModel(entities: [notebook, note, tag])
    }
}
