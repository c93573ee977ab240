import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

extension SQLiteFunctions {
    /// The functions Core Data's triggers for `now()`, `canonical:`, `uppercase:` and `lowercase:` derivations call, as a
    /// public decompilation of Core Data's `NSSQLDerivedAttributeSQLGenerator` names them (no store in the corpus has
    /// such a trigger). Quire writes these triggers in the stores it creates, a store Core Data wrote may have them,
    /// and without the functions every write that fires one fails ("no such function"):
    ///
    /// | name | what it computes |
    /// |---|---|
    /// | `NSCoreDataNow()` | the current date, seconds since 2001-01-01 (how dates are stored); during a save, the save's date (``withDerivationDate(_:on:_:)``) |
    /// | `NSCoreDataCanonical(text)` | the text in lower case without diacritics, as Quire's `canonical:` derivation |
    /// | `NSCoreDataToUpper(text)`, `NSCoreDataToLower(text)` | the text upper- or lower-cased |
    ///
    /// A non-text argument answers NULL.
    static let coreDataDerivationFunctions = ["NSCoreDataNow", "NSCoreDataCanonical", "NSCoreDataToUpper", "NSCoreDataToLower"]

    /// Registers ``coreDataDerivationFunctions`` on a connection.
    ///
    /// - Throws: The SQLite error when a function cannot be registered.
    static func registerCoreDataDerivationFunctions(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        var code = sqlite3_create_function_v2(db, "NSCoreDataNow", 0, SQLITE_UTF8, nil, nowFunction, nil, nil, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, "NSCoreDataCanonical", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, canonicalFunction, nil, nil, nil)
        }
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, "NSCoreDataToUpper", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, upperFunction, nil, nil, nil)
        }
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, "NSCoreDataToLower", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, lowerFunction, nil, nil, nil)
        }
        guard code != SQLITE_OK else { return }
        throw connection.lastError(code, action: "register Core Data's derivation functions")
    }
}

/// The date `NSCoreDataNow()` answers on a connection while a save runs on it, by connection handle: the date the
/// context computed the save's other `now()` values with, so the file and the objects agree to the bit.
private let pinnedDates = LockedValue<[UInt: Double]>([:])

extension SQLiteFunctions {
    /// Runs `body` with `NSCoreDataNow()` answering `date` on the connection (the current date when nil).
    static func withDerivationDate<T>(_ date: Date?, on connection: SQLiteConnection, _ body: () throws -> T) rethrows -> T {
        guard let date, let db = connection.handle else { return try body() }
        let key = UInt(bitPattern: db)
        pinnedDates.withLock { $0[key] = date.timeIntervalSinceReferenceDate }
        defer { pinnedDates.withLock { _ = $0.removeValue(forKey: key) } }
        return try body()
    }
}

/// Answers the text a transform makes of the first argument, or NULL for a non-text argument.
private func transformText(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ transform: (String) -> String) {
    guard count == 1, let arguments, sqlite3_value_type(arguments[0]) == SQLITE_TEXT, let bytes = sqlite3_value_text(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(arguments[0]))), as: UTF8.self)
    transform(text).utf8CString.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), sqliteTransient)
    }
}

private let nowFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
    let key = sqlite3_context_db_handle(context).map { UInt(bitPattern: $0) }
    let pinned = key.flatMap { key in pinnedDates.withLock { $0[key] } }
    sqlite3_result_double(context, pinned ?? Date().timeIntervalSinceReferenceDate)
}

private let canonicalFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    transformText(context, count, arguments) {
        DerivationExpression.apply(.canonical, to: $0)
    }
}

private let upperFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    transformText(context, count, arguments) { DerivationExpression.apply(.uppercase, to: $0) }
}

private let lowerFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    transformText(context, count, arguments) { DerivationExpression.apply(.lowercase, to: $0) }
}
