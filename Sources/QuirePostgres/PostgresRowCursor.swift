import QuireCore
import QuireStores
import CLibPQ
import CSQLite
import Foundation

/// One row of a PostgreSQL result as ``RowReader`` reads it. Columns are typed, so a value's storage class is
/// its column's type's (`BIGINT` an integer, `DOUBLE PRECISION` a real, `TEXT` text, `BYTEA` a blob); rows are
/// asked for in binary form, decimals (`NUMERIC`) as their text.
struct PostgresRowCursor: RowColumnSource {
    /// The result, held for as long as the cursor reads it.
    let result: PostgresResult
    /// The row the cursor reads.
    var row: Int32
    /// The store, as errors name it.
    let display: String
    /// The store's redacted address, for the error's context.
    let errorFile: URL?

    /// A cursor on the first row of a result.
    init(_ result: PostgresResult, display: String, errorFile: URL?) {
        self.result = result
        self.row = 0
        self.display = display
        self.errorFile = errorFile
    }

    /// A column is its number.
    @inline(__always)
    func column(_ index: Int32) -> Int32 { index }

    /// The storage class of the column's type, or `SQLITE_NULL`.
    @inline(__always)
    func storageClass(of column: Int32) -> Int32 {
        let raw = result.raw
        if PQgetisnull(raw, row, column) != 0 { return SQLITE_NULL }
        switch PQftype(raw, column) {
        case 20, 21, 23, 16: return SQLITE_INTEGER
        case 700, 701: return SQLITE_FLOAT
        case 17:
            // A `bytea` in text form is hex: its bytes are not the value's.
            return PQfformat(raw, column) == 1 ? SQLITE_BLOB : SQLITE_TEXT
        default: return SQLITE_TEXT
        }
    }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { result.int64(Int(row), Int(column)) }

    /// The value as a real; an integer column's converted.
    @inline(__always)
    func double(_ column: Int32) -> Double {
        switch PQftype(result.raw, column) {
        case 20, 21, 23: return Double(result.int64(Int(row), Int(column)))
        default: return result.double(Int(row), Int(column))
        }
    }

    /// The value's bytes as they came, valid while the result lives.
    @inline(__always)
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let raw = result.raw
        let count = Int(PQgetlength(raw, row, column))
        guard count > 0, let value = PQgetvalue(raw, row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: count)
    }

    /// A `NUMERIC` selected as its text.
    func decimal(_ column: Int32, storage: Int32) -> Decimal? {
        guard let text = result.string(Int(row), Int(column)) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    @inline(__always)
    func isNull(at index: Int32) -> Bool { PQgetisnull(result.raw, row, index) != 0 }

    @inline(__always)
    func int64(at index: Int32) -> Int64 { result.int64(Int(row), Int(index)) }

    /// Whether the column holds a positive integer.
    func holdsKey(at index: Int32) -> Bool {
        storageClass(of: index) == SQLITE_INTEGER && int64(at: index) > 0
    }

    /// "the PostgreSQL store 'postgresql://…'" (the password redacted).
    var storeDescription: String { "the PostgreSQL store '\(display)'" }
    /// `z_pk`.
    var keyColumnName: String { "z_pk" }
    /// The table's name as PostgreSQL folds it.
    func tableName(_ reader: RowReader) -> String { reader.tableName.lowercased() }

    /// The column's name in the result.
    func columnName(_ index: Int32) -> String {
        PQfname(result.raw, index).map { String(cString: $0) } ?? "column \(index)"
    }

    /// A column's value as errors show it.
    func describeValue(at index: Int32) -> String {
        switch storageClass(of: index) {
        case SQLITE_NULL: return "NULL"
        case SQLITE_INTEGER: return "the integer \(int64(at: index))"
        case SQLITE_FLOAT: return "the real \(double(index))"
        case SQLITE_BLOB: return "a blob of \(PQgetlength(result.raw, row, index)) bytes"
        default: return "the text '\((result.string(Int(row), Int(index)) ?? "").prefix(40))'"
        }
    }
}
