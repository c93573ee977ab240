import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLDialect {
    /// SQLite's dialect: `?1` parameters, 0/1 truth values, `IS` for null-safe equality, identifiers as Core Data
    /// writes them; string order by the collations and expression functions by the Swift function
    /// (`quire_function`) that every SQLite connection of Quire registers (``SQLiteFunctions``,
    /// ``SQLiteExpressionFunction``).
    package static let sqlite = SQLDialect(
        name: "SQLite",
        quote: { SQLDialect.quoteRaw($0) },
        foldsIdentifiers: false,
        numberedParameter: { index, _ in "?\(index)" },
        positionalParameter: { _ in "?" },
        columnParameter: { index, _ in "?\(index)" },
        alwaysTrue: "1", alwaysFalse: "0", ifNull: "IFNULL", isSame: ("IS", "IS NOT"),
        realType: "REAL",
        total: { "TOTAL(\($0))" },
        average: { "AVG(\($0))" },
        now: "((julianday('now') - 2451910.5) * 86400.0)",
        swiftFunctionCall: { SQLiteExpressionFunction.call($0, $1) },
        divisionByZeroIsNull: true,
        jsonList: { "(SELECT value FROM json_each(\($0)))" },
        keyList: (
            text: { "[" + $0.map(String.init).joined(separator: ",") + "]" },
            condition: { "\($0) IN (SELECT value FROM json_each(\($1)))" }
        ),
        stringOrder: { sql, comparator in
            SQLiteFunctions.collation(for: comparator).map { "\(sql) COLLATE \($0)" } ?? sql
        },
        orderDirections: (" ASC", " DESC"),
        keyOrder: nil,
        ordersOnlyBySelected: false,
        noLimit: .integer(-1),
        namesConflictColumns: false)
}
