import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// A statement's current row as ``RowReader`` reads it. A column is its `sqlite3_value`, looked up once for its
/// class and its value.
extension SQLiteStatement: RowColumnSource {
    /// The column's `sqlite3_value` (SQLite answers a NULL value for a column it cannot find).
    @inline(__always)
    package func column(_ index: Int32) -> OpaquePointer? { sqlite3_column_value(raw, index) }

    /// The value's storage class (`SQLITE_NULL` for a missing value).
    @inline(__always)
    package func storageClass(of column: OpaquePointer?) -> Int32 {
        guard let column else { return SQLITE_NULL }
        return sqlite3_value_type(column)
    }

    /// The value as an integer.
    @inline(__always)
    package func int64(_ column: OpaquePointer?) -> Int64 { sqlite3_value_int64(column) }

    /// The value as a real.
    @inline(__always)
    package func double(_ column: OpaquePointer?) -> Double { sqlite3_value_double(column) }

    /// The bytes of a text or blob value, valid until the statement steps or resets.
    @inline(__always)
    package func bytes(_ column: OpaquePointer?) -> UnsafeRawBufferPointer {
        bytes(column, storage: sqlite3_value_type(column))
    }

    /// The bytes of a value whose storage class (`storage`) was read already.
    @inline(__always)
    package func bytes(_ column: OpaquePointer?, storage: Int32) -> UnsafeRawBufferPointer {
        // The class decides which accessor: asking a text value for a blob (or the reverse) would convert it.
        let start = storage == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_value_text(column)) : sqlite3_value_blob(column)
        let count = Int(sqlite3_value_bytes(column))
        guard let start, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: count)
    }

    /// A decimal stored as text (its digits), an integer or a real (Core Data's stores).
    package func decimal(_ column: OpaquePointer?, storage: Int32) -> Decimal? {
        switch storage {
        case SQLITE_TEXT:
            var sink = AttributeValueSink()
            sink.text(bytes(column))
            if case .string(let text) = sink.value, let decimal = SQLiteDecimal.decimal(fromText: text) { return decimal }
            return SQLiteDecimal.decimal(fromReal: sqlite3_value_double(column))
        case SQLITE_INTEGER: return Decimal(sqlite3_value_int64(column))
        default: return SQLiteDecimal.decimal(fromReal: sqlite3_value_double(column))
        }
    }

    /// Whether the column holds a positive integer.
    package func holdsKey(at index: Int32) -> Bool {
        sqlite3_column_type(raw, index) == SQLITE_INTEGER && sqlite3_column_int64(raw, index) > 0
    }

    /// "the SQLite store '/path'".
    package var storeDescription: String { "the SQLite store '\(connection.url.path)'" }
    /// The store's file.
    package var errorFile: URL? { connection.url }
    /// `Z_PK`.
    package var keyColumnName: String { "Z_PK" }
    /// The table's name as the schema spells it.
    package func tableName(_ reader: RowReader) -> String { reader.tableName }
}
