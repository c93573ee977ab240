import QuireCore

extension SQLiteStore: PrimaryKeyReservingBackend {
    /// Raises the hierarchy's `Z_PRIMARYKEY.Z_MAX` by `count` in a transaction of its own, as Core Data's
    /// `obtainPermanentIDs` does, and returns the keys between the old and the new maximum.
    package func reservePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        return try connection.transaction {
            let select = try connection.cachedStatement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
            let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            defer { select.reset() }
            let root = entity.rootEntity
            var maximum: Int64 = 0
            for member in [root] + root.allSubentities {
                select.reset()
                select.bind(Int64(schema.numbers.number(of: member)), at: 1)
                if try select.step() { maximum = max(maximum, select.int64(at: 0)) }
            }
            let last = maximum + Int64(count)
            update.reset()
            update.bind(last, at: 1)
            update.bind(Int64(schema.numbers.number(of: root)), at: 2)
            try update.run()
            return Array((maximum + 1)...last)
        }
    }
}
