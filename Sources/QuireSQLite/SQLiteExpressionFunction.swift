import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// `quire_function(n, arguments…)`: the SQL function through which the SQLite store computes the expression
/// functions SQLite's own functions compute differently (`lowercase:` is full Unicode, SQLite's `lower()` is
/// ASCII; `abs(-9223372036854775808)` is an error in SQLite), by calling the evaluator's own Swift code
/// (``PredicateEvaluator/apply(_:to:)``): `n` is the function's index in ``QueryExpression/Function/allCases``.
enum SQLiteExpressionFunction {
    /// The function's name.
    static let name = "quire_function"

    /// The SQL calling a function on SQL arguments.
    static func call(_ function: QueryExpression.Function, _ arguments: [String]) -> String? {
        guard let index = QueryExpression.Function.allCases.firstIndex(of: function) else { return nil }
        return "\(name)(\(([String(index)] + arguments).joined(separator: ", ")))"
    }

    /// Registers the function on a connection.
    ///
    /// - Throws: ``QuireError/Code/sqlite`` when SQLite refuses it.
    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(db, name, -1, flags, nil, expressionFunction, nil, nil, nil)
        guard code == SQLITE_OK else { throw connection.lastError(code, action: "register the SQL function \(name)") }
    }
}

/// An SQL value as the evaluator sees it.
private func attributeValue(_ value: OpaquePointer?) -> AttributeValue {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
    case SQLITE_TEXT:
        guard let text = sqlite3_value_text(value) else { return .null }
        return .string(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
    case SQLITE_BLOB:
        guard let bytes = sqlite3_value_blob(value) else { return .data(Data()) }
        return .data(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
    default: return .null
    }
}

private let expressionFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    let functions = QueryExpression.Function.allCases
    guard count >= 1, let arguments else {
        sqlite3_result_null(context)
        return
    }
    let index = Int(sqlite3_value_int64(arguments[0]))
    guard functions.indices.contains(index) else {
        sqlite3_result_error(context, "quire_function: no function number \(index)", -1)
        return
    }
    let values = (1..<Int(count)).map { PredicateValue.value(attributeValue(arguments[$0])) }
    do {
        switch try PredicateEvaluator.apply(functions[index], to: values) {
        case .value(.integer(let v)): sqlite3_result_int64(context, v)
        case .value(.double(let v)): sqlite3_result_double(context, v)
        case .value(.string(let text)):
            text.utf8CString.withUnsafeBufferPointer { buffer in
                sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), sqliteTransient)
            }
        default: sqlite3_result_null(context)
        }
    } catch {
        sqlite3_result_error(context, "\(error)", -1)
    }
}
