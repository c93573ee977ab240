import QuireCore
import QuireStores
import Foundation

/// A source object as a migration reads it: its ID, its attribute values and the IDs its to-one relationships
/// hold. Expressions read it as `SELF` or `$source`.
public struct MigrationSourceObject: PredicateEvaluable, Sendable {
    /// The object's ID in the source store.
    public let objectID: ObjectID
    /// The source entity.
    public var entity: EntityDescription { objectID.entity }
    /// The persistent attribute values, by name.
    public let values: [String: AttributeValue]
    /// The IDs held by to-one relationships, by name (absent when nil).
    public let toOneObjectIDs: [String: ObjectID]

    /// Creates a source object (for testing policies).
    ///
    /// - Parameters:
    ///   - objectID: The object's ID.
    ///   - values: The attribute values by name.
    ///   - toOneObjectIDs: The IDs its to-one relationships hold.
    public init(objectID: ObjectID, values: [String: AttributeValue], toOneObjectIDs: [String: ObjectID] = [:]) {
        self.objectID = objectID
        self.values = values
        self.toOneObjectIDs = toOneObjectIDs
    }

    /// The value of an attribute, nil for a key the object does not have as attribute.
    public subscript(key: String) -> AttributeValue? { values[key] }

    /// The value of an attribute, or the object a to-one relationship holds (known by ID only).
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key that is neither.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        if let value = values[key] { return .value(value) }
        if let id = toOneObjectIDs[key] { return .object(ObjectIDReference(id: id)) }
        if let relationship = entity.relationshipsByName[key], !relationship.isToMany { return .null }
        throw QuireError(
            .predicateEvaluation,
            "Migration expressions read attributes and to-one relationships; '\(entity.name).\(key)' is neither.",
            context: .init(entity: entity.name, key: key))
    }

    /// The object's ID.
    public var predicateObjectID: ObjectID? { objectID }
}
