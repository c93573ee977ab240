import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// SQLite's destructor constant asking it to copy bound text and blobs.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement with typed binding and reading of ``AttributeValue``s.
package final class SQLiteStatement {
    /// The prepared statement; nil once finalized. Not checked for exclusive access at run time: a statement is
    /// used only through its connection, by one caller at a time, and every access is a plain read or write of
    /// the pointer (none is held across a call), so none can overlap; the checks cost more than the binds.
    @exclusivity(unchecked) private(set) var raw: OpaquePointer?
    package unowned let connection: SQLiteConnection
    /// Whether ``SQLiteConnection/cachedStatement(_:)`` handed this statement out beside its cached one (that
    /// one was still stepping): the caller owns it, and nothing may keep it past the request.
    package internal(set) var isOutsideCache = false

    init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    /// Finalizes the statement when its owner did not (a statement handed out beside the cached one).
    deinit {
        if raw != nil { sqlite3_finalize(raw) }
    }

    package func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    package func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Binds every parameter to NULL (`sqlite3_clear_bindings`), letting go of any bytes lent to it.
    func clearBindings() {
        sqlite3_clear_bindings(raw)
    }

    /// Resets for another run, keeping the bound values (for callers that bind every parameter anew).
    func resetKeepingBindings() {
        sqlite3_reset(raw)
    }

    /// Steps once: true when a row is available, false when done.
    package func step() throws -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(code, action: "step")
        }
    }

    /// Steps until done (for statements without results).
    package func run() throws {
        while try step() {}
    }

    // MARK: Binding (1-based indexes)

    package func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(raw, index, value) }
    func bindNull(at index: Int32) { sqlite3_bind_null(raw, index) }
    package func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(raw, index, value) }

    package func bind(_ value: String, at index: Int32) {
        // `withCString` lends a native string's own UTF-8 without copying; the explicit byte count keeps any
        // embedded NUL characters.
        let count = Int32(value.utf8.count)
        value.withCString { pointer in
            _ = sqlite3_bind_text(raw, index, pointer, count, sqliteTransient)
        }
    }

    package func bind(_ value: Data, at index: Int32) {
        value.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                _ = sqlite3_bind_blob(raw, index, base, Int32(buffer.count), sqliteTransient)
            } else {
                _ = sqlite3_bind_zeroblob(raw, index, 0)
            }
        }
    }

    /// Binds an attribute value in its SQLite form (dates as seconds since 2001, UUIDs as 16 bytes, …).
    package func bind(_ value: AttributeValue, at index: Int32, externalFormat: Bool = false) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let v): bind(v, at: index)
        case .double(let v): bind(v, at: index)
        case .float(let v): bind(Double(v), at: index)
        case .decimal(let v):
            switch SQLiteDecimal.stored(v) {
            case .integer(let integer): bind(integer, at: index)
            case .real(let double): bind(double, at: index)
            case .text(let text): bind(text, at: index)
            }
        case .string(let v): bind(v, at: index)
        case .boolean(let v): bind(Int64(v ? 1 : 0), at: index)
        case .date(let v): bind(v.timeIntervalSinceReferenceDate, at: index)
        case .data(let v):
            if externalFormat {
                var framed = Data([0x01])
                framed.append(v)
                bind(framed, at: index)
            } else {
                bind(v, at: index)
            }
        case .uuid(let v):
            let bytes: [UInt8] = withUnsafeBytes(of: v.uuid) { Array($0) }
            bind(Data(bytes), at: index)
        case .uri(let v): bind(v.absoluteString, at: index)
        case .externalData(let v): bind(ExternalDataFormat.externalColumn(v.uuid), at: index)
        }
    }

    // MARK: Reading (0-based columns)

    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    package func int64(at column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    package func double(at column: Int32) -> Double { sqlite3_column_double(raw, column) }

    package func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(raw, column) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func data(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let bytes = sqlite3_column_blob(raw, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Reads a column as a value of an attribute type.
    package func attributeValue(at column: Int32, type: AttributeType, externalFormat: Bool = false) throws -> AttributeValue {
        let storage = sqlite3_column_type(raw, column)
        if storage == SQLITE_NULL { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            return .integer(sqlite3_column_int64(raw, column))
        case .boolean:
            return .boolean(sqlite3_column_int64(raw, column) != 0)
        case .double:
            return .double(sqlite3_column_double(raw, column))
        case .float:
            return .float(Float(sqlite3_column_double(raw, column)))
        case .decimal:
            if storage == SQLITE_TEXT, let text = string(at: column), let decimal = SQLiteDecimal.decimal(fromText: text) {
                return .decimal(decimal)
            }
            if storage == SQLITE_INTEGER { return .decimal(Decimal(sqlite3_column_int64(raw, column))) }
            return .decimal(SQLiteDecimal.decimal(fromReal: sqlite3_column_double(raw, column)))
        case .string:
            return .string(string(at: column) ?? "")
        case .uri:
            guard let text = string(at: column), let url = URL(string: text) else {
                throw corrupt(column, "is not a valid URI")
            }
            return .uri(url)
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(raw, column)))
        case .binaryData, .transformable:
            let bytes = data(at: column)
            guard externalFormat else { return .data(bytes) }
            return try ExternalDataFormat.decodeColumn(bytes, column: columnName(column))
        case .uuid:
            let bytes = data(at: column)
            guard bytes.count == 16 else { throw corrupt(column, "holds \(bytes.count) bytes where a UUID needs 16") }
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
    }

    /// The storage class of a column of the current row (`SQLITE_INTEGER`, …).
    package func storageClass(at column: Int32) -> Int32 { sqlite3_column_type(raw, column) }

    /// A column's value as errors show it: its storage class and the start of its text.
    package func describeValue(at column: Int32) -> String {
        let storage = sqlite3_column_type(raw, column)
        let name = SQLStorageClass.name(storage)
        switch storage {
        case SQLITE_NULL: return "NULL"
        case SQLITE_BLOB: return "a blob of \(sqlite3_column_bytes(raw, column)) bytes"
        case SQLITE_TEXT: return "the text '\((string(at: column) ?? "").prefix(40))'"
        default: return "the \(name) \(string(at: column) ?? "")"
        }
    }

    package func columnName(_ column: Int32) -> String {
        sqlite3_column_name(raw, column).map { String(cString: $0) } ?? "column \(column)"
    }

    private func corrupt(_ column: Int32, _ problem: String) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Column \(columnName(column)) of the SQLite store '\(connection.url.path)' \(problem).",
            context: .init(file: connection.url))
    }
}
