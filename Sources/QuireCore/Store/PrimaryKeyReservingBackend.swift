/// A store backend that can hand out primary keys before the records are saved: what
/// `ManagedObjectContext.obtainPermanentIDs(for:)` asks of a store. A save whose inserted changes already carry
/// a permanent ID of the store writes them under that ID instead of drawing a new key.
package protocol PrimaryKeyReservingBackend: PersistentStoreBackend {
    /// Reserves `count` new primary keys for objects of `entity`, never to be handed out again by this store.
    ///
    /// - Throws: ``QuireError`` when the store is read-only or cannot be written.
    func reservePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64]
}
