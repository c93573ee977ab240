import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObject: PredicateEvaluable {
    /// The value of a property for predicate evaluation: attribute values as stored, to-one relationships as
    /// the related object, to-many relationships as a collection of objects. Fires faults as needed.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key the entity does not have.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        // The precomputed property index first (a scan of machine words, the key hint tried first), as
        // value(forKey:) finds keys; the dictionary for what it does not cover.
        let hint = Int(nextKeyHint)
        if let keyed = withEntity({ $0.keyedPropertyIndex(forKey: key, hint: hint) }) {
            nextKeyHint = UInt8(truncatingIfNeeded: keyed.index &+ 1)
            let entity = self.entity
            if keyed.index < entity.frozenAttributeCount {
                let attribute = entity.frozenAttribute(at: keyed.index)
                return .value(try resolvedAttributeValue(at: attribute.slot, key: attribute.name))
            }
            if let relationship = entity.frozenProperty(at: keyed.index) as? RelationshipDescription {
                return relationshipPredicateValue(relationship)
            }
        }
        guard let property = entity.propertiesByName[key] else {
            throw QuireError(
                .predicateEvaluation, "Entity '\(entity.name)' has no property '\(key)' for the predicate to read.",
                context: .init(entity: entity.name, key: key))
        }
        if let attribute = property as? AttributeDescription {
            return .value(try resolvedAttributeValue(at: attribute.slot, key: attribute.name))
        }
        if let composite = property as? CompositeAttributeDescription {
            return .object(CompositePredicateValue(composite: composite) { try self.resolvedAttributeValue(at: $0.slot, key: $0.name) })
        }
        guard let relationship = property as? RelationshipDescription else { return .value(.null) }
        return relationshipPredicateValue(relationship)
    }

    /// A relationship's value for predicates: the related object, or the members as a collection.
    private func relationshipPredicateValue(_ relationship: RelationshipDescription) -> PredicateValue {
        guard let context = managedObjectContext else { return .value(.null) }
        switch loadedStorage(for: relationship) {
        case .fault: return .collection([])
        case .toOne(let id): return id.map { .object(context.object(with: $0)) } ?? .value(.null)
        case .toMany(let ids): return .collection(ids.map { .object(context.object(with: $0)) })
        case .ordered(let ids): return .collection(ids.map { .object(context.object(with: $0)) })
        }
    }

    /// The object's ID, for `SELF == %@` comparisons.
    public var predicateObjectID: ObjectID? { objectID }

    /// `true`: a managed object is its own `SELF`, so the evaluator reads its keys without asking again at each step.
    public var predicateSelfIsObject: Bool { true }
}

extension ManagedObject: QueryValueConvertible {
    /// A managed object in a format argument stands for its object ID.
    public var queryValue: QueryValue { .objectID(objectID) }
}
