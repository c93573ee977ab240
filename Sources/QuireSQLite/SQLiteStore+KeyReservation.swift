import QuireCore
@_spi(QuireEngine) import QuireStores

extension SQLiteStore: PrimaryKeyReservingBackend {
    /// Raises the hierarchy's `Z_PRIMARYKEY.Z_MAX` by `count` in a transaction of its own, as Core Data's
    /// `obtainPermanentIDs` does, and returns the keys between the old and the new maximum (the old one read
    /// as a save reads it: `largestKey(of:_:)`).
    package func reservePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        return try connection.transaction {
            let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            let root = entity.rootEntity
            let maximum = try largestKey(of: root, connection)
            guard Self.hasKeys(after: maximum, count: count) else { throw noKeysLeft(after: maximum, count: count, for: entity.name) }
            let last = maximum + Int64(count)
            update.reset()
            update.bind(last, at: 1)
            update.bind(Int64(schema.numbers.number(of: root)), at: 2)
            try update.run()
            return Array((maximum + 1)...last)
        }
    }
}
