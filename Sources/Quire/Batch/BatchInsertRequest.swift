import QuireCore

/// Inserts objects into a store without making managed objects (`NSBatchInsertRequest`), run by
/// ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``: one transaction (SQLite) or one write of the
/// file (atomic stores).
///
/// Each object is a dictionary of attribute names to Swift values of the attributes' types; attributes left
/// out take their default values. Relationships cannot be set (as in Core Data). Validation is not run.
///
/// ```swift
/// let rows = (0..<1000).map { ["name": "run \($0)", "distance": Double($0)] as [String: Any] }
/// try context.execute(BatchInsertRequest(entityName: "Run", objects: rows))
/// ```
public final class BatchInsertRequest: @unchecked Sendable {
    /// The entity of the inserted objects.
    public let entityName: String
    /// The objects, as attribute dictionaries (`objectsToInsert`), when given as an array.
    public var objectsToInsert: [[String: Any]]?
    /// Fills one object's dictionary per call and returns true when there are no more
    /// (`dictionaryHandler`); the dictionary passed in is empty each time, and a call that returns true adds
    /// nothing.
    public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
    /// What the result reports (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The store to insert into (its first that holds the entity); nil for the coordinator's first.
    public var affectedStores: [PersistentStore]?

    /// Inserts these objects (`init(entityName:objects:)`).
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// Inserts the objects a handler produces (`init(entityName:dictionaryHandler:)`).
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }
}
