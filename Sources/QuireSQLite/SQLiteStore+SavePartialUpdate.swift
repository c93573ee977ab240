import QuireCore
@_spi(QuireEngine) import QuireStores

/// A prepared UPDATE of some of an entity's columns, and the attribute and to-one slots it binds in order.
final class SQLitePartialUpdate {
    let sql: String
    var statement: SQLiteStatement
    let attributeSlots: [(Int, Bool)]
    let relationshipSlots: [(Int, Bool)]

    init(sql: String, statement: SQLiteStatement, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)]) {
        self.sql = sql
        self.statement = statement
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
    }
}

extension SQLiteStore {
    /// How many sets of changed columns an entity keeps a prepared UPDATE for; an update that changes another
    /// set writes the whole row (which is what every update did before).
    static let partialUpdateLimit = 32

    /// The prepared UPDATE writing only the columns `change` changed (see ``WritePlan/changedColumns(of:)``),
    /// reset for new bindings; nil when the whole row is to be written: no committed values, every column
    /// changed, or the entity already has ``partialUpdateLimit`` others.
    ///
    /// Writing an unchanged column is not free: SQLite maintains every index on a column the UPDATE assigns,
    /// whether or not its value changed (a unique text column and a to-one's key each cost an index entry
    /// deleted and inserted again).
    func partialUpdate(
        for change: UnsafePointer<SaveRequest.Change>, plan: WritePlan, _ connection: SQLiteConnection
    ) throws -> SQLitePartialUpdate? {
        guard let columns = plan.changedColumns(of: change) else { return nil }
        if let update = plan.partialUpdates[columns] as? SQLitePartialUpdate {
            // As `writeStatement`: only a statement of this connection, not finalized, is used again.
            if update.statement.raw != nil, update.statement.connection === connection {
                update.statement.resetKeepingBindings()
            } else {
                update.statement = try connection.cachedStatement(update.sql)
            }
            return update
        }
        guard plan.partialUpdates.count < Self.partialUpdateLimit, let made = plan.updateSQL(writing: columns) else { return nil }
        let update = SQLitePartialUpdate(
            sql: made.sql, statement: try connection.cachedStatement(made.sql), attributeSlots: made.attributeSlots,
            relationshipSlots: made.relationshipSlots)
        plan.partialUpdates[columns] = update
        return update
    }
}
