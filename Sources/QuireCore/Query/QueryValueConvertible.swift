import QuireSupport
import Foundation

/// A constant a value stands for inside a predicate: an attribute value, an object identifier, or an array.
public enum QueryValue: Hashable, Sendable {
    /// An attribute value (a string, a number, a date, `nil`, …).
    case attribute(AttributeValue)
    /// An object identifier: a managed object stands for its ``ObjectID``.
    case objectID(ObjectID)
    /// An array of values, as for `IN %@`.
    case array([QueryValue])

    /// The value as a constant expression.
    public var expression: QueryExpression {
        switch self {
        case .attribute(let value): return .constant(value)
        case .objectID(let id): return .objectID(id)
        case .array(let values): return .array(values.map(\.expression))
        }
    }
}

/// A type whose values can be format arguments and substitution variables of a predicate.
///
/// Managed objects conform by returning their object ID, so `SELF == %@` and `author IN %@` compare identities:
///
/// ```swift
/// extension Tag: QueryValueConvertible {
///     var queryValue: QueryValue { .attribute(.string(name)) }
/// }
/// let p = try QueryPredicate(format: "ANY tags.name == %@", tag)
/// ```
public protocol QueryValueConvertible {
    /// The constant the value stands for inside a predicate.
    var queryValue: QueryValue { get }
}

/// A type whose values can be written inside a predicate's format string and read back.
///
/// A predicate holding an object ID prints it as `CAST("<literal>", "NSManagedObjectID")`. When ``ObjectID``
/// adopts this protocol, the literal is ``predicateLiteral`` and parsing reads it back into an equal ID.
/// Without the conformance the literal is the ID's description (its URI representation); parsing keeps it as a
/// ``QueryExpression/cast(_:type:)``, which still evaluates: it equals the objects whose ID prints the same.
public protocol PredicateObjectIDLiteralConvertible {
    /// The text that stands for the identifier, such as its URI representation.
    var predicateLiteral: String { get }

    /// Reads an identifier back from its text; nil when the text is not one.
    ///
    /// - Parameter predicateLiteral: Text produced by ``predicateLiteral``.
    init?(predicateLiteral: String)
}

/// Converts Swift values (format arguments and substitution variables) into predicate constants.
enum PredicateConstantConverter {
    /// The expression a Swift value stands for, or nil when the value has no constant form.
    ///
    /// Arrays and sets become ``QueryExpression/array(_:)`` of constants, so that they print as `{…}` literals
    /// and parse back equal; `nil` and `NSNull` become ``AttributeValue/null``.
    static func expression(for value: Any?, depth: Int = 0) -> QueryExpression? {
        guard depth < PredicateParser.maximumDepth else { return nil }
        guard let value = unwrapped(value) else { return .constant(.null) }
        // Strings and arrays of strings, the arguments of most predicates made per record (`remoteID == %@`,
        // `remoteID IN %@`), told by their exact type: the same constants the casts below would give, without
        // trying each type in turn.
        let valueType = type(of: value)
        if valueType == String.self, let string = value as? String { return .constant(.string(string)) }
        if valueType == [String].self, let strings = value as? [String] {
            return .array(strings.map { .constant(.string($0)) })
        }
        switch value {
        case let attribute as AttributeValue: return .constant(attribute)
        case let expression as QueryExpression: return expression
        case let queryValue as QueryValue: return queryValue.expression
        case let id as ObjectID: return .objectID(id)
        case is NSNull: return .constant(.null)
        default: break
        }
        if let attribute = AttributeValue(converting: value) { return .constant(attribute) }
        if let convertible = value as? any QueryValueConvertible { return convertible.queryValue.expression }
        if let (elements, ordered) = sequenceElements(of: value) {
            var expressions: [QueryExpression] = []
            expressions.reserveCapacity(elements.count)
            for element in elements {
                guard let expression = expression(for: element, depth: depth + 1) else { return nil }
                expressions.append(expression)
            }
            if !ordered {
                // A set has no order: sort by printed form so the predicate prints the same on every run.
                expressions.sort { $0.expressionFormat < $1.expressionFormat }
            }
            return .array(expressions)
        }
        return nil
    }

    /// The value inside an optional hidden in an `Any`, nil for `Optional.none` at any nesting.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // The usual arguments are no optionals: known by their exact type, with no reflection.
        let valueType = type(of: value)
        if valueType == String.self || valueType == [String].self || valueType == Int.self || valueType == Int64.self
            || valueType == Double.self || valueType == Bool.self
        {
            return value
        }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return unwrapped(child.value)
    }

    /// The elements of an array or set hidden in an `Any`, and whether their order is meaningful; nil for
    /// other values (strings included).
    static func sequenceElements(of value: Any) -> (elements: [Any], ordered: Bool)? {
        if value is String || value is Substring || value is Data { return nil }
        if let array = value as? [Any] { return (array, true) }
        if let set = value as? Set<AnyHashable> { return (set.map { $0.base }, false) }
        if let array = value as? NSArray { return (array.map { $0 }, true) }
        if let set = value as? NSSet { return (set.allObjects, false) }
        return nil
    }
}
