import QuireCore

extension SQLStore {
    /// Writes one saved object's ``SaveRequest/Change/memberChanges`` (``SQLMemberChanges``) on `connection`,
    /// through the engine's statements of integers.
    package func writeMemberChanges(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, _ connection: Connection
    ) throws {
        guard !change.memberChanges.isEmpty else { return }
        let dialect = self.dialect
        let writer = SQLMemberChanges(
            schema: schema, quote: { dialect.quote($0) }, placeholder: { dialect.positional($0) },
            run: { sql, values in try self.changes(running: sql, values, on: connection) },
            scalar: { sql, values in try self.integer(querying: sql, values, on: connection) })
        try writer.write(change, id: id, map: map, inverseSides: inverseSides)
    }
}
