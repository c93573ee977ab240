import QuireCore
import QuireStores

/// The PostgreSQL store writes members recorded while their to-many relationships were faults.
extension PostgresStore: MemberChangeApplyingBackend {
    /// Writes one saved object's ``SaveRequest/Change/memberChanges`` (``SQLMemberChanges``) on `connection`.
    func writeMemberChanges(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, _ connection: PostgresConnection
    ) throws {
        guard !change.memberChanges.isEmpty else { return }
        let writer = SQLMemberChanges(
            schema: schema, quote: PostgresDialect.quote, placeholder: { "$\($0)" },
            run: { sql, values in try connection.query(sql, values.map { .integer($0) }).changes },
            scalar: { sql, values in
                let result = try connection.query(sql, values.map { .integer($0) })
                guard result.count > 0, !result.isNull(0, 0) else { return nil }
                return result.int64(0, 0)
            })
        try writer.write(change, id: id, map: map, inverseSides: inverseSides)
    }
}
