import QuireSupport
import Foundation

extension SortKey {
    /// Compares two objects by a list of sort keys: the first key that tells them apart decides.
    ///
    /// ```swift
    /// let order = [SortKey("lastName"), SortKey("firstName")]
    /// try SortKey.compare(ann, bob, by: order)   // .orderedAscending
    /// ```
    ///
    /// - Parameters:
    ///   - a: The first object.
    ///   - b: The second object.
    ///   - keys: The sort keys, most significant first.
    /// - Returns: The order of `a` relative to `b`; `.orderedSame` when no key tells them apart.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key path that cannot be read, or that yields
    ///   an object or a collection rather than a value.
    /// - Complexity: O(*k*) key path reads for *k* keys.
    public static func compare(
        _ a: any PredicateEvaluable,
        _ b: any PredicateEvaluable,
        by keys: [SortKey]
    ) throws -> ComparisonResult {
        for key in keys {
            let keyPath = try QueryExpression(format: "%K", key.keyPath)
            let result = try key.compare(a, b, keyPath: keyPath)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// Compares two objects by this key, its key path already parsed.
    package func compare(
        _ a: any PredicateEvaluable,
        _ b: any PredicateEvaluable,
        keyPath: QueryExpression
    ) throws -> ComparisonResult {
        let result: ComparisonResult
        if let customComparator {
            result = customComparator.compare(try customValue(of: a, keyPath), try customValue(of: b, keyPath))
        } else {
            result = comparator.compare(try sortValue(of: a, keyPath), try sortValue(of: b, keyPath))
        }
        return ascending ? result : Self.flipped(result)
    }

    /// The value a ``customComparator`` is given: a value's public form, or an object itself.
    fileprivate func customValue(of object: any PredicateEvaluable, _ keyPath: QueryExpression) throws -> Any? {
        if case .evaluatedObject = keyPath { return object }
        switch PredicateEvaluator.normalized(try keyPath.value(with: object)) {
        case .value(let value): return value.anyValue
        case .object(let related): return related
        case .collection:
            throw QuireError(
                .predicateEvaluation,
                "The sort key '\(self.keyPath)' yields a collection, not a value; sort by an aggregate such as @count.",
                context: .init(key: self.keyPath))
        }
    }

    fileprivate func sortValue(of object: any PredicateEvaluable, _ keyPath: QueryExpression) throws -> AttributeValue {
        switch try keyPath.value(with: object) {
        case .value(let value):
            return value
        case .object(let related):
            if case .value(let value) = PredicateEvaluator.normalized(.object(related)) { return value }
            throw QuireError(
                .predicateEvaluation,
                "The sort key '\(self.keyPath)' yields an object, not a value.",
                context: .init(key: self.keyPath)
            )
        case .collection:
            throw QuireError(
                .predicateEvaluation,
                "The sort key '\(self.keyPath)' yields a collection, not a value; sort by an aggregate such as @count.",
                context: .init(key: self.keyPath)
            )
        }
    }
}

extension Sequence where Element: PredicateEvaluable {
    /// The elements sorted by a list of sort keys; elements that compare the same keep their order.
    ///
    /// ```swift
    /// let people: [[String: Any]] = [["name": "Bob"], ["name": "ann"]]
    /// try people.sorted(by: [SortKey("name", comparator: .caseInsensitiveCompare)])   // ann, Bob
    /// ```
    ///
    /// - Parameter keys: The sort keys, most significant first.
    /// - Returns: The sorted elements.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key path that cannot be read.
    /// - Complexity: O(*n* log *n*) comparisons, each reading the key paths of two elements.
    public func sorted(by keys: [SortKey]) throws -> [Element] {
        let parsed = try keys.map { try QueryExpression(format: "%K", $0.keyPath) }
        // Read every sort value once, then sort indices, so that sorting reads no key path twice.
        let elements = Array(self)
        var values: [[AttributeValue]] = []
        var customValues: [[Any?]] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            values.append(try zip(keys, parsed).map { key, keyPath in
                key.sortsInMemory ? .null : try key.sortValue(of: element, keyPath)
            })
            customValues.append(try zip(keys, parsed).map { key, keyPath in
                key.sortsInMemory ? try key.customValue(of: element, keyPath) : nil
            })
        }
        let order = elements.indices.sorted { i, j in
            for (index, key) in keys.enumerated() {
                var result = key.customComparator.map { $0.compare(customValues[i][index], customValues[j][index]) }
                    ?? key.comparator.compare(values[i][index], values[j][index])
                if !key.ascending { result = SortKey.flipped(result) }
                if result != .orderedSame { return result == .orderedAscending }
            }
            return i < j
        }
        return order.map { elements[$0] }
    }
}

extension SortKey {
    static func flipped(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
