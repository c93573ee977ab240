import QuireSupport
/// The persistent values of one record as a store last read or wrote them: what faults are filled from,
/// what the coordinator's row cache holds, and what optimistic locking compares versions against.
package struct RowSnapshot: Sendable {
    /// The record's ID.
    package var objectID: ObjectID
    /// The record's version (`Z_OPT`), incremented by every save that changes it.
    package var version: Int64
    /// Attribute values by slot (transient attributes are `.null`).
    package var attributes: [AttributeValue]
    /// Relationship values by slot: to-one IDs; to-many relationships are `.fault` until loaded.
    package var relationships: [RelationshipStorage]

    /// Creates one with every stored value.
    package init(objectID: ObjectID, version: Int64, attributes: [AttributeValue], relationships: [RelationshipStorage]) {
        self.objectID = objectID
        self.version = version
        self.attributes = attributes
        self.relationships = relationships
    }
}
