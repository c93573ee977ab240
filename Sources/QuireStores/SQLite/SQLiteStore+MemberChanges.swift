import QuireCore

/// The SQLite store writes members recorded while their to-many relationships were faults.
extension SQLiteStore: MemberChangeApplyingBackend {
    /// Writes one saved object's ``SaveRequest/Change/memberChanges`` (``SQLMemberChanges``) on `connection`.
    func writeMemberChanges(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, _ connection: SQLiteConnection
    ) throws {
        guard !change.memberChanges.isEmpty else { return }
        let writer = SQLMemberChanges(
            schema: schema, quote: CoreDataSchema.quote, placeholder: { _ in "?" },
            run: { sql, values in
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
                try statement.run()
                return connection.changes
            },
            scalar: { sql, values in
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
                guard try statement.step(), !statement.isNull(at: 0) else { return nil }
                return statement.int64(at: 0)
            })
        try writer.write(change, id: id, map: map, inverseSides: inverseSides)
    }
}
