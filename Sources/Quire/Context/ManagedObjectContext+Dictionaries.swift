import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// The dictionaries of a ``FetchResultType/dictionary`` fetch: computed by the store in one statement when
    /// it can, otherwise here from the matching objects.
    ///
    /// As in Core Data, the result reflects the stores: unsaved inserts and deletes do not count.
    func fetchDictionaries<Result>(
        _ request: FetchRequest<Result>, fetch: StoreFetch, stores: [PersistentStore]?
    ) throws -> [[String: Any]] {
        let spec = try DictionaryFetch(request: request, fetch: fetch)
        // Sort keys with Swift comparators sort in memory.
        if !spec.fetch.sortKeys.contains(where: \.sortsInMemory),
            let rows = try coordinatorOrFail().fetchDictionaries(spec, stores: stores)
        {
            return spec.publicDictionaries(rows)
        }
        return spec.publicDictionaries(try dictionaryRowsInMemory(spec, stores: stores))
    }

    func dictionaryRowsInMemory(_ spec: DictionaryFetch, stores: [PersistentStore]?) throws -> [[DictionaryValue]] {
        let coordinator = coordinatorOrFail()
        var all = spec.fetch
        all.limit = 0
        all.offset = 0
        all.sortKeys = []
        var memoryPredicate: QueryPredicate?
        if let predicate = all.predicate {
            (all.predicate, memoryPredicate) = coordinator.split(predicate, for: all, in: stores)
        }
        var objects = try coordinator.fetchRows(all, stores: stores).map { object(for: $0, asFault: true) }
        if let memoryPredicate { objects = try objects.filter { try InMemoryMatcher.matches($0, memoryPredicate) } }

        var rows: [[DictionaryValue]]
        let sortsByExpression = spec.fetch.sortKeys.contains { key in
            spec.columns.contains { $0.name == key.keyPath && $0.expression != nil }
        }
        if !spec.isAggregate && !sortsByExpression {
            if !spec.fetch.sortKeys.isEmpty { objects = try ObjectSorter.sort(objects, by: spec.fetch.sortKeys) }
            rows = try objects.map { object in try spec.columns.map { try Self.columnValue($0, of: object) } }
            if spec.distinct { rows = Self.unique(rows) }
        } else if !spec.isAggregate {
            // Sorted by the values of fetched properties, expressions among them.
            rows = try objects.map { object in try spec.columns.map { try Self.columnValue($0, of: object) } }
            if spec.distinct { rows = Self.unique(rows) }
            rows = try Self.sortRows(rows, spec)
        } else {
            var keys: [[DictionaryValue]] = []
            var groups: [[DictionaryValue]: [ManagedObject]] = [:]
            if spec.groupBy.isEmpty {
                keys = [[]]
                groups[[]] = objects
            } else {
                for object in objects {
                    let key = try spec.groupBy.map { try Self.columnValue($0, of: object) }
                    if groups[key] == nil { keys.append(key) }
                    groups[key, default: []].append(object)
                }
            }
            rows = try keys.map { key in
                let members = groups[key] ?? []
                return try spec.columns.map { column -> DictionaryValue in
                    if let function = column.function {
                        let values: [DictionaryValue]? =
                            column.expression != nil
                            ? try members.map { try Self.columnValue(column, of: $0) }
                            : column.keyPath.map { keyPath in members.map { Self.dictionaryValue(keyPath, of: $0) } }
                        return DictionaryFetch.aggregateValue(function, values, count: members.count)
                    }
                    let index = spec.groupBy.firstIndex { group in
                        column.expression != nil ? group.name == column.name : group.keyPath == column.keyPath
                    }
                    guard let index else { return .null }
                    return key[index]
                }
            }
            if let having = spec.having {
                rows = try rows.filter { try having.evaluate(with: PredicateDictionary(spec.publicDictionary($0))) }
            }
            if spec.distinct { rows = Self.unique(rows) }
            rows = try Self.sortRows(rows, spec)
        }
        let start = min(spec.fetch.offset, rows.count)
        let end = spec.fetch.limit > 0 ? min(rows.count, start + spec.fetch.limit) : rows.count
        return Array(rows[start..<end])
    }

    /// Rows sorted by the fetch's sort keys, each naming a fetched property.
    private static func sortRows(_ rows: [[DictionaryValue]], _ spec: DictionaryFetch) throws -> [[DictionaryValue]] {
        guard !spec.fetch.sortKeys.isEmpty else { return rows }
        let indexes = try spec.fetch.sortKeys.map { key -> Int in
            guard let index = spec.columns.firstIndex(where: { $0.name == key.keyPath }) else {
                throw QuireError(
                    .invalidFetchRequest,
                    "Grouped dictionary results, and results sorted by an expression, can only be sorted by fetched "
                        + "properties, not '\(key.keyPath)'.",
                    context: .init(entity: spec.fetch.entity.name, key: key.keyPath))
            }
            return index
        }
        return rows.enumerated().sorted { lhs, rhs in
            for (key, index) in zip(spec.fetch.sortKeys, indexes) {
                let order = key.compareValues(lhs.element[index].sortValue, rhs.element[index].sortValue)
                if order == .orderedSame { continue }
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    private static func unique(_ rows: [[DictionaryValue]]) -> [[DictionaryValue]] {
        var seen = Set<[DictionaryValue]>()
        return rows.filter { seen.insert($0).inserted }
    }

    /// The value of a column for one object: its expression's value (the argument's, for a function), or
    /// its key path's.
    static func columnValue(_ column: DictionaryFetch.Column, of object: ManagedObject) throws -> DictionaryValue {
        guard let expression = column.expression else { return dictionaryValue(column.keyPath, of: object) }
        switch try expression.value(with: object) {
        case .value(let value): return .value(value)
        case .object(let related): return related.predicateObjectID.map { .object($0) } ?? .null
        case .collection(let elements):
            return .values(elements.compactMap { if case .value(let value) = $0 { return value } else { return nil } })
        }
    }

    /// The value of a key path through to-one relationships: an attribute value or a related object's ID.
    static func dictionaryValue(_ keyPath: String?, of object: ManagedObject) -> DictionaryValue {
        guard let keyPath else { return .object(object.objectID) }
        var current = object
        let components = QueryExpression.components(of: keyPath)
        for (index, key) in components.enumerated() {
            switch current.entity.propertiesByName[key] {
            case let attribute as AttributeDescription:
                return index == components.count - 1 ? .value(current.attributeValue(at: attribute.slot)) : .null
            case is RelationshipDescription:
                guard let related = current.value(forKey: key) as? ManagedObject else { return .null }
                if index == components.count - 1 { return .object(related.objectID) }
                current = related
            default:
                return .null
            }
        }
        return .null
    }
}
