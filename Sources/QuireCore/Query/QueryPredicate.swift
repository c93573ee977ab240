import QuireSupport
import Foundation

/// A logical condition on objects, Core Data's `NSPredicate`.
///
/// A predicate is a value: parse it from Core Data's format syntax, print it back with ``predicateFormat``,
/// evaluate it in memory with `evaluate(with:substitutionVariables:)`, or walk its cases (an SQL compiler
/// does) to translate it.
///
/// ```swift
/// let predicate = try QueryPredicate(format: "ANY publications.year >= %d AND name BEGINSWITH[c] %@", 2020, "a")
/// print(predicate)                                  // ANY publications.year >= 2020 AND name BEGINSWITH[c] "a"
/// let matches = try predicate.evaluate(with: author)
/// ```
///
/// Format arguments are substituted as constants when the string is parsed, so a predicate never holds a
/// `%@`; `$VARIABLES` stay until ``withSubstitutionVariables(_:)`` or evaluation supplies them.
public indirect enum QueryPredicate: Hashable, Sendable {
    /// Always true (`TRUEPREDICATE`).
    case `true`
    /// Always false (`FALSEPREDICATE`).
    case `false`
    /// A comparison of two expressions, such as `name BEGINSWITH[c] "a"` (`NSComparisonPredicate`).
    case comparison(QueryComparison)
    /// True when every operand is true (`AND`, `&&`); an empty list is true.
    case and([QueryPredicate])
    /// True when some operand is true (`OR`, `||`); an empty list is false.
    case or([QueryPredicate])
    /// True when the operand is false (`NOT`, `!`).
    case not(QueryPredicate)
}

extension QueryPredicate {
    /// Parses a predicate from Core Data's format syntax, substituting the format arguments.
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "%K == %@ AND employees.@count > %d", "name", "Ann", 2)
    /// ```
    ///
    /// - Parameters:
    ///   - format: The format string, such as `name == %@`.
    ///   - arguments: The values for the format specifiers, in order: any integer or floating-point number,
    ///     `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, ``AttributeValue``, ``ObjectID``, a
    ///     ``QueryValueConvertible`` value, a ``QueryValue`` or ``QueryExpression``, arrays and sets of those,
    ///     or `nil` (`Optional<Any>.none`, `NSNull`).
    /// - Throws: ``QuireError/Code/predicateSyntax`` naming the offset and what was expected.
    public init(format: String, _ arguments: Any...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate from Core Data's format syntax, substituting the format arguments from an array.
    ///
    /// - Parameters:
    ///   - format: The format string, such as `name == %@`.
    ///   - argumentArray: The values for the format specifiers, in order (see ``init(format:_:)``).
    /// - Throws: ``QuireError/Code/predicateSyntax`` naming the offset and what was expected.
    /// - Complexity: O(*n*) in the length of the format string.
    public init(format: String, argumentArray: [Any]) throws {
        let entry = try PredicateTokenCache.entry(for: format)
        // `key == %@` and the like, the format real apps parse once per record: made as the parser would make it,
        // without reading the tokens again.
        if let predicate = entry.keyComparison?.predicate(arguments: argumentArray) {
            self = predicate
            return
        }
        var parser = PredicateParser(format: format, entry: entry, arguments: argumentArray)
        self = try parser.parsePredicateToEnd()
    }

    /// A predicate true when every operand is true: the operand itself when there is one, `TRUEPREDICATE`
    /// when there are none.
    ///
    /// - Parameter predicates: The operands.
    /// - Returns: The conjunction.
    public static func conjunction(_ predicates: [QueryPredicate]) -> QueryPredicate {
        switch predicates.count {
        case 0: return .true
        case 1: return predicates[0]
        default: return .and(predicates)
        }
    }

    /// A predicate true when some operand is true: the operand itself when there is one, `FALSEPREDICATE`
    /// when there are none.
    ///
    /// - Parameter predicates: The operands.
    /// - Returns: The disjunction.
    public static func disjunction(_ predicates: [QueryPredicate]) -> QueryPredicate {
        switch predicates.count {
        case 0: return .false
        case 1: return predicates[0]
        default: return .or(predicates)
        }
    }
}
