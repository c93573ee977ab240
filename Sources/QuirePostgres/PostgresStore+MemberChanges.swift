import QuireCore
import QuireStores

/// The PostgreSQL store writes members recorded while their to-many relationships were faults
/// (``SQLStore/writeMemberChanges(_:id:map:inverseSides:_:)``).
extension PostgresStore: MemberChangeApplyingBackend {
    /// Runs a statement of integer parameters; the number of rows it changed.
    package func changes(running sql: String, _ values: [Int64], on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, values.map { .integer($0) }).changes
    }

    /// Runs a query of integer parameters; its first value, nil for no row or NULL.
    package func integer(querying sql: String, _ values: [Int64], on connection: PostgresConnection) throws -> Int64? {
        let result = try connection.query(sql, values.map { .integer($0) })
        guard result.count > 0, !result.isNull(0, 0) else { return nil }
        return result.int64(0, 0)
    }
}
