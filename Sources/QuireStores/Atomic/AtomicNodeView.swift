import QuireCore
import Foundation

/// A store that can hand out any of its records by ID, for evaluating predicates over them.
protocol StoreNodeSource: AnyObject {
    func node(for id: ObjectID) -> RowSnapshot?
}

/// Evaluates a fetch over rows a store read: predicate, sort keys, then offset and limit.
enum StoreNodeSourceFetch {
    static func evaluate(_ rows: [RowSnapshot], _ fetch: StoreFetch, source: any StoreNodeSource, window: Bool = true) throws -> [RowSnapshot] {
        var matches = rows
        if let predicate = fetch.predicate, predicate != .true {
            matches = try matches.filter { try predicate.evaluate(with: AtomicNodeView(source: source, node: $0)) }
        }
        if !fetch.sortKeys.isEmpty {
            matches = try matches.map { AtomicNodeView(source: source, node: $0) }.sorted(by: fetch.sortKeys).map(\.node)
        } else {
            // Unsorted fetches come in key order, so they are the same from run to run.
            matches.sort { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        }
        guard window else { return matches }
        let start = min(fetch.offset, matches.count)
        let end = fetch.limit > 0 ? min(matches.count, start + fetch.limit) : matches.count
        return start == 0 && end == matches.count ? matches : Array(matches[start..<end])
    }
}

/// A record of a store's records as predicates and sort keys see it: attributes by name, to-one
/// relationships as the related record, to-many relationships as collections of records.
struct AtomicNodeView: PredicateEvaluable {
    package unowned(unsafe) let source: any StoreNodeSource
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
        if let composite = property as? CompositeAttributeDescription {
            let attributes = node.attributes
            return .object(CompositePredicateValue(composite: composite) { $0.slot < attributes.count ? attributes[$0.slot] : .null })
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
        source.node(for: id).map { AtomicNodeView(source: source, node: $0) }
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
        case .function(_, let arguments): for argument in arguments { visit(argument, &keys) }
        }
    }
}
