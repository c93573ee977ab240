import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// `quire_batch_value(value, kind)`: the SQL function that wraps each expression a batch update computes in
/// SQL, so that the value written is the one the in-memory pass (``StoreBatchRequest/value(of:for:in:)``) would
/// write: converted to the attribute's type by ``ValueCoercion``'s rules, or an error when it does not fit.
///
/// `kind` is the attribute type's raw value. An integer attribute takes an INTEGER in its range or a REAL that
/// is exactly such an integer (stored as that integer); a Boolean takes an INTEGER (stored as 0 or 1); double
/// and float attributes take any number (a float rounded to `Float`); string and date attributes take the
/// value as it is (the compiler only wraps expressions of the attribute's kind). NULL stays NULL. Anything
/// else fails the statement with an error naming this function, and the store then runs the request through
/// the in-memory pass, which reports the value that does not fit with ``QuireError/Code/invalidValue``.
enum SQLiteBatchValueFunction {
    /// The function's name.
    static let name = "quire_batch_value"

    /// The attribute types whose batch-update expressions SQL computes through this function.
    static func converts(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .string, .date: return true
        case .decimal, .binaryData, .transformable, .uuid, .uri: return false
        }
    }

    /// Whether an error a statement failed with came from this function.
    static func raised(_ error: Error) -> Bool {
        "\(error)".contains(name)
    }

    /// Registers the function on a connection.
    ///
    /// - Throws: ``QuireError/Code/sqlite`` when SQLite refuses it.
    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(db, name, 2, flags, nil, batchValueFunction, nil, nil, nil)
        guard code == SQLITE_OK else { throw connection.lastError(code, action: "register the SQL function \(name)") }
    }
}

private let batchValueFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    guard count == 2, let arguments else {
        sqlite3_result_error(context, "\(SQLiteBatchValueFunction.name): wrong number of arguments", -1)
        return
    }
    let value = arguments[0]
    let storage = sqlite3_value_type(value)
    guard storage != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    var kindText = ""
    if let text = sqlite3_value_text(arguments[1]) {
        kindText = String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(arguments[1]))), as: UTF8.self)
    }
    func refuse() {
        sqlite3_result_error(context, "\(SQLiteBatchValueFunction.name): the value does not fit a \(kindText) attribute", -1)
    }
    guard let type = AttributeType(rawValue: kindText) else { return refuse() }
    switch type {
    case .integer16, .integer32, .integer64:
        var integer: Int64
        if storage == SQLITE_INTEGER {
            integer = sqlite3_value_int64(value)
        } else if storage == SQLITE_FLOAT, let exact = Int64(exactly: sqlite3_value_double(value)) {
            integer = exact
        } else {
            return refuse()
        }
        guard type.integerRange?.contains(integer) ?? true else { return refuse() }
        sqlite3_result_int64(context, integer)
    case .boolean:
        guard storage == SQLITE_INTEGER else { return refuse() }
        sqlite3_result_int64(context, sqlite3_value_int64(value) != 0 ? 1 : 0)
    case .double:
        guard storage == SQLITE_INTEGER || storage == SQLITE_FLOAT else { return refuse() }
        sqlite3_result_double(context, sqlite3_value_double(value))
    case .float:
        guard storage == SQLITE_INTEGER || storage == SQLITE_FLOAT else { return refuse() }
        sqlite3_result_double(context, Double(Float(sqlite3_value_double(value))))
    case .string:
        guard storage == SQLITE_TEXT else { return refuse() }
        sqlite3_result_value(context, value)
    case .date:
        guard storage == SQLITE_INTEGER || storage == SQLITE_FLOAT else { return refuse() }
        sqlite3_result_double(context, sqlite3_value_double(value))
    case .decimal, .binaryData, .transformable, .uuid, .uri:
        refuse()
    }
}
