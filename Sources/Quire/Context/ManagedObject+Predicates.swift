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
        guard let relationship = property as? RelationshipDescription, let context = managedObjectContext else {
            return .value(.null)
        }
        switch loadedStorage(for: relationship) {
        case .fault: return .collection([])
        case .toOne(let id): return id.map { .object(context.object(with: $0)) } ?? .value(.null)
        case .toMany(let ids): return .collection(ids.map { .object(context.object(with: $0)) })
        case .ordered(let ids): return .collection(ids.map { .object(context.object(with: $0)) })
        }
    }

    /// The object's ID, for `SELF == %@` comparisons.
    public var predicateObjectID: ObjectID? { objectID }
}

extension ManagedObject: QueryValueConvertible {
    /// A managed object in a format argument stands for its object ID.
    public var queryValue: QueryValue { .objectID(objectID) }
}
