import QuireCore

/// Sets attributes of objects in their stores without loading them into a context (`NSBatchUpdateRequest`),
/// run by ``ManagedObjectContext/execute(_:)-(BatchUpdateRequest)``.
///
/// On SQLite it is one `UPDATE … SET Z_OPT = Z_OPT + 1, …` statement on the entity's table; on XML, binary
/// and in-memory stores one pass over the records and one write of the file. Each updated object's version
/// goes up by one, so a context that changed one of them gets a merge conflict at its next save, as after
/// any other save. Validation is not run (as in Core Data). Contexts do not see the change until
/// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` or a refresh.
///
/// ```swift
/// let request = BatchUpdateRequest(entityName: "Run")
/// request.predicate = try QueryPredicate(format: "isRead == NO")
/// request.propertiesToUpdate = [
///     "isRead": true,
///     "readCount": QueryExpression.keyPath("viewCount"),
///     "viewCount": try QueryExpression(format: "viewCount + 1"),
/// ]
/// request.resultType = .count
/// let updated = try context.execute(request).count
/// ```
///
/// Not `Sendable`, as Core Data's `NSPersistentStoreRequest` is not: its properties are set after it is made, and
/// ``propertiesToUpdate`` holds values of any type, so a request stays on the thread or queue that configures and
/// executes it, and the compiler checks that it does (make it inside `perform` when the context has a queue of its
/// own).
public final class BatchUpdateRequest {
    /// The entity whose objects are updated.
    public let entityName: String
    /// The objects to update; nil for all objects of the entity.
    public var predicate: QueryPredicate?
    /// Whether objects of sub-entities are updated too (default `true`).
    public var includesSubentities = true
    /// Attribute name to new value: a Swift value of the attribute's type (`NSNull()` for nil), an
    /// ``AttributeValue``, a ``QueryExpression/constant(_:)``, a ``QueryExpression/keyPath(_:)`` naming another
    /// attribute of the same object and type, whose value is copied, or any other expression of the object's own
    /// persistent attributes (`QueryExpression(format: "viewCount + 1")`, `lowercase:(title)`, `now()`), as
    /// `NSExpression`s in Core Data's `propertiesToUpdate`. An expression is computed for each object, in the
    /// store's SQL where SQLite computes the value the in-memory evaluator would and by that evaluator otherwise,
    /// and converted to the attribute's type as ``ManagedObject/setValue(_:forKey:)-(Any?,String)`` would: a result that does
    /// not fit (a fraction or an out-of-range integer for an integer attribute) fails the whole request with
    /// ``QuireError/Code/invalidValue``, writing nothing. Key paths through relationships, aggregates and
    /// subqueries are refused. Relationships cannot be set (as in Core Data, whose batch updates set
    /// attributes).
    public var propertiesToUpdate: [String: Any] = [:]
    /// What the result reports (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The stores to update in; nil for every store that holds the entity.
    public var affectedStores: [PersistentStore]?

    /// A request for the objects of an entity (`init(entityName:)`).
    public init(entityName: String) {
        self.entityName = entityName
    }
}
