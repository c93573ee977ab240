import QuireCore
@_spi(QuireEngine) import QuireStores
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

    /// What each column's values are, decided once per result from its type and form (not per row).
    let shapes: [ColumnShape]

    /// The storage class of a column's non-NULL values and, for a binary number, the length each value must
    /// have (0: any).
    struct ColumnShape {
        /// The class of a value of the column (of the right length, for a binary number).
        let storage: Int32
        /// The byte length of a binary number (8 for a `bigint`, …); 0 for a column of any length.
        let width: Int32
    }

    /// A cursor on the first row of a result.
    init(_ result: PostgresResult, display: String, errorFile: URL?) {
        self.result = result
        self.row = 0
        self.display = display
        self.errorFile = errorFile
        let raw = result.raw
        self.shapes = (0..<max(0, PQnfields(raw))).map { column in
            let binary = PQfformat(raw, column) == 1
            func number(_ storage: Int32, _ width: Int32) -> ColumnShape { .init(storage: storage, width: binary ? width : 0) }
            switch PQftype(raw, column) {
            case 20: return number(SQLStorageClass.integer, 8)
            case 23: return number(SQLStorageClass.integer, 4)
            case 21: return number(SQLStorageClass.integer, 2)
            case 16: return number(SQLStorageClass.integer, 1)
            case 701: return number(SQLStorageClass.float, 8)
            case 700: return number(SQLStorageClass.float, 4)
            // A `bytea` in text form is hex: its bytes are not the value's.
            case 17: return .init(storage: binary ? SQLStorageClass.blob : SQLStorageClass.text, width: 0)
            default: return .init(storage: SQLStorageClass.text, width: 0)
            }
        }
    }

    /// A column is its number.
    @inline(__always)
    func column(_ index: Int32) -> Int32 { index }

    /// The shape of a column of the result; nil for a column number the result does not have.
    @inline(__always)
    func shape(of column: Int32) -> ColumnShape? {
        column >= 0 && Int(column) < shapes.count ? shapes[Int(column)] : nil
    }

    /// The storage class of the column's type, or ``SQLStorageClass/null``; ``SQLStorageClass/text`` for a
    /// binary number whose length is not its type's. A binary number of the right length takes one libpq call
    /// (a NULL has length 0, never a number's), any other value one or two.
    @inline(__always)
    func storageClass(of column: Int32) -> Int32 {
        let raw = result.raw
        guard let shape = shape(of: column) else { return SQLStorageClass.null }
        if shape.width > 0 {
            if PQgetlength(raw, row, column) == shape.width { return shape.storage }
            return PQgetisnull(raw, row, column) != 0 ? SQLStorageClass.null : SQLStorageClass.text
        }
        return PQgetisnull(raw, row, column) != 0 ? SQLStorageClass.null : shape.storage
    }

    /// An integer value, of a column whose storage class ``storageClass(of:)`` answered as an integer: a binary
    /// value then has its type's width (checked there), so it is loaded at that width without asking libpq for
    /// its format and length again; a text one is parsed.
    @inline(__always)
    func int64(_ column: Int32) -> Int64 {
        // Safe: a width above 0 is a binary number's, and the storage class check measured this value's length
        // as exactly that width, so the loads stay inside the value libpq holds.
        guard let width = shape(of: column)?.width, width > 0, let value = PQgetvalue(result.raw, row, column) else {
            return result.int64(Int(row), Int(column))
        }
        let bytes = UnsafeRawPointer(value)
        switch width {
        case 8: return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        default: return Int64(bytes.load(as: UInt8.self))
        }
    }

    /// The value as a real, of a column whose storage class ``storageClass(of:)`` answered as a real or an
    /// integer; an integer column's converted.
    @inline(__always)
    func double(_ column: Int32) -> Double {
        guard let shape = shape(of: column) else { return 0 }
        if shape.storage == SQLStorageClass.integer { return Double(int64(column)) }
        // Safe: as in `int64(_:)`, the storage class check measured a binary value's length as its width.
        guard shape.width > 0, let value = PQgetvalue(result.raw, row, column) else { return result.double(Int(row), Int(column)) }
        let bytes = UnsafeRawPointer(value)
        if shape.width == 8 { return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))) }
        return Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))))
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

    /// The integer at a column (`z_pk`, `z_ent`, `z_opt`, a foreign key): a binary integer of its column's width
    /// decoded here, as `PostgresResult.int64(_:_:)` would decode it, without asking libpq the column's format
    /// again; anything else (text, NULL, another length) through `PostgresResult`.
    @inline(__always)
    func int64(at index: Int32) -> Int64 {
        if let width = shape(of: index)?.width, width > 0, PQgetlength(result.raw, row, index) == width { return int64(index) }
        return result.int64(Int(row), Int(index))
    }

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
