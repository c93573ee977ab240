import QuireCore
/// A record named the way custom stores see it: its entity's name and its reference number.
///
/// Reference numbers are positive and unique within an entity hierarchy (an entity and its sub-entities);
/// they become the primary keys of ``ObjectID``s, so URIs stay the same from one opening to the next.
public struct StoreReference: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name of the record's entity (its concrete entity, not a superentity).
    public var entityName: String
    /// The record's number, positive.
    public var reference: Int64

    /// Creates a reference.
    public init(entityName: String, reference: Int64) {
        self.entityName = entityName
        self.reference = reference
    }

    /// `Entity/p42`.
    public var description: String { "\(entityName)/p\(reference)" }
}

extension ObjectID {
    /// The ID's entity and key as a custom store sees them.
    var storeReference: StoreReference { StoreReference(entityName: entity.name, reference: primaryKey ?? 0) }
}
