import QuireCore
import QuireStores
import CLibPQ
import Foundation

/// One row of a PostgreSQL result as ``RowReader`` reads it. Columns are typed, so a value's storage class is
/// its column's type's (`BIGINT` an integer, `DOUBLE PRECISION` a real, `TEXT` text, `BYTEA` a blob); rows are
/// asked for in binary form, decimals (`NUMERIC`) as their text. Storage classes are SQLite's codes
/// (``SQLStorageClass/integer`` …), as the row reader expects them.
///
/// The bytes come from the server: a binary value whose length is not its type's (8 bytes for a `bigint`, …)
/// is reported as text, which no number attribute accepts, so the reader throws its typed damaged-row error
/// instead of reading past the value or guessing.
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

    /// The storage class of the column's type, or ``SQLStorageClass/null``; ``SQLStorageClass/text`` for a
    /// binary number whose length is not its type's.
    @inline(__always)
    func storageClass(of column: Int32) -> Int32 {
        let raw = result.raw
        if PQgetisnull(raw, row, column) != 0 { return SQLStorageClass.null }
        let binary = PQfformat(raw, column) == 1
        switch PQftype(raw, column) {
        case 20: return !binary || PQgetlength(raw, row, column) == 8 ? SQLStorageClass.integer : SQLStorageClass.text
        case 23: return !binary || PQgetlength(raw, row, column) == 4 ? SQLStorageClass.integer : SQLStorageClass.text
        case 21: return !binary || PQgetlength(raw, row, column) == 2 ? SQLStorageClass.integer : SQLStorageClass.text
        case 16: return !binary || PQgetlength(raw, row, column) == 1 ? SQLStorageClass.integer : SQLStorageClass.text
        case 701: return !binary || PQgetlength(raw, row, column) == 8 ? SQLStorageClass.float : SQLStorageClass.text
        case 700: return !binary || PQgetlength(raw, row, column) == 4 ? SQLStorageClass.float : SQLStorageClass.text
        case 17:
            // A `bytea` in text form is hex: its bytes are not the value's.
            return binary ? SQLStorageClass.blob : SQLStorageClass.text
        default: return SQLStorageClass.text
        }
    }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { result.int64(Int(row), Int(column)) }

    /// The value as a real; an integer column's converted.
    @inline(__always)
    func double(_ column: Int32) -> Double {
        switch PQftype(result.raw, column) {
        case 16, 20, 21, 23: return Double(result.int64(Int(row), Int(column)))
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
        storageClass(of: index) == SQLStorageClass.integer && int64(at: index) > 0
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
        case SQLStorageClass.null: return "NULL"
        case SQLStorageClass.integer: return "the integer \(int64(at: index))"
        case SQLStorageClass.float: return "the real \(double(index))"
        case SQLStorageClass.blob: return "a blob of \(PQgetlength(result.raw, row, index)) bytes"
        default:
            let type = PQftype(result.raw, index)
            if PQfformat(result.raw, index) == 1, type != 25, type != 1043, type != 1700 {
                return "a binary value of \(PQgetlength(result.raw, row, index)) bytes of type \(type)"
            }
            return "the text '\((result.string(Int(row), Int(index)) ?? "").prefix(40))'"
        }
    }
}
