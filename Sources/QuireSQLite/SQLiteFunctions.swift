import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// The SQL functions and collations Quire registers on every connection of an SQLite store, so that SQL
/// compiled from predicates and sort keys judges strings with the very same Swift code as the in-memory
/// evaluator and ``SortKey``.
///
/// | name | what it computes |
/// |---|---|
/// | `quire_fold(text, flags)` | ``PredicateStringMatching/comparisonKey(_:_:)``: the text folded for `[c]` (flag 1) and `[d]` (flag 2), precomposed |
/// | `quire_string(op, text, pattern, flags)` | 1 when `text` `BEGINSWITH` (op 1), `ENDSWITH` (2), `CONTAINS` (3) or is `LIKE` (4) `pattern`, else 0 |
/// | `quire_matches(text, pattern, flags)` | 1 when the whole text matches the ICU regular expression (`MATCHES`) |
/// | `NSCoreDataDATriggerUpdatedAffectedObjectValue(table, ent, pk, attribute, value)` | NULL; see below |
/// | `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(table, ent, pk, attribute, value)` | NULL; see below |
/// | collation `QUIRE_CASEINSENSITIVE` | ``SortKey/Comparator/caseInsensitiveCompare`` |
/// | collation `QUIRE_STANDARD` | ``SortKey/Comparator/localizedStandardCompare`` |
///
/// A non-text argument makes the string functions answer 0 (`quire_fold` answers NULL), as the evaluator
/// answers false for a value that is not a string. Prepared patterns are cached per statement with SQLite's
/// auxiliary data, so a scan folds the pattern once.
///
/// The two `NSCoreData…` functions are the ones Core Data's derived-attribute triggers call (`Z_DA_…` triggers,
/// e.g. on `ZPAGE` to keep `ZBOOK.ZPAGESCOUNT` = `pages.@count`) after they have updated the derived column
/// themselves: in Core Data they tell the saving context which objects' derived values changed. A connection
/// without them fails every insert, update or delete that fires such a trigger ("no such function"), so Quire
/// defines both. They do nothing and answer NULL: the triggers still maintain the derived column in the file,
/// and Quire reads the new value the next time it reads the row.
package enum SQLiteFunctions {
    /// The folding function's name.
    static let fold = SQLStringFunctions.fold
    /// The string operators' function name.
    static let string = SQLStringFunctions.string
    /// The regular expression function's name.
    static let matches = SQLStringFunctions.matches
    /// The functions Core Data's derived-attribute triggers call (5 arguments each).
    static let derivedAttributeTriggerFunctions = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
    ]
    /// The collation of `caseInsensitiveCompare:` and `localizedCaseInsensitiveCompare:`.
    static let caseInsensitiveCollation = "QUIRE_CASEINSENSITIVE"
    /// The collation of `localizedStandardCompare:`.
    static let standardCollation = "QUIRE_STANDARD"

    /// The collation that orders strings as a comparator does in memory; nil for `BINARY` (`compare:`).
    package static func collation(for comparator: SortKey.Comparator) -> String? {
        switch comparator {
        case .compare, .localizedCompare: return nil
        case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare: return caseInsensitiveCollation
        case .localizedStandardCompare: return standardCollation
        }
    }

    /// Registers the functions and collations on a connection.
    ///
    /// - Throws: ``QuireError/Code/sqlite`` when SQLite refuses one.
    package static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var code = sqlite3_create_function_v2(db, fold, 2, deterministic, nil, foldFunction, nil, nil, nil)
        try check(code, fold, connection)
        code = sqlite3_create_function_v2(db, string, 4, deterministic, nil, stringFunction, nil, nil, nil)
        try check(code, string, connection)
        code = sqlite3_create_function_v2(db, matches, 3, deterministic, nil, matchesFunction, nil, nil, nil)
        try check(code, matches, connection)
        for name in derivedAttributeTriggerFunctions {
            code = sqlite3_create_function_v2(db, name, 5, SQLITE_UTF8, nil, derivedAttributeTriggerFunction, nil, nil, nil)
            try check(code, name, connection)
        }
        try SQLiteExpressionFunction.register(on: connection)
        try SQLiteBatchValueFunction.register(on: connection)
        try registerCoreDataDerivationFunctions(on: connection)
        code = sqlite3_create_collation_v2(db, caseInsensitiveCollation, SQLITE_UTF8, nil, caseInsensitiveCompare, nil)
        try check(code, caseInsensitiveCollation, connection)
        code = sqlite3_create_collation_v2(db, standardCollation, SQLITE_UTF8, nil, standardCompare, nil)
        try check(code, standardCollation, connection)
    }

    private static func check(_ code: Int32, _ name: String, _ connection: SQLiteConnection) throws {
        guard code != SQLITE_OK else { return }
        throw connection.lastError(code, action: "register the SQL function \(name)")
    }
}

/// A text argument's UTF-8 bytes, or nil when the argument is not text.
private func textArgument(_ value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
    guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else { return nil }
    return UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
}

private func optionsArgument(_ value: OpaquePointer?) -> QueryComparison.Options {
    QueryComparison.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int64(value)))
        .intersection([.caseInsensitive, .diacriticInsensitive])
}

/// A prepared pattern kept as SQLite auxiliary data for the rest of a statement's run.
private final class PreparedPatternBox {
    let pattern: PreparedStringPattern
    init(_ pattern: PreparedStringPattern) { self.pattern = pattern }
}

private let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<PreparedPatternBox>.fromOpaque(pointer).release()
}

/// Core Data's derived-attribute trigger callbacks: nothing to do in Quire (see ``SQLiteFunctions``).
private let derivedAttributeTriggerFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, _ in
    sqlite3_result_null(context)
}

private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    guard count == 2, let arguments, let text = textArgument(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    let key = PredicateStringMatching.comparisonKey(String(decoding: text, as: UTF8.self), optionsArgument(arguments[1]))
    key.utf8CString.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), sqliteTransient)
    }
}

private let stringFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    guard count == 4, let arguments,
        let op = PreparedStringPattern.Operator(rawValue: Int(sqlite3_value_int64(arguments[0]))),
        let text = textArgument(arguments[1])
    else {
        sqlite3_result_int64(context, 0)
        return
    }
    if let cached = sqlite3_get_auxdata(context, 2) {
        // The pattern prepared for an earlier row of this run: borrowed, not copied.
        let matched = Unmanaged<PreparedPatternBox>.fromOpaque(cached)._withUnsafeGuaranteedRef {
            $0.pattern.matches(utf8: text)
        }
        sqlite3_result_int64(context, matched ? 1 : 0)
        return
    }
    guard let patternText = textArgument(arguments[2]) else {
        sqlite3_result_int64(context, 0)
        return
    }
    let pattern = PreparedStringPattern(
        op, pattern: String(decoding: patternText, as: UTF8.self), options: optionsArgument(arguments[3]))
    sqlite3_result_int64(context, pattern.matches(utf8: text) ? 1 : 0)
    // Kept for the next rows when the pattern is a parameter or a literal (SQLite drops it otherwise).
    sqlite3_set_auxdata(context, 2, Unmanaged.passRetained(PreparedPatternBox(pattern)).toOpaque(), releaseBox)
}

private let matchesFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    guard count == 3, let arguments, let text = textArgument(arguments[0]), let pattern = textArgument(arguments[1])
    else {
        sqlite3_result_int64(context, 0)
        return
    }
    do {
        let matched = try PredicateStringMatching.matches(
            String(decoding: text, as: UTF8.self), pattern: String(decoding: pattern, as: UTF8.self),
            optionsArgument(arguments[2]))
        sqlite3_result_int64(context, matched ? 1 : 0)
    } catch {
        sqlite3_result_error(context, "\(error)", -1)
    }
}

private func collationStrings(
    _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?
) -> (String, String) {
    func string(_ count: Int32, _ bytes: UnsafeRawPointer?) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
    return (string(count1, bytes1), string(count2, bytes2))
}

private func collationResult(_ result: ComparisonResult) -> Int32 {
    switch result {
    case .orderedAscending: return -1
    case .orderedSame: return 0
    case .orderedDescending: return 1
    }
}

private let caseInsensitiveCompare: @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?
) -> Int32 = { _, count1, bytes1, count2, bytes2 in
    let (a, b) = collationStrings(count1, bytes1, count2, bytes2)
    return collationResult(SortKey.Comparator.caseInsensitiveCompare.compare(.string(a), .string(b)))
}

private let standardCompare: @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?
) -> Int32 = { _, count1, bytes1, count2, bytes2 in
    let (a, b) = collationStrings(count1, bytes1, count2, bytes2)
    return collationResult(SortKey.Comparator.localizedStandardCompare.compare(.string(a), .string(b)))
}
