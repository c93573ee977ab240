import QuireCore
import Foundation

/// Where the SQL that ``SQLPredicateCompiler``, ``SQLQueryScope`` and the shared SQL store layer write for Core
/// Data's schema differs between engines: parameters, identifiers, truth values, null-safe equality, casts,
/// aggregates, string ordering, limits. Everything else (joins, `EXISTS` subqueries, the string functions
/// `quire_fold`, `quire_string` and `quire_matches`, which each database defines for itself) is written once.
///
/// A dialect is a value each engine makes in its own folder (SQLite's `SQLDialect.sqlite` in `SQLite/`,
/// PostgreSQL's `SQLDialect.postgres` in `QuirePostgres`); the shared layer never names an engine. Its parts
/// are called while SQL is written (once per fetch shape, write plan or batch statement), never per row.
package struct SQLDialect: Sendable {
    /// The engine's name as messages give it (`SQLite`, `PostgreSQL`).
    package let name: String
    /// A quoted identifier.
    private let quoteIdentifier: @Sendable (String) -> String
    /// Whether the engine folds unquoted identifiers to lower case (so Core Data's `Z_PK` is written `z_pk`).
    package let foldsIdentifiers: Bool
    /// The parameter for the `index`th binding (1-based) of a value in a statement whose values are numbered.
    private let numberedParameter: @Sendable (Int, AttributeValue) -> String
    /// The `index`th parameter (1-based) of a statement bound by position (`?` in SQLite, `$n` elsewhere).
    private let positionalParameter: @Sendable (Int) -> String
    /// The parameter for the `index`th binding (1-based) of a value written to a column of a declared type.
    private let columnParameterOfType: @Sendable (Int, String) -> String
    /// A condition that always holds.
    package let alwaysTrue: String
    /// A condition that never holds.
    package let alwaysFalse: String
    /// The function that replaces NULL by a value (`IFNULL`, `COALESCE`).
    private let ifNull: String
    /// The null-safe equality operator and its negation.
    private let isSame: (equal: String, different: String)
    /// The type a number is cast to for floating-point arithmetic (`REAL`, `DOUBLE PRECISION`).
    package let realType: String
    /// The sum of a column, 0 over no rows, as a double.
    private let totalOf: @Sendable (String) -> String
    /// The average of a column, as a double.
    private let averageOf: @Sendable (String) -> String
    /// The current date as seconds since 2001, read from the database's clock once per statement (what
    /// `now()` compiles to).
    package let now: String
    /// The SQL calling the evaluator's own Swift code for an expression function (SQLite's `quire_function`), nil
    /// for an engine that cannot: it computes a few functions itself and leaves the rest to memory.
    let swiftFunctionCall: (@Sendable (QueryExpression.Function, [String]) -> String?)?
    /// Whether dividing by zero yields NULL by itself (SQLite); otherwise the divisor is wrapped in `NULLIF`.
    let divisionByZeroIsNull: Bool
    /// A long list of integers or strings read from one JSON parameter (SQLite's `json_each`), nil when the
    /// engine takes the values as parameters.
    let jsonList: (@Sendable (String) -> String)?
    /// The condition that a key column is one of a list of keys, bound as one parameter: the text of that
    /// parameter from the keys (`[1,2]`, `{1,2}`) and the condition from the column and the parameter.
    let keyList: (text: @Sendable ([Int64]) -> String, condition: @Sendable (String, String) -> String)
    /// A string column ordered by a sort key's comparator (a collation, or a folding function).
    let stringOrder: @Sendable (String, SortKey.Comparator) -> String
    /// The direction written after an ORDER BY term, with where the engine puts nil: Quire orders nil first in
    /// ascending order, as SQLite and the in-memory sort do.
    let orderDirections: (ascending: String, descending: String)
    /// The ORDER BY term that makes rows equal under every sort key come in primary-key order, for an engine
    /// whose plans may return them otherwise; nil when a table scan already does.
    let keyOrder: String?
    /// Whether the engine sorts a `SELECT DISTINCT` or grouped result only by what it selects (a dictionary
    /// fetch sorted otherwise is computed in memory).
    let ordersOnlyBySelected: Bool
    /// The value bound as the LIMIT of a fetch with an offset and no limit.
    let noLimit: AttributeValue
    /// Whether `INSERT … ON CONFLICT` names the conflicting columns (SQLite takes any uniqueness conflict).
    let namesConflictColumns: Bool

    /// A dialect; each engine makes its own in its folder.
    package init(
        name: String, quote: @escaping @Sendable (String) -> String, foldsIdentifiers: Bool,
        numberedParameter: @escaping @Sendable (Int, AttributeValue) -> String,
        positionalParameter: @escaping @Sendable (Int) -> String,
        columnParameter: @escaping @Sendable (Int, String) -> String,
        alwaysTrue: String, alwaysFalse: String, ifNull: String, isSame: (equal: String, different: String),
        realType: String, total: @escaping @Sendable (String) -> String, average: @escaping @Sendable (String) -> String,
        now: String, swiftFunctionCall: (@Sendable (QueryExpression.Function, [String]) -> String?)?,
        divisionByZeroIsNull: Bool, jsonList: (@Sendable (String) -> String)?,
        keyList: (text: @Sendable ([Int64]) -> String, condition: @Sendable (String, String) -> String),
        stringOrder: @escaping @Sendable (String, SortKey.Comparator) -> String,
        orderDirections: (ascending: String, descending: String), keyOrder: String?, ordersOnlyBySelected: Bool,
        noLimit: AttributeValue, namesConflictColumns: Bool
    ) {
        self.name = name
        self.quoteIdentifier = quote
        self.foldsIdentifiers = foldsIdentifiers
        self.numberedParameter = numberedParameter
        self.positionalParameter = positionalParameter
        self.columnParameterOfType = columnParameter
        self.alwaysTrue = alwaysTrue
        self.alwaysFalse = alwaysFalse
        self.ifNull = ifNull
        self.isSame = isSame
        self.realType = realType
        self.totalOf = total
        self.averageOf = average
        self.now = now
        self.swiftFunctionCall = swiftFunctionCall
        self.divisionByZeroIsNull = divisionByZeroIsNull
        self.jsonList = jsonList
        self.keyList = keyList
        self.stringOrder = stringOrder
        self.orderDirections = orderDirections
        self.keyOrder = keyOrder
        self.ordersOnlyBySelected = ordersOnlyBySelected
        self.noLimit = noLimit
        self.namesConflictColumns = namesConflictColumns
    }

    /// A quoted identifier.
    package func quote(_ identifier: String) -> String { quoteIdentifier(identifier) }

    /// An unquoted identifier as the engine names it: Core Data's `Z_PK`, or `z_pk` where identifiers fold.
    package func plain(_ identifier: String) -> String { foldsIdentifiers ? identifier.lowercased() : identifier }

    /// An identifier quoted as it is, in the SQL standard's double quotes (what the engines' `quote` build on).
    package static func quoteRaw(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The parameter for the `index`th binding (1-based) of `value`.
    package func parameter(_ index: Int, for value: AttributeValue) -> String { numberedParameter(index, value) }

    /// The `index`th parameter (1-based) of a statement bound by position.
    package func positional(_ index: Int) -> String { positionalParameter(index) }

    /// The parameter for the `index`th binding (1-based) of a value written to a column whose declared type (in
    /// Core Data's SQLite terms: `INTEGER`, `FLOAT`, `TIMESTAMP`, `DECIMAL`, `VARCHAR`, `BLOB`) is `declaredType`.
    package func columnParameter(_ index: Int, _ declaredType: String) -> String { columnParameterOfType(index, declaredType) }

    /// A literal truth value.
    package func truth(_ value: Bool) -> String { value ? alwaysTrue : alwaysFalse }

    /// `NOT condition`, with an unknown (NULL) condition counted as false.
    func notTrue(_ condition: String) -> String { "NOT \(ifNull)(\(condition), \(alwaysFalse))" }

    /// The null-safe equality operator (`IS`) and its negation (`IS NOT`).
    package func same(_ equal: Bool) -> String { equal ? isSame.equal : isSame.different }

    /// A decimal column read as a double.
    package func real(_ sql: String) -> String { "CAST(\(sql) AS \(realType))" }

    /// The sum of a column, 0 over no rows, as a double.
    package func total(_ sql: String) -> String { totalOf(sql) }

    /// The average of a column, as a double.
    package func average(_ sql: String) -> String { averageOf(sql) }

    /// Whether the dialect computes an expression function with the evaluator's own Swift code, so that every
    /// numeric and string function compiles.
    var callsSwiftFunctions: Bool { swiftFunctionCall != nil }

    /// An ORDER BY term: `sql` (a string ordered by `comparator` when `isString`) in the key's direction.
    func orderTerm(_ sql: String, isString: Bool, comparator: SortKey.Comparator, ascending: Bool) -> String {
        (isString ? stringOrder(sql, comparator) : sql) + (ascending ? orderDirections.ascending : orderDirections.descending)
    }

    /// ` LIMIT … OFFSET …` with the parameters numbered after `count` bindings, and the values to bind; empty
    /// when the fetch has neither.
    func limitClause(_ fetch: StoreFetch, after count: Int) -> (sql: String, bindings: [AttributeValue]) {
        guard fetch.limit > 0 || fetch.offset > 0 else { return ("", []) }
        return (
            " LIMIT \(parameter(count + 1, for: .integer(0))) OFFSET \(parameter(count + 2, for: .integer(0)))",
            limitBindings(fetch)
        )
    }

    /// The bindings of ``limitClause(_:after:)`` alone, without writing its SQL: a fetch whose SQL came from the
    /// cache of plans binds them.
    func limitBindings(_ fetch: StoreFetch) -> [AttributeValue] {
        guard fetch.limit > 0 || fetch.offset > 0 else { return [] }
        return [fetch.limit > 0 ? .integer(Int64(fetch.limit)) : noLimit, .integer(Int64(fetch.offset))]
    }
}
