import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Hands the bytes behind an external data reference of an object to `body` a chunk at a time, from the store
    /// the object belongs to (its folder, or a PostgreSQL store's chunks).
    ///
    /// - Throws: the errors of ``readExternalData(_:of:key:)``, and whatever `body` throws.
    func readExternalData(
        _ reference: ExternalDataReference, of objectID: ObjectID, key: String, chunks body: (Data) throws -> Void
    ) throws {
        try locked {
            guard let store = objectID.persistentStore, persistentStores.contains(where: { $0 === store }) else {
                throw QuireError(
                    .fileReadNoSuchFile,
                    "The external data of '\(key)' of \(objectID) cannot be read: its store is no longer attached.",
                    context: .init(entity: objectID.entity.name, key: key, object: objectID.uriRepresentation()))
            }
            try store.backend.readExternalData(reference, of: objectID, key: key, chunks: body)
        }
    }
}
