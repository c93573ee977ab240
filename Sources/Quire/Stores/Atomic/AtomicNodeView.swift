import Foundation

/// A record of an atomic store's cache as predicates and sort keys see it: attributes by name, to-one
/// relationships as the related record, to-many relationships as collections of records.
struct AtomicNodeView: PredicateEvaluable {
    unowned(unsafe) let store: AtomicStore
    let node: RowSnapshot

    func predicateValue(forKey key: String) throws -> PredicateValue {
        let entity = node.objectID.entity
        guard let property = entity.property(named: key) else {
            throw QuireError(
                .predicateEvaluation, "Entity '\(entity.name)' has no property '\(key)' for the predicate to read.",
                context: .init(entity: entity.name, key: key))
        }
        if let attribute = property as? AttributeDescription {
            return .value(attribute.slot < node.attributes.count ? node.attributes[attribute.slot] : .null)
        }
        guard let relationship = property as? RelationshipDescription, relationship.slot < node.relationships.count else {
            return .null
        }
        switch node.relationships[relationship.slot] {
        case .fault: return .collection([])
        case .toOne(let id): return id.flatMap(view(of:)).map { .object($0) } ?? .null
        case .toMany(let ids): return .collection(ids.compactMap(view(of:)).map { .object($0) })
        case .ordered(let ids): return .collection(ids.compactMap(view(of:)).map { .object($0) })
        }
    }

    private func view(of id: ObjectID) -> AtomicNodeView? {
        guard let key = id.primaryKey, let node = store.nodes[key] else { return nil }
        return AtomicNodeView(store: store, node: node)
    }

    var predicateObjectID: ObjectID? { node.objectID }
}

/// The keys a predicate reads (every component of every key path), to tell whether a store can evaluate it.
enum PredicateKeyScan {
    static func keys(of predicate: QueryPredicate) -> Set<String> {
        var keys = Set<String>()
        visit(predicate, &keys)
        return keys
    }

    private static func visit(_ predicate: QueryPredicate, _ keys: inout Set<String>) {
        switch predicate {
        case .true, .false: break
        case .not(let operand): visit(operand, &keys)
        case .and(let operands), .or(let operands): for operand in operands { visit(operand, &keys) }
        case .comparison(let comparison):
            visit(comparison.left, &keys)
            visit(comparison.right, &keys)
        }
    }

    private static func visit(_ expression: QueryExpression, _ keys: inout Set<String>) {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .variable: break
        case .keyPath(let keyPath): keys.formUnion(QueryExpression.components(of: keyPath))
        case .member(let base, let keyPath):
            visit(base, &keys)
            keys.formUnion(QueryExpression.components(of: keyPath))
        case .aggregate(_, let operand, let keyPath):
            visit(operand, &keys)
            if let keyPath { keys.formUnion(QueryExpression.components(of: keyPath)) }
        case .subquery(let collection, _, let predicate):
            visit(collection, &keys)
            visit(predicate, &keys)
        case .array(let elements): for element in elements { visit(element, &keys) }
        case .cast(let operand, _): visit(operand, &keys)
        }
    }
}
