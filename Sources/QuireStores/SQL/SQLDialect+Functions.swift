import QuireCore
import Foundation

extension SQLDialect {
    /// The current date as seconds since 2001, read from the database's clock once per statement (what
    /// `now()` compiles to): SQLite's `julianday('now')`, PostgreSQL's `statement_timestamp()`.
    package var now: String {
        switch self {
        case .sqlite: return "((julianday('now') - 2451910.5) * 86400.0)"
        case .postgres: return "(EXTRACT(EPOCH FROM statement_timestamp())::DOUBLE PRECISION - 978307200)"
        }
    }

    /// Whether the dialect computes an expression function with the evaluator's own Swift code (SQLite's
    /// `quire_function`, see ``SQLiteExpressionFunction``), so that every numeric and string function compiles;
    /// PostgreSQL computes a few itself and leaves the rest to memory.
    var callsSwiftFunctions: Bool { self == .sqlite }
}
