import QuireSupport
import Foundation

/// A value inside a predicate, Core Data's `NSExpression`: a constant, a key path, `SELF`, a variable, an
/// aggregate such as `employees.@count`, a subquery, an array literal, a `CAST`, or a function such as
/// `salary * 12` or `lowercase:(name)`.
///
/// Key paths are relative to the evaluated object (`SELF`) unless they hang off another expression
/// (``member(_:keyPath:)``, as in `$x.name`). Format arguments become ``constant(_:)`` or ``objectID(_:)``
/// values when a predicate is parsed.
public indirect enum QueryExpression: Hashable, Sendable {
    /// A collection operator of a key path: `@count`, `@sum`, `@avg`, `@min`, `@max` reduce a collection to one
    /// value; the union operators (`@distinctUnionOfObjects`, …) give the collection of the elements' values.
    public enum Aggregate: String, Hashable, Sendable, CaseIterable {
        /// `@count`: the number of elements.
        case count
        /// `@sum`: the sum of the numeric elements (nil elements skipped); 0 when empty.
        case sum
        /// `@avg`: the average of the numeric elements (nil elements skipped); nil when empty.
        case avg
        /// `@min`: the smallest element (nil elements skipped); nil when empty.
        case min
        /// `@max`: the largest element (nil elements skipped); nil when empty.
        case max
        /// `@unionOfObjects`: the elements' values (nil skipped), duplicates kept.
        case unionOfObjects
        /// `@distinctUnionOfObjects`: the elements' distinct values (nil skipped), in order of first occurrence.
        case distinctUnionOfObjects
        /// `@unionOfArrays`: as `@unionOfObjects` (key paths through nested collections already flatten them).
        case unionOfArrays
        /// `@distinctUnionOfArrays`: as `@distinctUnionOfObjects`.
        case distinctUnionOfArrays
        /// `@distinctUnionOfSets`: as `@distinctUnionOfObjects`.
        case distinctUnionOfSets

        /// The operator for its name without `@`, in any case (`count`, `COUNT`, `distinctUnionOfObjects`).
        ///
        /// - Parameter name: The name as written after `@`.
        public init?(operatorName name: String) {
            guard let aggregate = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                return nil
            }
            self = aggregate
        }

        /// True for the union operators, whose value is a collection.
        public var isUnion: Bool {
            switch self {
            case .count, .sum, .avg, .min, .max: return false
            default: return true
            }
        }

        /// The operator as written in a key path: `@count`, `@sum`, …
        public var keyPathOperator: String { "@" + rawValue }
    }

    /// A constant value: a string, a number, `TRUE`, `NIL`, a date (`CAST(…, "NSDate")`), …
    case constant(AttributeValue)
    /// A constant object identifier, as a managed object passed as a format argument becomes.
    case objectID(ObjectID)
    /// The object being evaluated (`SELF`).
    case evaluatedObject
    /// A dotted key path from the evaluated object, such as `mainAuthor.firstName`.
    case keyPath(String)
    /// A dotted key path from another expression's value, such as `$x.name` or `SUBQUERY(…).name`.
    case member(QueryExpression, keyPath: String)
    /// A variable (`$NAME`), bound by ``QueryPredicate/withSubstitutionVariables(_:)``, by evaluation, or by
    /// an enclosing ``subquery(collection:variable:predicate:)``.
    case variable(String)
    /// A collection operator applied to a collection, then (for `@sum`, `@avg`, `@min`, `@max`) to a key path
    /// of each element: `items.@sum.price` is `.aggregate(.sum, .keyPath("items"), keyPath: "price")`, and
    /// `SUBQUERY(…).@count` is `.aggregate(.count, .subquery(…), keyPath: nil)`.
    case aggregate(Aggregate, QueryExpression, keyPath: String?)
    /// The elements of a collection for which a predicate holds, the element bound to a variable
    /// (`SUBQUERY(employees, $e, $e.salary > 100)`). Key paths inside the predicate start at the element.
    case subquery(collection: QueryExpression, variable: String, predicate: QueryPredicate)
    /// An array literal, `{1, 2, 3}`; array and set format arguments become arrays of constants.
    case array([QueryExpression])
    /// A conversion, `CAST(x, "NSNumber")`. Casts of constants to the known types are folded into constants
    /// when parsed; what remains converts at evaluation.
    case cast(QueryExpression, type: String)
    /// A function of its arguments, `NSExpression(forFunction:arguments:)`: `salary * 12` is
    /// `.function(.multiply, [.keyPath("salary"), .constant(.integer(12))])`, `now()` is `.function(.now, [])`.
    case function(Function, [QueryExpression])
}

extension QueryExpression {
    /// Parses one expression from Core Data's format syntax, substituting the format arguments.
    ///
    /// ```swift
    /// let e = try QueryExpression(format: "employees.@avg.salary")
    /// ```
    ///
    /// - Parameters:
    ///   - format: The format string.
    ///   - arguments: The values for the format specifiers (see ``QueryPredicate/init(format:_:)``).
    /// - Throws: ``QuireError/Code/predicateSyntax`` naming the offset and what was expected.
    public init(format: String, _ arguments: Any...) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseExpressionToEnd()
    }

    /// The components of a key path string (`"a.b"` gives `["a", "b"]`).
    package static func components(of keyPath: String) -> [String] {
        // A key without a dot (most of them: every comparison made splits its key path) is its only component,
        // found by a scan of its bytes; a string without the byte of "." has no Character "." either.
        guard keyPath.utf8.contains(UInt8(ascii: ".")) else { return [keyPath] }
        return keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}
