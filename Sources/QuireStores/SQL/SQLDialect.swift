import QuireCore
import Foundation

/// Where the SQL that ``SQLPredicateCompiler`` and ``SQLQueryScope`` write for Core Data's schema
/// differs between SQLite and PostgreSQL: parameters, identifiers, truth values, null-safe equality, casts and
/// aggregates. Everything else (joins, `EXISTS` subqueries, the string functions `quire_fold`, `quire_string`
/// and `quire_matches`, which each database defines for itself) is written once.
package enum SQLDialect: Sendable {
    /// SQLite: `?1` parameters, 0/1 truth values, `IS` for null-safe equality.
    case sqlite
    /// PostgreSQL: `$1::type` parameters, booleans, `IS NOT DISTINCT FROM`; identifiers folded to lower case
    /// (so the tables read like Core Data's unquoted DDL: `SELECT zname FROM zemployee`).
    case postgres

    /// A quoted identifier.
    package func quote(_ identifier: String) -> String {
        switch self {
        case .sqlite: return CoreDataSchema.quote(identifier)
        case .postgres: return SQLDialect.quoteRaw(identifier.lowercased())
        }
    }

    /// A PostgreSQL identifier quoted as it is (schema names keep their case); ``quote(_:)`` folds it to lower
    /// case first, so Core Data's `ZNAME` is PostgreSQL's `zname` and tables read in psql as in Core Data's DDL.
    package static func quoteRaw(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The parameter for the `index`th binding (1-based) of `value`.
    package func parameter(_ index: Int, for value: AttributeValue) -> String {
        switch self {
        case .sqlite: return "?\(index)"
        case .postgres:
            // `$n` cast to the type of the value's column form, so the server never has to guess its type.
            switch value {
            case .null: return "$\(index)::TEXT"
            case .integer, .boolean: return "$\(index)::BIGINT"
            case .double, .float, .decimal, .date: return "$\(index)::DOUBLE PRECISION"
            case .string, .uri: return "$\(index)::TEXT"
            case .data, .uuid, .externalData: return "$\(index)::BYTEA"
            }
        }
    }

    /// A condition that always holds.
    var alwaysTrue: String { self == .sqlite ? "1" : "TRUE" }
    /// A condition that never holds.
    var alwaysFalse: String { self == .sqlite ? "0" : "FALSE" }
    /// A literal truth value.
    package func truth(_ value: Bool) -> String { value ? alwaysTrue : alwaysFalse }

    /// `NOT condition`, with an unknown (NULL) condition counted as false.
    func notTrue(_ condition: String) -> String {
        self == .sqlite ? "NOT IFNULL(\(condition), 0)" : "NOT COALESCE(\(condition), FALSE)"
    }

    /// The null-safe equality operator (`IS`) and its negation (`IS NOT`).
    package func same(_ equal: Bool) -> String {
        switch self {
        case .sqlite: return equal ? "IS" : "IS NOT"
        case .postgres: return equal ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM"
        }
    }

    /// A decimal column read as a double.
    package func real(_ sql: String) -> String {
        self == .sqlite ? "CAST(\(sql) AS REAL)" : "CAST(\(sql) AS DOUBLE PRECISION)"
    }

    /// The sum of a column, 0 over no rows, as a double.
    package func total(_ sql: String) -> String {
        self == .sqlite ? "TOTAL(\(sql))" : "COALESCE(SUM(\(sql))::DOUBLE PRECISION, 0)"
    }
}
