/// The names of the SQL functions compiled predicates call to judge strings as the in-memory evaluator does;
/// every engine defines them for itself (SQLite: ``SQLiteFunctions``, registered on each connection in Swift;
/// PostgreSQL: SQL functions in each store's schema), with the same arguments:
/// `quire_fold(text, flags)` (flag 1 `[c]`, flag 2 `[d]`), `quire_string(op, text, pattern, flags)` (1
/// `BEGINSWITH`, 2 `ENDSWITH`, 3 `CONTAINS`, 4 `LIKE`) and `quire_matches(text, pattern, flags)`.
package enum SQLStringFunctions {
    /// The folding function's name.
    package static let fold = "quire_fold"
    /// The string operators' function name.
    package static let string = "quire_string"
    /// The regular expression function's name.
    package static let matches = "quire_matches"
}
