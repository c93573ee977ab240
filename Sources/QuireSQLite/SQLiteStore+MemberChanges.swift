import QuireCore
@_spi(QuireEngine) import QuireStores

/// The SQLite store writes members recorded while their to-many relationships were faults
/// (``SQLStore/writeMemberChanges(_:id:map:inverseSides:_:)``).
extension SQLiteStore: MemberChangeApplyingBackend {
    /// Runs a statement of integer parameters, cached on the connection; the number of rows it changed.
    package func changes(running sql: String, _ values: [Int64], on connection: SQLiteConnection) throws -> Int {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        try statement.run()
        return connection.changes
    }

    /// Runs a query of integer parameters, cached on the connection; its first value, nil for no row or NULL.
    package func integer(querying sql: String, _ values: [Int64], on connection: SQLiteConnection) throws -> Int64? {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        return statement.int64(at: 0)
    }
}
