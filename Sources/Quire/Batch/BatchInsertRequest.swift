import QuireCore

/// Inserts objects into a store without registering managed objects in a context (`NSBatchInsertRequest`), run
/// by ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``: one transaction (SQLite, PostgreSQL) or one
/// write of the file (atomic stores).
///
/// The objects come as dictionaries of attribute names to Swift values of the attributes' types
/// (``objectsToInsert``, or one at a time from a ``dictionaryHandler``), or are filled in by a
/// ``managedObjectHandler`` on an object of the entity's class, in no context. Attributes left out take their
/// default values. Relationships cannot be set (as in Core Data). Validation is not run.
///
/// ```swift
/// let rows = (0..<1000).map { ["name": "run \($0)", "distance": Double($0)] as [String: Any] }
/// try context.execute(BatchInsertRequest(entityName: "Run", objects: rows))
///
/// var next = 0
/// let request = BatchInsertRequest(entity: runEntity) { (object: ManagedObject) -> Bool in
///     guard next < feed.count else { return true }
///     object.setValue(feed[next].name, forKey: "name")
///     next += 1
///     return false
/// }
/// ```
///
/// **Uniqueness constraints.** When the entity has uniqueness constraints, a row whose constraint values a
/// stored record (or an earlier row of the request) already has is resolved by the executing context's
/// ``ManagedObjectContext/mergePolicy``, as Core Data's batch insert does: under
/// ``MergePolicy/mergeByPropertyObjectTrump`` and ``MergePolicy/overwrite`` the stored record is updated with every
/// value of the row, an upsert (nil values and the defaults of attributes the row left out included, as on the
/// Mac); under ``MergePolicy/mergeByPropertyStoreTrump`` and ``MergePolicy/rollback`` the stored record is kept as
/// it is and the row dropped; under ``MergePolicy/error`` (the default) the request throws
/// ``QuireError/Code/managedObjectConstraintMerge``, writing nothing. A subclass of ``MergePolicy`` acts here as the
/// policy its ``MergePolicy/mergeType`` names: the rows never become objects, so its `resolve` methods do not run. See
/// the Batch requests section of
/// <doc:PortingFromCoreData>.
///
/// Not `Sendable`, as Core Data's `NSPersistentStoreRequest` is not: its properties are set after it is made, and it
/// holds values of any type and closures that are called on the executing context's queue, so a request stays on the
/// thread or queue that configures and executes it, and the compiler checks that it does (make it inside `perform` when
/// the context has a queue of its own).
public final class BatchInsertRequest {
    /// The entity of the inserted objects.
    public let entityName: String
    /// The objects, as attribute dictionaries (`objectsToInsert`), when given as an array.
    public var objectsToInsert: [[String: Any]]?
    /// Fills one object's dictionary per call and returns true when there are no more
    /// (`dictionaryHandler`); the dictionary passed in is empty each time, and a call that returns true adds
    /// nothing.
    public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
    /// Fills one object per call and returns true when there are no more (`managedObjectHandler`). Each call
    /// gets a new object of the entity's ``EntityDescription/managedObjectClass``, in no context, with its
    /// attributes at their defaults; its attribute values are inserted (relationships set on it are ignored),
    /// and a call that returns true adds nothing. The object is not kept: it never becomes a registered object.
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    /// What the result reports (default ``BatchResultType/statusOnly``): ``BatchResultType/objectIDs`` gives the
    /// IDs of the records inserted or updated, each once.
    public var resultType: BatchResultType = .statusOnly
    /// The store to insert into (its first that holds the entity); nil for the coordinator's first.
    public var affectedStores: [PersistentStore]?

    /// Inserts these objects (`init(entityName:objects:)`).
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// Inserts these objects of an entity (`init(entity:objects:)`).
    public convenience init(entity: EntityDescription, objects: [[String: Any]]) {
        self.init(entityName: entity.name, objects: objects)
    }

    /// Inserts the objects a handler produces as dictionaries (`init(entityName:dictionaryHandler:)`).
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }

    /// Inserts the objects of an entity a handler produces as dictionaries (`init(entity:dictionaryHandler:)`).
    public convenience init(entity: EntityDescription, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.init(entityName: entity.name, dictionaryHandler: dictionaryHandler)
    }

    /// Inserts the objects a handler fills in (`init(entityName:managedObjectHandler:)`); see
    /// ``managedObjectHandler``.
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }

    /// Inserts the objects of an entity a handler fills in (`init(entity:managedObjectHandler:)`); see
    /// ``managedObjectHandler``.
    ///
    /// ```swift
    /// var index = 0
    /// let request = BatchInsertRequest(entity: quakeEntity) { (object: ManagedObject) -> Bool in
    ///     guard index < quakes.count else { return true }
    ///     object.setValue(quakes[index].code, forKey: "code")
    ///     object.setValue(quakes[index].magnitude, forKey: "magnitude")
    ///     index += 1
    ///     return false
    /// }
    /// ```
    public convenience init(entity: EntityDescription, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.init(entityName: entity.name, managedObjectHandler: managedObjectHandler)
    }
}
