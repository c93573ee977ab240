import QuireCore
import QuireStores
import Foundation

extension ManagedObject {
    /// Reads the bytes of a binary or transformable attribute a chunk at a time, in order, without holding them
    /// all: a value kept outside the record (a file beside the store, or a PostgreSQL store's chunks) is read
    /// one chunk (at most 256 KiB) per call of `body`; a value in the record comes as one chunk.
    ///
    /// ```swift
    /// let output = try FileHandle(forWritingTo: exportURL)
    /// try page.readData(forKey: "scan") { chunk in try output.write(contentsOf: chunk) }
    /// ```
    ///
    /// `body` runs while the object's coordinator is busy with the read; it may use the same thread's
    /// contexts, but other threads' requests to the coordinator wait for it.
    ///
    /// - Returns: false when the attribute is nil (or not a binary attribute), true once every chunk was handed over.
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the value is missing, ``QuireError/Code/fileReadCorruptFile``
    ///   when it is truncated (both naming the object and the key), and whatever `body` throws.
    @discardableResult
    public func readData(forKey key: String, chunks body: (Data) throws -> Void) throws -> Bool {
        guard let attribute = property(forKey: key) as? AttributeDescription else { return false }
        switch attributeValue(at: attribute.slot) {
        case .data(let bytes):
            try body(bytes)
            return true
        case .externalData(let reference):
            guard let coordinator = managedObjectContext?.persistentStoreCoordinator else {
                throw QuireError(
                    .fileReadNoSuchFile, "The external data of '\(key)' of \(objectID) cannot be read: the object has no context.",
                    context: .init(entity: entity.name, key: key, object: objectID.uriRepresentation()))
            }
            try coordinator.readExternalData(reference, of: objectID, key: attribute.name, chunks: body)
            return true
        default:
            return false
        }
    }
}
