import QuireCore
@_spi(QuireEngine) import QuireStores

/// An UPDATE of some of an entity's columns, and the attribute and to-one slots it binds in order (then the key and
/// the version it expects, as the whole row's UPDATE).
final class PostgresPartialUpdate {
    let sql: String
    let attributeSlots: [(Int, Bool)]
    let relationshipSlots: [(Int, Bool)]

    init(sql: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)]) {
        self.sql = sql
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
    }
}

extension PostgresStore {
    /// How many sets of changed columns an entity keeps an UPDATE for (each is a statement the connection
    /// prepares), as in the SQLite store; an update that changes another set writes the whole row.
    static let partialUpdateLimit = 32

    /// The UPDATE writing only the columns `change` changed and `z_opt`, as the SQLite store's (see
    /// ``WritePlan/changedColumns(of:)``); nil when the whole row is to be written: no committed values, every
    /// column changed, or the entity already has ``partialUpdateLimit`` others. Not asked for an entity whose
    /// values may be stored as chunks (see ``rowStatement(_:id:map:insert:version:keeping:_:)``).
    ///
    /// PostgreSQL writes a new version of the row either way, but an UPDATE that assigns a column another
    /// connection changed meanwhile without advancing `z_opt` would put the value this context read back; and an
    /// indexed column that is assigned, even its own value, keeps the update from being a heap-only one.
    func partialUpdate(for change: UnsafePointer<SaveRequest.Change>, plan: WritePlan) -> PostgresPartialUpdate? {
        guard let columns = plan.changedColumns(of: change) else { return nil }
        if let update = plan.partialUpdates[columns] as? PostgresPartialUpdate { return update }
        guard plan.partialUpdates.count < Self.partialUpdateLimit, let made = plan.updateSQL(writing: columns) else { return nil }
        let update = PostgresPartialUpdate(sql: made.sql, attributeSlots: made.attributeSlots, relationshipSlots: made.relationshipSlots)
        plan.partialUpdates[columns] = update
        return update
    }
}
