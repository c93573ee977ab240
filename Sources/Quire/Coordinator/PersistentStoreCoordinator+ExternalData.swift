import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Reads the bytes behind an external data reference of an object, from the folder of the store the
    /// object belongs to.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` or ``QuireError/Code/fileReadCorruptFile`` naming the
    ///   object and the key when the file is missing or truncated, or when the store was removed.
    func readExternalData(_ reference: ExternalDataReference, of objectID: ObjectID, key: String) throws -> Data {
        try locked {
            try attachedStore(readingExternalDataOf: objectID, key: key).backend.readExternalData(reference, of: objectID, key: key)
        }
    }

    /// The attached store an object's external data is read from (call under the lock).
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the object's store is no longer attached.
    func attachedStore(readingExternalDataOf objectID: ObjectID, key: String) throws -> PersistentStore {
        guard let store = objectID.persistentStore, persistentStores.contains(where: { $0 === store }) else {
            throw QuireError(
                .fileReadNoSuchFile,
                "The external data of '\(key)' of \(objectID) cannot be read: its store is no longer attached.",
                context: .init(entity: objectID.entity.name, key: key, object: objectID.uriRepresentation()))
        }
        return store
    }
}
