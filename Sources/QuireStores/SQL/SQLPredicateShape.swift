import QuireCore
import Foundation

/// A predicate's shape: the predicate with the constants that ``SQLPredicateCompiler`` only binds as
/// parameters replaced by placeholders of the same kind, so that fetches differing only in those values
/// (`tag == 3`, `tag == 7`) share one compiled SQL statement.
///
/// A constant is a parameter when it is one side of a comparison whose other side reads the object
/// (`==`, `!=`, `<`, `<=`, `>`, `>=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`), and is a non-nil value of
/// a kind the compiler binds as it is (numbers, strings, dates, data, UUIDs, URIs) or the permanent ID of an
/// object of the store. What the compiler decides from such a constant (whether its kind matches the column,
/// whether an object ID is this store's) depends only on its case, its entity and its store, which the
/// placeholder keeps. Every other constant (nil, Booleans, lists, `IN`, `BETWEEN`, `MATCHES` patterns, which the
/// compiler validates, comparisons of two constants, which it decides) stays in the shape as it is.
///
/// ``parameters(of:store:)`` lists a predicate's parameters in the order the compiler binds them: a cache
/// entry keeps the compiled SQL and how each binding is derived (``SQLPredicateCompiler/bindingFolds``),
/// and is only made after checking that the parameters give the compiler's own bindings.
enum SQLPredicateShape {
    /// The predicate with its parameters replaced by placeholders.
    static func normalized(_ predicate: QueryPredicate, store: PersistentStore) -> QueryPredicate {
        switch predicate {
        case .true, .false: return predicate
        case .and(let operands): return .and(operands.map { normalized($0, store: store) })
        case .or(let operands): return .or(operands.map { normalized($0, store: store) })
        case .not(let operand): return .not(normalized(operand, store: store))
        case .comparison(let comparison):
            // Made for every fetch (twice when the context asks first whether the store evaluates it): the
            // comparison is made again once, and only when a side changes.
            let side = parameterSide(of: comparison, store: store)
            let left =
                side == .left
                ? placeholder(for: comparison.left, store: store) ?? normalizedIfChanged(comparison.left, store: store)
                : normalizedIfChanged(comparison.left, store: store)
            let right =
                side == .right
                ? placeholder(for: comparison.right, store: store) ?? normalizedIfChanged(comparison.right, store: store)
                : normalizedIfChanged(comparison.right, store: store)
            guard left != nil || right != nil else { return predicate }
            return .comparison(comparison.replacingSides(left: left, right: right))
        }
    }

    /// ``normalized(_:store:)`` of an expression, or nil when it is the expression itself (no constant within
    /// it is replaced).
    private static func normalizedIfChanged(_ expression: QueryExpression, store: PersistentStore) -> QueryExpression? {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath, .variable: return nil
        default: return normalized(expression, store: store)
        }
    }

    /// Whether a predicate holds a list of more than `count` expressions (`key IN {…}`), which no shape shares with
    /// other fetches' lists (see ``SQLFetchPlanCache/sql(for:selection:sorted:store:compile:)``).
    static func holdsList(in predicate: QueryPredicate, longerThan count: Int) -> Bool {
        switch predicate {
        case .true, .false: return false
        case .and(let operands), .or(let operands): return operands.contains { holdsList(in: $0, longerThan: count) }
        case .not(let operand): return holdsList(in: operand, longerThan: count)
        case .comparison(let comparison):
            return holdsList(in: comparison.left, longerThan: count) || holdsList(in: comparison.right, longerThan: count)
        }
    }

    private static func holdsList(in expression: QueryExpression, longerThan count: Int) -> Bool {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath, .variable: return false
        case .array(let elements): return elements.count > count || elements.contains { holdsList(in: $0, longerThan: count) }
        case .member(let base, _): return holdsList(in: base, longerThan: count)
        case .aggregate(_, let collection, _): return holdsList(in: collection, longerThan: count)
        case .subquery(let collection, _, let predicate):
            return holdsList(in: collection, longerThan: count) || holdsList(in: predicate, longerThan: count)
        case .cast(let operand, _): return holdsList(in: operand, longerThan: count)
        case .function(_, let arguments): return arguments.contains { holdsList(in: $0, longerThan: count) }
        }
    }

    /// The values of a predicate's parameters as the compiler binds them before folding (decimals as
    /// doubles, object IDs as their primary keys), in binding order.
    static func parameters(of predicate: QueryPredicate, store: PersistentStore) -> [AttributeValue] {
        var values: [AttributeValue] = []
        collect(predicate, store: store, into: &values)
        return values
    }

    /// The bindings of a parameter list for the folds the compiler applied (see
    /// ``SQLPredicateCompiler/bindingFolds``); nil when the two lists do not line up.
    static func bindings(_ parameters: [AttributeValue], folds: [QueryComparison.Options?]) -> [AttributeValue]? {
        guard parameters.count == folds.count else { return nil }
        var bindings = parameters
        for (index, fold) in folds.enumerated() {
            guard let fold else { continue }
            guard case .string(let string) = parameters[index] else { return nil }
            bindings[index] = .string(PredicateStringMatching.comparisonKey(string, fold))
        }
        return bindings
    }

    // MARK: Which constants are parameters

    private enum Side { case none, left, right }

    private static func parameterSide(of comparison: QueryComparison, store: PersistentStore) -> Side {
        switch comparison.operator {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo,
            .beginsWith, .endsWith, .contains, .like:
            break
        case .matches, .in, .between:
            return .none
        }
        let leftConstant = isConstant(comparison.left)
        let rightConstant = isConstant(comparison.right)
        guard leftConstant != rightConstant else { return .none }
        let side: Side = leftConstant ? .left : .right
        return rawBinding(of: leftConstant ? comparison.left : comparison.right, store: store) == nil ? .none : side
    }

    /// Whether the compiler treats an expression as a constant (``SQLPredicateCompiler/Operand/isConstant``).
    private static func isConstant(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .constant, .objectID: return true
        case .array(let elements): return elements.allSatisfy(isConstant)
        default: return false
        }
    }

    /// The value the compiler binds for a parameter constant, nil for a constant that is not one.
    private static func rawBinding(of expression: QueryExpression, store: PersistentStore) -> AttributeValue? {
        switch expression {
        case .constant(let value):
            switch value {
            case .null, .boolean, .externalData: return nil
            case .decimal(let decimal): return .double(NSDecimalNumber(decimal: decimal).doubleValue)
            case .integer, .double, .float, .string, .date, .data, .uuid, .uri: return value
            }
        case .objectID(let id):
            guard id.isStored(in: store), let key = id.primaryKey else { return nil }
            return .integer(key)
        default:
            return nil
        }
    }

    private static let referenceDate = Date(timeIntervalSinceReferenceDate: 0)
    private static let placeholderURL = URL(fileURLWithPath: "/")

    /// A placeholder of the same case (for an object ID: the same entity and store).
    private static func placeholder(for expression: QueryExpression, store: PersistentStore) -> QueryExpression? {
        switch expression {
        case .constant(let value):
            switch value {
            case .integer: return .constant(.integer(0))
            case .double: return .constant(.double(0))
            case .float: return .constant(.float(0))
            case .decimal: return .constant(.decimal(0))
            case .string: return .constant(.string(""))
            case .date: return .constant(.date(referenceDate))
            case .data: return .constant(.data(Data()))
            case .uuid: return .constant(.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
            case .uri: return .constant(.uri(placeholderURL))
            case .null, .boolean, .externalData: return nil
            }
        case .objectID(let id):
            return .objectID(ObjectID(entity: id.entity, store: store, primaryKey: 0))
        default:
            return nil
        }
    }

    // MARK: Walking in binding order

    private static func normalized(_ expression: QueryExpression, store: PersistentStore) -> QueryExpression {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath, .variable: return expression
        case .member(let base, let keyPath): return .member(normalized(base, store: store), keyPath: keyPath)
        case .aggregate(let aggregate, let collection, let keyPath):
            return .aggregate(aggregate, normalized(collection, store: store), keyPath: keyPath)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(
                collection: normalized(collection, store: store), variable: variable,
                predicate: normalized(predicate, store: store))
        case .array(let elements): return .array(elements.map { normalized($0, store: store) })
        case .cast(let operand, let type): return .cast(normalized(operand, store: store), type: type)
        case .function(let function, let arguments):
            return .function(function, arguments.map { normalized($0, store: store) })
        }
    }

    /// The compiler binds a comparison's own parameter after compiling both sides (whose subqueries bind
    /// first, left side before right side), and the operands of `AND`, `OR` and `NOT` in order.
    private static func collect(_ predicate: QueryPredicate, store: PersistentStore, into values: inout [AttributeValue]) {
        switch predicate {
        case .true, .false: return
        case .and(let operands), .or(let operands):
            for operand in operands { collect(operand, store: store, into: &values) }
        case .not(let operand): collect(operand, store: store, into: &values)
        case .comparison(let comparison):
            collect(comparison.left, store: store, into: &values)
            collect(comparison.right, store: store, into: &values)
            switch parameterSide(of: comparison, store: store) {
            case .none: break
            case .left: if let value = rawBinding(of: comparison.left, store: store) { values.append(value) }
            case .right: if let value = rawBinding(of: comparison.right, store: store) { values.append(value) }
            }
        }
    }

    private static func collect(_ expression: QueryExpression, store: PersistentStore, into values: inout [AttributeValue]) {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath, .variable: return
        case .member(let base, _): collect(base, store: store, into: &values)
        case .aggregate(_, let collection, _): collect(collection, store: store, into: &values)
        case .subquery(let collection, _, let predicate):
            collect(collection, store: store, into: &values)
            collect(predicate, store: store, into: &values)
        case .array(let elements): for element in elements { collect(element, store: store, into: &values) }
        case .cast(let operand, _): collect(operand, store: store, into: &values)
        // A function's constant arguments stay in the shape; if the compiler binds them, the parameters do not
        // line up with its bindings and the fetch is not cached (see ``bindings(_:folds:)``).
        case .function(_, let arguments): for argument in arguments { collect(argument, store: store, into: &values) }
        }
    }
}
