import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// The part of a fetch's predicate the stores evaluate and the part the context evaluates in memory.
    ///
    /// With pending changes counted, a predicate that reads related objects (`department.name`,
    /// `ANY employees.salary > 10`, `employees.@count`) is evaluated wholly in memory while the context has
    /// unsaved changes: the store only knows the saved values of the related objects.
    func predicateSplit(
        _ fetch: StoreFetch, stores: [PersistentStore]?, includePending: Bool
    ) -> (store: QueryPredicate?, memory: QueryPredicate?) {
        guard let predicate = fetch.predicate else { return (nil, nil) }
        if pendingChangesReachRelatedObjects(fetch, includePending) { return (nil, predicate) }
        // A parent evaluates the whole predicate, in memory where it must.
        if parent != nil { return (predicate, nil) }
        return coordinatorOrFail().split(predicate, for: fetch, in: stores)
    }

    /// Whether unsaved changes could change the answer of a fetch's predicate through related objects.
    func pendingChangesReachRelatedObjects(_ fetch: StoreFetch, _ includePending: Bool) -> Bool {
        guard includePending, hasChanges, let predicate = fetch.predicate else { return false }
        return PredicateRelationshipScan.readsRelatedObjects(predicate, from: fetch.entity)
    }
}

/// Finds whether a predicate reads values of objects other than the one evaluated.
enum PredicateRelationshipScan {
    static func readsRelatedObjects(_ predicate: QueryPredicate, from entity: EntityDescription) -> Bool {
        switch predicate {
        case .true, .false: return false
        case .not(let operand): return readsRelatedObjects(operand, from: entity)
        case .and(let operands), .or(let operands): return operands.contains { readsRelatedObjects($0, from: entity) }
        case .comparison(let comparison):
            // A key path on the left was split when the comparison was made: its keys are read, not split again
            // (a fetch asks this of its predicate while the context has changes).
            if let split = comparison.leftKeyPath {
                return readsRelatedObjects(keys: split.keys, from: entity) || readsRelatedObjects(comparison.right, from: entity)
            }
            return readsRelatedObjects(comparison.left, from: entity) || readsRelatedObjects(comparison.right, from: entity)
        }
    }

    static func readsRelatedObjects(_ expression: QueryExpression, from entity: EntityDescription) -> Bool {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .variable: return false
        case .keyPath(let keyPath): return readsRelatedObjects(keys: QueryExpression.components(of: keyPath), from: entity)
        case .member, .aggregate, .subquery: return true
        case .array(let elements): return elements.contains { readsRelatedObjects($0, from: entity) }
        case .cast(let operand, _): return readsRelatedObjects(operand, from: entity)
        case .function(_, let arguments): return arguments.contains { readsRelatedObjects($0, from: entity) }
        }
    }

    /// Whether a key path, split into its keys, reads other objects: a path of more than one key, or a to-many.
    static func readsRelatedObjects(keys: [String], from entity: EntityDescription) -> Bool {
        guard keys.count == 1 else { return true }
        return (entity.propertiesByName[keys[0]] as? RelationshipDescription)?.isToMany == true
    }
}
