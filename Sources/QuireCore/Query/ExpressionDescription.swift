import QuireSupport
import Foundation

/// A computed value of a dictionary fetch, Core Data's `NSExpressionDescription`: a name (the dictionary
/// key), an expression, and the type of its result.
///
/// ```swift
/// let total = ExpressionDescription(name: "total", function: .sum, of: "salary", resultType: .integer64)
/// let request = FetchRequest<[String: Any]>(entityName: "Employee")
/// request.propertiesToFetch = ["department.name", .expression(total)]
/// request.propertiesToGroupBy = ["department.name"]
/// request.havingPredicate = try QueryPredicate(format: "total > 1000")
/// ```
public struct ExpressionDescription: Hashable, Sendable {
    /// An aggregate function, named as `NSExpression(forFunction:arguments:)` names it.
    public enum Function: String, Hashable, Sendable, CaseIterable, Codable {
        /// `count:`: the number of values that are not nil (of objects, for `SELF`).
        case count = "count:"
        /// `sum:`: the sum of the numbers; 0 when there are none.
        case sum = "sum:"
        /// `average:`: the average of the numbers; nil when there are none.
        case average = "average:"
        /// `min:`: the smallest value; nil when there are none.
        case min = "min:"
        /// `max:`: the largest value; nil when there are none.
        case max = "max:"
        /// `median:`: the middle number, or the average of the two middle ones; nil when there are none.
        /// Computed in memory over the fetched values.
        case median = "median:"
        /// `mode:`: the array of the values that occur most often. Computed in memory over the fetched values.
        case mode = "mode:"
        /// `stddev:`: the population standard deviation of the numbers; nil when there are none. Computed in
        /// memory over the fetched values.
        case stddev = "stddev:"

        /// The expression function of the same name.
        package var expressionFunction: QueryExpression.Function? { QueryExpression.Function(rawValue: rawValue) }
    }

    /// What an expression description computes.
    public enum Expression: Hashable, Sendable {
        /// The value of a key path through to-one relationships, for each object (or group).
        case keyPath(String)
        /// A function of the values of a key path over the objects of each group (all objects without
        /// ``FetchRequest/propertiesToGroupBy``); `SELF` as the key path counts objects.
        case function(Function, keyPath: String)
        /// Any expression: computed for each object (`salary * 12`, `lowercase:(name)`), or for each group when
        /// it is an aggregate function of one (`sum:(salary * 12)`, `median:(salary)`). The name of a
        /// per-object expression can be listed in ``FetchRequest/propertiesToGroupBy`` to group by its value.
        case expression(QueryExpression)
    }

    /// The key of the value in the result dictionaries.
    public var name: String
    /// What is computed.
    public var expression: Expression
    /// The type the value is returned as (`integer64` for counts, `double` for averages, the attribute's type
    /// for `min:` and `max:` of dates, …).
    public var resultType: AttributeType

    /// Creates an expression description.
    ///
    /// - Parameters:
    ///   - name: The key of the value in the result dictionaries.
    ///   - expression: What is computed.
    ///   - resultType: The type the value is returned as.
    public init(name: String, expression: Expression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }

    /// Creates a description of an expression parsed from Core Data's format syntax, such as `salary * 12` or
    /// `sum:(salary * 12)`.
    ///
    /// ```swift
    /// let yearly = try ExpressionDescription(name: "yearly", format: "salary * 12", resultType: .integer64)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The key of the value in the result dictionaries.
    ///   - format: The expression.
    ///   - resultType: The type the value is returned as.
    /// - Throws: ``QuireError/Code/predicateSyntax`` for an expression that does not parse.
    public init(name: String, format: String, resultType: AttributeType) throws {
        self.init(name: name, expression: .expression(try QueryExpression(format: format)), resultType: resultType)
    }

    /// Creates a description of an aggregate function of a key path, such as `sum:(salary)`.
    ///
    /// - Parameters:
    ///   - name: The key of the value in the result dictionaries.
    ///   - function: The function.
    ///   - keyPath: The key path whose values are aggregated (`SELF` to count objects).
    ///   - resultType: The type the value is returned as.
    public init(name: String, function: Function, of keyPath: String, resultType: AttributeType) {
        self.init(name: name, expression: .function(function, keyPath: keyPath), resultType: resultType)
    }
}

/// One entry of ``FetchRequest/propertiesToFetch``: a key path (written as a string literal) or an
/// ``ExpressionDescription``.
public enum FetchedProperty: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// An attribute name or a key path through to-one relationships; the dictionary key is the key path.
    case keyPath(String)
    /// A computed value; the dictionary key is the description's name.
    case expression(ExpressionDescription)

    /// A key path written as a string literal.
    public init(stringLiteral value: String) {
        self = .keyPath(value)
    }

    /// The key of the value in the result dictionaries.
    public var name: String {
        switch self {
        case .keyPath(let keyPath): return keyPath
        case .expression(let description): return description.name
        }
    }

    /// The key path, or the function and its key path (`sum:(salary)`).
    public var description: String {
        switch self {
        case .keyPath(let keyPath): return keyPath
        case .expression(let description):
            switch description.expression {
            case .keyPath(let keyPath): return "\(description.name) = \(keyPath)"
            case .function(let function, let keyPath): return "\(description.name) = \(function.rawValue)(\(keyPath))"
            case .expression(let expression): return "\(description.name) = \(expression)"
            }
        }
    }
}
