import QuireCore
import Foundation

/// The current row of a query result as ``RowReader`` reads it: what an SQLite statement and a PostgreSQL row
/// cursor have in common, so that the row logic (entity numbers, keys, foreign keys, range and storage checks,
/// the typed errors) is written once.
///
/// Storage classes are ``SQLStorageClass``'s codes (SQLite's: `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB`,
/// `SQLITE_NULL`); a store whose columns are typed answers the class its column's type stores. Conformers are
/// used as generic parameters, never as existentials: the row reader's entry points are `@inlinable` SPI, so an
/// engine's target (QuirePostgres, through `@_spi(QuireEngine) import QuireStores`) specializes them for its own
/// source, as this module does for SQLite's statement (Docs/Architecture.md, "What an engine target sees").
@_spi(QuireEngine) public protocol RowColumnSource {
    /// A column's value in the current row, as the source reads it more than once without looking it up again
    /// (SQLite: its `sqlite3_value`; PostgreSQL: the column number).
    associatedtype Column

    /// The value of a column (0-based) of the current row.
    func column(_ index: Int32) -> Column
    /// The storage class of a value.
    func storageClass(of column: Column) -> Int32
    /// An integer value.
    func int64(_ column: Column) -> Int64
    /// A real value (an integer one converted).
    func double(_ column: Column) -> Double
    /// The bytes of a text or blob value, valid until the source moves to another row.
    func bytes(_ column: Column) -> UnsafeRawBufferPointer
    /// ``bytes(_:)`` of a value whose storage class the caller read already (`SQLStorageClass.text` or `.blob`).
    func bytes(_ column: Column, storage: Int32) -> UnsafeRawBufferPointer
    /// A decimal attribute's value of a class the type allows (the one type stored differently by each store:
    /// SQLite keeps integers, reals or text, PostgreSQL's `NUMERIC` comes as text); nil when it is no number.
    func decimal(_ column: Column, storage: Int32) -> Decimal?

    /// Whether a column (0-based) of the current row is NULL.
    func isNull(at index: Int32) -> Bool
    /// An integer column (0-based) of the current row.
    func int64(at index: Int32) -> Int64
    /// Whether a column holds the key of a row: a positive integer.
    func holdsKey(at index: Int32) -> Bool

    /// What errors call the store: "the SQLite store '/path'".
    var storeDescription: String { get }
    /// The store's file or address, for the error's context.
    var errorFile: URL? { get }
    /// The primary key's column name as the store spells it, for errors.
    var keyColumnName: String { get }
    /// A table's name as the store spells it, for errors.
    func tableName(_ reader: RowReader) -> String
    /// A column's name, for errors.
    func columnName(_ index: Int32) -> String
    /// A column's value as errors show it: its class and the start of its text.
    func describeValue(at index: Int32) -> String
}

extension RowColumnSource {
    /// Part of ``RowColumnSource``: ``bytes(_:)``, for sources whose bytes do not depend on the class.
    @inlinable @inline(__always)
    @_spi(QuireEngine) public func bytes(_ column: Column, storage: Int32) -> UnsafeRawBufferPointer { bytes(column) }
}

/// A store whose rows ``RowReader`` reads: how it finds the reader of an entity number, and the store its IDs
/// name. Part of the engine SPI, as ``RowColumnSource`` is.
@_spi(QuireEngine) public protocol RowReadingStore: AnyObject {
    /// The reader of rows whose entity number (`Z_ENT`) is `number`; nil for a number the store does not know.
    func reader(forEntityNumber number: Int64) -> RowReader?
    /// The entity of a store's entity number.
    func entity(number: Int64) -> EntityDescription?
    /// The store the IDs of its rows name.
    var store: PersistentStore { get }
}
