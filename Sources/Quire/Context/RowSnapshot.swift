/// The persistent values of one record as a store last read or wrote them: what faults are filled from,
/// what the coordinator's row cache holds, and what optimistic locking compares versions against.
struct RowSnapshot: Sendable {
    /// The record's ID.
    var objectID: ObjectID
    /// The record's version (`Z_OPT`), incremented by every save that changes it.
    var version: Int64
    /// Attribute values by slot (transient attributes are `.null`).
    var attributes: [AttributeValue]
    /// Relationship values by slot: to-one IDs; to-many relationships are `.fault` until loaded.
    var relationships: [RelationshipStorage]
}
