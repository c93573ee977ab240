import QuireSupport
import Foundation

/// A reserved word of the predicate syntax. Keywords are case-insensitive; as key names they need a `#`.
package enum PredicateKeyword: String, CaseIterable, Sendable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case `in` = "IN"
    case like = "LIKE"
    case matches = "MATCHES"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case between = "BETWEEN"
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
    case some = "SOME"
    case `self` = "SELF"
    case `true` = "TRUE"
    case yes = "YES"
    case `false` = "FALSE"
    case no = "NO"
    case `nil` = "NIL"
    case null = "NULL"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case subquery = "SUBQUERY"
    case cast = "CAST"
    // Reserved by Core Data, not supported here: reading them as keys would change their meaning there.
    case first = "FIRST"
    case last = "LAST"
    case size = "SIZE"
    case anyKey = "ANYKEY"
    case fetch = "FETCH"
    case caseInsensitive = "CASEINSENSITIVE"
    case ci = "CI"

    private static let byName: [String: PredicateKeyword] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) }
    )

    /// The keyword spelled by an identifier, in any case (ASCII letters only: `ſelf` is a key, not `SELF`).
    package init?(identifier: String) {
        guard identifier.utf8.count <= 16, identifier.utf8.allSatisfy({ $0 < 0x80 }),
            let keyword = Self.byName[identifier.uppercased()]
        else { return nil }
        self = keyword
    }
}

/// Punctuation and symbolic operators.
package enum PredicateSymbol: Equatable, Sendable {
    case openParen, closeParen, openBrace, closeBrace, openBracket, closeBracket, comma, dot
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case doubleAmpersand, doublePipe, exclamation
    /// The arithmetic operators `+`, `-`, `*`, `/`, `**`, and the `:` of a function name such as `add:to:`.
    case plus, minus, star, slash, power, colon
}

/// What a format specifier substitutes.
package enum PredicateFormatConversion: Equatable, Sendable {
    /// `%@`: any value.
    case object
    /// `%K`: a key path.
    case keyPath
    /// `%d`, `%i`, `%ld`, `%lld`, `%u`, …: an integer.
    case integer
    /// `%f`, `%lf`, `%e`, `%g`, …: a floating-point number.
    case double
    /// `%s`, `%S`: a string.
    case string
}

/// One token of a predicate format string.
package struct PredicateToken: Equatable, Sendable {
    /// What the token is.
    package enum Kind: Equatable, Sendable {
        /// A name that is not a keyword.
        case identifier(String)
        /// A key escaped with `#` (`#date`, or Quire's `#"any text"` for keys that are not identifiers).
        case escapedKey(String)
        /// A reserved word.
        case keyword(PredicateKeyword)
        /// `$NAME`.
        case variable(String)
        /// `@count`, `@sum`, … (the name without `@`).
        case collectionOperator(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// An integer literal.
        case integer(Int64)
        /// A floating-point literal (or an integer too large for 64 bits).
        case double(Double)
        /// A format specifier such as `%@` or `%K`.
        case format(PredicateFormatConversion)
        /// Punctuation or a symbolic operator.
        case symbol(PredicateSymbol)
        /// The end of the input.
        case end
    }

    /// What the token is.
    package var kind: Kind
    /// The offset of its first Unicode scalar in the format string.
    package var offset: Int
    /// Its text as written.
    package var text: String
}
