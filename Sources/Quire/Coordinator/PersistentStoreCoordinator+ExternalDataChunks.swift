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
            try attachedStore(readingExternalDataOf: objectID, key: key).backend
                .readExternalData(reference, of: objectID, key: key, chunks: body)
        }
    }
}
