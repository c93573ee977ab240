import QuireCore
import QuireStores

extension PersistentStoreCoordinator {
    /// Permanent IDs of a store for `count` new objects of an entity, reserved in the store (under the
    /// coordinator's lock).
    ///
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` for a store kind that cannot reserve keys (custom
    ///   incremental stores), or the store's error (read-only, I/O).
    func reservePermanentIDs(for entity: EntityDescription, count: Int, in store: PersistentStore) throws -> [ObjectID] {
        try locked {
            guard let backend = store.backend as? any PrimaryKeyReservingBackend else {
                throw QuireError(
                    .persistentStoreOperation,
                    "The store \(store.type) cannot give permanent IDs before a save; save the objects instead.",
                    context: .init(file: store.url, entity: entity.name))
            }
            return try backend.reservePrimaryKeys(for: entity, count: count).map {
                ObjectID(entity: entity, store: store, primaryKey: $0)
            }
        }
    }
}
