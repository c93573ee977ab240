import Foundation
import Testing

import Quire
import QuireTestSupport

/// A model whose notes get external records holding most of their values, whose folders get empty records
/// (indexed, nothing stored) and whose tags get none; and what the tests read back from a records directory.
enum ExternalRecordFixture {
    static let fileExtension = "quirerecord"

    static func model() -> ManagedObjectModel {
        func stored(_ attribute: AttributeDescription, indexed: Bool = false) -> AttributeDescription {
            attribute.isStoredInExternalRecord = true
            attribute.isIndexedBySpotlight = indexed
            return attribute
        }
        let photo = AttributeDescription(name: "photo", type: .binaryData)
        photo.allowsExternalBinaryDataStorage = true
        let folder = RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")
        folder.isStoredInExternalRecord = true
        let tags = RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "notes")
        tags.isStoredInExternalRecord = true
        let note = EntityDescription(name: "Note", properties: [
            stored(AttributeDescription(name: "title", type: .string), indexed: true),
            stored(AttributeDescription(name: "body", type: .string)),
            stored(AttributeDescription(name: "rank", type: .integer64, defaultValue: 0)),
            stored(AttributeDescription(name: "created", type: .date)),
            stored(AttributeDescription(name: "score", type: .double)),
            stored(AttributeDescription(name: "done", type: .boolean)),
            stored(AttributeDescription(name: "code", type: .uuid)),
            stored(photo),
            AttributeDescription(name: "secret", type: .string),
            folder, tags,
        ])
        let name = AttributeDescription(name: "name", type: .string)
        name.isIndexedBySpotlight = true
        let folderEntity = EntityDescription(name: "Folder", properties: [
            name,
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, inverse: "folder"),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, inverse: "tags"),
        ])
        return ManagedObjectModel(entities: [note, folderEntity, tag])
    }

    static func options(_ directory: URL, format: StoreOptions.ExternalRecordFormat = .xml) -> StoreOptions {
        var options = StoreOptions()
        options.externalRecordsDirectory = directory
        options.externalRecordExtension = fileExtension
        options.externalRecordsFileFormat = format
        options.externalDataThreshold = 64
        return options
    }

    static func storeURL(_ type: StoreType, in folder: TemporaryFolder) -> URL? {
        switch type {
        case .inMemory: return nil
        case .sqlite: return folder.file("Notes.sqlite")
        default: return folder.file("Notes.\(type.rawValue.lowercased())")
        }
    }

    /// A coordinator with one store of `type` writing records into `directory`, and a context on it.
    static func stack(
        _ type: StoreType, in folder: TemporaryFolder, directory: URL, format: StoreOptions.ExternalRecordFormat = .xml,
        model: ManagedObjectModel = model()
    ) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: storeURL(type, in: folder), options: options(directory, format: format))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// The record file of a saved object.
    static func recordURL(of object: ManagedObject, in directory: URL) throws -> URL {
        let id = object.objectID
        let store = try #require(id.persistentStore)
        let key = try #require(id.primaryKey)
        return directory.appendingPathComponent(store.identifier).appendingPathComponent(id.entity.name)
            .appendingPathComponent("p\(key).\(fileExtension)")
    }

    /// Every file and folder under `directory` (hidden ones included), as paths relative to it, sorted.
    static func contents(of directory: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted()
    }

    /// The hidden names a save or rebuild works in (`.saving-…`, `.<UUID>.rebuild-…`).
    static func workingLeftovers(in directory: URL) -> [String] {
        contents(of: directory).filter { path in
            path.split(separator: "/").contains { $0.hasPrefix(".saving-") || $0.contains(".rebuild-") }
        }
    }

    /// The values a record holds.
    static func values(_ url: URL) throws -> [String: PropertyListValue] {
        try ExternalRecord(at: url).values()
    }
}
