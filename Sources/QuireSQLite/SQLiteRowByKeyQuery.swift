import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// The select of one row of an entity's table by its key (`… WHERE t0.Z_PK = ?`), as firing a fault reads it,
/// with the statement the store's connection prepared for it once it has one.
final class SQLiteRowByKeyQuery {
    /// The table the row is read from.
    let table: CoreDataSchema.Table
    /// The statement's SQL.
    let sql: String
    /// The store's own connection's statement for `sql`, reused without looking its SQL up; nil until prepared.
    var statement: SQLiteStatement?

    /// A query of `table`'s rows by key.
    init(table: CoreDataSchema.Table, sql: String) {
        self.table = table
        self.sql = sql
    }
}
