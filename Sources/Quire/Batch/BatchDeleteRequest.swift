import QuireCore

/// Deletes objects in their stores without loading them into a context (`NSBatchDeleteRequest`), run by
/// ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)``.
///
/// On SQLite it is one `DELETE` statement on the entity's table (sub-entities' rows by their `Z_ENT`); when
/// delete rules reach other rows (cascade, deny, nullify of an inverse to-one) or many-to-many join rows must
/// go too, the records are read and deleted in one transaction. On XML, binary and in-memory stores it is
/// one pass over the records and one write of the file (Core Data offers batch deletes on SQLite only).
/// Delete rules are followed as in Core Data's batch delete; validation is not run; the external data files
/// of deleted objects are removed (Core Data leaves them behind). Contexts do not see the deletion until
/// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
///
/// ```swift
/// let old = FetchRequest<Run>(entityName: "Run")
/// old.predicate = try QueryPredicate(format: "date < %@", cutoff)
/// let result = try context.execute(BatchDeleteRequest(fetchRequest: old))
/// ```
///
/// Not `Sendable`, as Core Data's `NSPersistentStoreRequest` is not: its result type and stores are set after it is
/// made, so a request stays on the thread or queue that configures and executes it, and the compiler checks that it
/// does (make it inside `perform` when the context has a queue of its own).
public final class BatchDeleteRequest {
    /// The entity whose objects are deleted.
    public let entityName: String
    /// The objects to delete when made from a fetch request: its predicate (nil for all objects).
    public let predicate: QueryPredicate?
    /// Whether objects of sub-entities are deleted too (the fetch request's `includesSubentities`).
    public let includesSubentities: Bool
    /// The fetch request's order, limit and offset (a limit makes the store pick the objects first).
    public let sortDescriptors: [SortKey]
    /// See ``sortDescriptors``; 0 for no limit.
    public let fetchLimit: Int
    /// See ``sortDescriptors``.
    public let fetchOffset: Int
    /// The objects to delete when made from IDs; all of one entity.
    public let objectIDs: [ObjectID]?
    /// What the result reports (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The stores to delete in; nil for every store that holds the entity.
    public var affectedStores: [PersistentStore]?

    /// Deletes the objects a fetch request matches (`init(fetchRequest:)`).
    public init<Result>(fetchRequest: FetchRequest<Result>) {
        entityName = fetchRequest.entityName
        predicate = fetchRequest.predicate
        includesSubentities = fetchRequest.includesSubentities
        sortDescriptors = fetchRequest.sortDescriptors
        fetchLimit = fetchRequest.fetchLimit
        fetchOffset = fetchRequest.fetchOffset
        objectIDs = nil
        affectedStores = fetchRequest.affectedStores
    }

    /// Deletes these objects (`init(objectIDs:)`); they must all be of one entity, as in Core Data (mixing
    /// entities is refused when the request is executed).
    public init(objectIDs: [ObjectID]) {
        entityName = objectIDs.first?.entity.name ?? ""
        predicate = nil
        includesSubentities = true
        sortDescriptors = []
        fetchLimit = 0
        fetchOffset = 0
        self.objectIDs = objectIDs
    }
}
