import QuireSupport
import Foundation

/// Evaluates predicates and expressions in memory, with Core Data's semantics.
///
/// - Numbers compare numerically across cases; strings honor `[c]`, `[d]`, `[n]`; dates compare in time.
/// - Nil equals only nil; `<`, `<=`, `>`, `>=` and `BETWEEN` with nil are false.
/// - A key path through a to-many relationship yields a collection (flattened across levels); a comparison
///   without a modifier whose left side is a collection holds when it holds for some element, as `ANY`
///   (except `CONTAINS`, which asks whether the collection has the right value as an element).
/// - Objects compare by ``PredicateEvaluable/predicateObjectID``, or by identity for classes without one.
package struct PredicateEvaluator {
    /// The values of `$VARIABLES` supplied by the caller.
    package let substitutionVariables: [String: Any]
    /// The variables bound by enclosing subqueries.
    private var bindings: [String: PredicateValue] = [:]

    /// Creates an evaluator with the caller's substitution variables.
    package init(substitutionVariables: [String: Any]) {
        self.substitutionVariables = substitutionVariables
    }

    // MARK: - Predicates

    /// Evaluates a predicate with `object` as `SELF`.
    package func evaluate(_ predicate: QueryPredicate, on object: PredicateValue) throws -> Bool {
        switch predicate {
        case .true:
            return true
        case .false:
            return false
        case .not(let operand):
            return try !evaluate(operand, on: object)
        case .and(let operands):
            for operand in operands where try !evaluate(operand, on: object) { return false }
            return true
        case .or(let operands):
            for operand in operands where try evaluate(operand, on: object) { return true }
            return false
        case .comparison(let comparison):
            return try evaluate(comparison, on: object)
        }
    }

    private func evaluate(_ comparison: QueryComparison, on object: PredicateValue) throws -> Bool {
        let left: PredicateValue
        if let path = comparison.leftKeyPath {
            // The key path as split when the comparison was made.
            left = try Self.resolve(keys: path.keys, on: object)
        } else {
            left = try value(of: comparison.left, on: object)
        }
        let right = try value(of: comparison.right, on: object)
        let op = comparison.operator
        let options = comparison.options
        switch comparison.modifier {
        case .direct:
            if op != .contains, case .collection(let elements) = left {
                for element in elements where try compare(element, op, right, options) { return true }
                return false
            }
            return try compare(left, op, right, options)
        case .any:
            for element in Self.elements(of: left) where try compare(element, op, right, options) { return true }
            return false
        case .all:
            for element in Self.elements(of: left) where try !compare(element, op, right, options) { return false }
            return true
        case .none:
            for element in Self.elements(of: left) where try compare(element, op, right, options) { return false }
            return true
        }
    }

    /// Compares one left value with the right value.
    private func compare(
        _ left: PredicateValue,
        _ op: QueryComparison.Operator,
        _ right: PredicateValue,
        _ options: QueryComparison.Options
    ) throws -> Bool {
        switch op {
        case .equalTo:
            return Self.equal(left, right, options)
        case .notEqualTo:
            return !Self.equal(left, right, options)
        case .lessThan:
            return Self.order(left, right, options) == .orderedAscending
        case .lessThanOrEqualTo:
            return Self.order(left, right, options).map { $0 != .orderedDescending } ?? false
        case .greaterThan:
            return Self.order(left, right, options) == .orderedDescending
        case .greaterThanOrEqualTo:
            return Self.order(left, right, options).map { $0 != .orderedAscending } ?? false
        case .between:
            guard case .collection(let bounds) = right, bounds.count == 2 else {
                throw QuireError(.predicateEvaluation, "BETWEEN needs a collection of two values on its right side.")
            }
            guard let lower = Self.order(left, bounds[0], options), let upper = Self.order(left, bounds[1], options)
            else { return false }
            return lower != .orderedAscending && upper != .orderedDescending
        case .in:
            switch right {
            case .collection(let elements):
                return elements.contains { Self.equal(left, $0, options) }
            case .value(.string(let string)):
                guard case .value(.string(let substring)) = left else { return false }
                return PredicateStringMatching.contains(string, substring, options)
            default:
                return false
            }
        case .contains:
            switch left {
            case .collection(let elements):
                return elements.contains { Self.equal($0, right, options) }
            case .value(.string(let string)):
                guard case .value(.string(let substring)) = right else { return false }
                return PredicateStringMatching.contains(string, substring, options)
            default:
                return false
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard case .value(.string(let string)) = left, case .value(.string(let pattern)) = right else {
                return false
            }
            switch op {
            case .beginsWith: return PredicateStringMatching.begins(string, with: pattern, options)
            case .endsWith: return PredicateStringMatching.ends(string, with: pattern, options)
            case .like: return PredicateStringMatching.like(string, pattern: pattern, options)
            default: return try PredicateStringMatching.matches(string, pattern: pattern, options)
            }
        }
    }

    /// Equality as `==` sees it: nil only equals nil, numbers across cases, strings under the options,
    /// objects by identity, collections element by element.
    package static func equal(_ left: PredicateValue, _ right: PredicateValue, _ options: QueryComparison.Options) -> Bool {
        switch (left, right) {
        case (.value(let a), .value(let b)):
            return equal(a, b, options)
        case (.object(let a), .object(let b)):
            return identical(a, b)
        case (.collection(let a), .collection(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, options) }
        default:
            return false
        }
    }

    /// Equality of two attribute values as `==` sees it: nil only equals nil, numbers across cases, strings under
    /// the options. Compiled comparisons ask it too (``CompiledComparison``).
    @inline(__always)
    package static func equal(_ a: AttributeValue, _ b: AttributeValue, _ options: QueryComparison.Options) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        if case .string(let x) = a, case .string(let y) = b { return PredicateStringMatching.equal(x, y, options) }
        return a.compare(b) == .orderedSame
    }

    /// The order of two values for `<`, `<=`, `>`, `>=` and `BETWEEN`: nil with nil or incomparable values.
    package static func order(
        _ left: PredicateValue,
        _ right: PredicateValue,
        _ options: QueryComparison.Options
    ) -> ComparisonResult? {
        guard case .value(let a) = left, case .value(let b) = right else { return nil }
        return order(a, b, options)
    }

    /// The order of two attribute values for `<`, `<=`, `>`, `>=` and `BETWEEN`: nil with nil or incomparable
    /// values. Compiled comparisons ask it too.
    package static func order(
        _ a: AttributeValue,
        _ b: AttributeValue,
        _ options: QueryComparison.Options
    ) -> ComparisonResult? {
        guard !a.isNull, !b.isNull else { return nil }
        var stringOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { stringOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { stringOptions.insert(.diacriticInsensitive) }
        return a.compare(b, options: stringOptions)
    }

    /// Whether two objects are the same: by object ID when both have one, by identity for class instances.
    static func identical(_ a: any PredicateEvaluable, _ b: any PredicateEvaluable) -> Bool {
        if let literal = a as? ObjectIDLiteralReference { return literal.matches(b) }
        if let literal = b as? ObjectIDLiteralReference { return literal.matches(a) }
        let idA = a.predicateObjectID
        let idB = b.predicateObjectID
        if idA != nil || idB != nil { return idA == idB }
        guard type(of: a) is AnyClass, type(of: b) is AnyClass else { return false }
        return (a as AnyObject) === (b as AnyObject)
    }

    /// The elements `ANY`, `ALL`, `NONE`, `SUBQUERY` and the aggregates range over: a collection's elements,
    /// none for nil, the value itself otherwise.
    package static func elements(of value: PredicateValue) -> [PredicateValue] {
        switch value {
        case .collection(let elements): return elements
        case .value(.null): return []
        default: return [value]
        }
    }

    // MARK: - Expressions

    /// Evaluates an expression with `object` as `SELF`.
    package func value(of expression: QueryExpression, on object: PredicateValue) throws -> PredicateValue {
        switch expression {
        case .constant(let value):
            return .value(value)
        case .objectID(let id):
            return .object(ObjectIDReference(id: id))
        case .evaluatedObject:
            return Self.normalized(object)
        case .keyPath(let keyPath):
            return try Self.resolve(keyPath, on: object)
        case .member(let base, let keyPath):
            return try Self.resolve(keyPath, on: try value(of: base, on: object))
        case .variable(let name):
            return try variable(name)
        case .aggregate(let aggregate, let collection, let keyPath):
            var elements = Self.elements(of: try value(of: collection, on: object))
            if let keyPath {
                elements = try elements.flatMap { Self.elements(of: try Self.resolve(keyPath, on: $0)) }
            }
            return try Self.reduce(elements, with: aggregate)
        case .subquery(let collection, let variable, let predicate):
            var matching: [PredicateValue] = []
            var inner = self
            for element in Self.elements(of: try value(of: collection, on: object)) {
                inner.bindings[variable] = element
                if try inner.evaluate(predicate, on: element) { matching.append(element) }
            }
            return .collection(matching)
        case .array(let elements):
            return .collection(try elements.map { try value(of: $0, on: object) })
        case .cast(let operand, let type):
            return try Self.cast(try value(of: operand, on: object), to: type)
        case .function(let function, let arguments):
            if function == .castObject, arguments.count == 2, case .constant(.string(let type)) = arguments[1] {
                return try Self.cast(try value(of: arguments[0], on: object), to: type)
            }
            return try Self.apply(function, to: try arguments.map { try value(of: $0, on: object) })
        }
    }

    private func variable(_ name: String) throws -> PredicateValue {
        if let bound = bindings[name] { return bound }
        guard let raw = substitutionVariables[name] else {
            throw QuireError(.predicateEvaluation, "No value was given for the substitution variable $\(name).")
        }
        guard let value = PredicateValueConverter.predicateValue(for: raw) else {
            throw QuireError(
                .predicateEvaluation,
                "The value for the substitution variable $\(name) has the type '\(type(of: raw))', "
                    + "which predicates cannot compare."
            )
        }
        return Self.normalized(value)
    }

    /// A value with objects that stand for plain values (an ``AttributeValue`` as an object) unwrapped.
    package static func normalized(_ value: PredicateValue) -> PredicateValue {
        var current = value
        // Each step unwraps one level; a well-behaved `predicateSelfValue` needs one or two.
        for _ in 0..<8 {
            guard case .object(let object) = current else { return current }
            if object.predicateSelfIsObject { return current }
            let selfValue = object.predicateSelfValue
            if case .object(let inner) = selfValue, type(of: inner) == type(of: object) { return current }
            current = selfValue
        }
        return current
    }

    /// Follows a dotted key path from a value: through objects, through each element of collections
    /// (flattening them), and through nil to nil.
    package static func resolve(_ keyPath: String, on base: PredicateValue) throws -> PredicateValue {
        try resolve(keys: QueryExpression.components(of: keyPath), on: base)
    }

    /// ``resolve(_:on:)`` of a key path already split into its keys.
    package static func resolve(keys: [String], on base: PredicateValue) throws -> PredicateValue {
        var current = normalized(base)
        for key in keys {
            current = try step(current, key: key)
        }
        return current
    }

    private static func step(_ value: PredicateValue, key: String) throws -> PredicateValue {
        switch value {
        case .value(.null):
            return .null
        case .value(.string(let text)) where key == "length":
            // NSString's length (UTF-16 units), as validation predicates such as `length >= 3` read it.
            return .value(.integer(Int64(text.utf16.count)))
        case .value(.data(let data)) where key == "length":
            return .value(.integer(Int64(data.count)))
        case .value(let attribute):
            throw QuireError(
                .predicateEvaluation,
                "The value \(attribute) has no key '\(key)'.",
                context: .init(key: key)
            )
        case .object(let object):
            return normalized(try object.predicateValue(forKey: key))
        case .collection(let elements):
            var result: [PredicateValue] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                let stepped = try step(normalized(element), key: key)
                if case .collection(let inner) = stepped {
                    result.append(contentsOf: inner)
                } else {
                    result.append(stepped)
                }
            }
            return .collection(result)
        }
    }

    static func cast(_ value: PredicateValue, to type: String) throws -> PredicateValue {
        guard case .value(let attribute) = value else {
            throw QuireError(.predicateEvaluation, "Only a single value can be cast to \(type).")
        }
        if type == PredicateCast.objectID, case .string(let literal) = attribute {
            if let id = PredicateCast.objectIDValue(literal) { return .object(ObjectIDReference(id: id)) }
            return .object(ObjectIDLiteralReference(literal: literal))
        }
        guard let converted = PredicateCast.convert(attribute, to: type) else {
            throw QuireError(.predicateEvaluation, "The value \(attribute) cannot be cast to \(type).")
        }
        return .value(converted)
    }

    // MARK: - Aggregates

    static func reduce(
        _ elements: [PredicateValue],
        with aggregate: QueryExpression.Aggregate
    ) throws -> PredicateValue {
        if aggregate == .count { return .value(.integer(Int64(elements.count))) }
        if aggregate.isUnion { return union(elements, distinct: aggregate.rawValue.hasPrefix("distinct")) }
        var values: [AttributeValue] = []
        for element in elements {
            switch normalized(element) {
            case .value(.null): continue
            case .value(let value): values.append(value)
            default:
                throw QuireError(
                    .predicateEvaluation,
                    "\(aggregate.keyPathOperator) needs values, not objects or collections."
                )
            }
        }
        switch aggregate {
        case .count:
            return .value(.integer(Int64(elements.count)))
        case .unionOfObjects, .distinctUnionOfObjects, .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            return union(elements, distinct: aggregate.rawValue.hasPrefix("distinct"))
        case .sum:
            return .value(try sum(values, aggregate))
        case .avg:
            guard !values.isEmpty else { return .null }
            let numbers = try values.map { try number($0, aggregate) }
            return .value(.double(numbers.reduce(0) { $0 + $1.doubleValue } / Double(numbers.count)))
        case .min, .max:
            guard var best = values.first else { return .null }
            for value in values.dropFirst() {
                guard let order = value.compare(best) else {
                    throw QuireError(
                        .predicateEvaluation,
                        "\(aggregate.keyPathOperator) cannot compare \(value) with \(best)."
                    )
                }
                if (aggregate == .min && order == .orderedAscending)
                    || (aggregate == .max && order == .orderedDescending)
                {
                    best = value
                }
            }
            return .value(best)
        }
    }

    /// The elements of a union operator: nil skipped, duplicates (by `==`) dropped when distinct.
    private static func union(_ elements: [PredicateValue], distinct: Bool) -> PredicateValue {
        var result: [PredicateValue] = []
        for element in elements.map(normalized) {
            if case .value(.null) = element { continue }
            if distinct && result.contains(where: { equal($0, element, []) }) { continue }
            result.append(element)
        }
        return .collection(result)
    }

    private static func number(
        _ value: AttributeValue,
        _ aggregate: QueryExpression.Aggregate
    ) throws -> PredicateNumber {
        guard let number = PredicateNumber(value) else {
            throw QuireError(.predicateEvaluation, "\(aggregate.keyPathOperator) needs numbers, not \(value).")
        }
        return number
    }

    /// The sum: an integer while every value is an integer and it fits, a decimal when decimals are mixed
    /// only with integers, a double otherwise.
    private static func sum(
        _ values: [AttributeValue],
        _ aggregate: QueryExpression.Aggregate
    ) throws -> AttributeValue {
        let numbers = try values.map { try number($0, aggregate) }
        var integerSum: Int64 = 0
        var fitsInteger = true
        var hasDecimal = false
        var hasDouble = false
        for number in numbers {
            switch number {
            case .integer(let v):
                if fitsInteger {
                    let (result, overflow) = integerSum.addingReportingOverflow(v)
                    integerSum = result
                    fitsInteger = !overflow
                }
            case .decimal: hasDecimal = true
            case .double: hasDouble = true
            }
        }
        if !hasDecimal && !hasDouble && fitsInteger { return .integer(integerSum) }
        if hasDecimal && !hasDouble {
            return .decimal(numbers.reduce(Decimal(0)) { $0 + ($1.decimalValue ?? 0) })
        }
        return .double(numbers.reduce(0) { $0 + $1.doubleValue })
    }
}
