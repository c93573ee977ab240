import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

extension SQLiteStore {
    /// How many inserted rows of one entity a save writes with one statement (`INSERT … VALUES (…), (…), …`).
    ///
    /// Each execution of a statement costs SQLite about as much again as writing a small row: opening a cursor
    /// on the table and on each index, making the record buffers, halting and freeing them. Sixteen rows a
    /// statement leave a sixteenth of that per row (a save of 100,000 rows of `quire-bench`'s entity takes about
    /// a quarter fewer instructions inside SQLite); longer statements gain little more.
    package static let insertBatchSize = 16

    /// Whether `count` inserted changes from `start` on can be written as one batch: all of one entity, with
    /// permanent keys, and a statement whose parameters SQLite's limit allows.
    func canInsertBatch(
        _ inserted: UnsafeBufferPointer<SaveRequest.Change>, ids: [ObjectID], from start: Int, plan: WritePlan,
        _ connection: SQLiteConnection
    ) -> Bool {
        let count = Self.insertBatchSize
        guard start + count <= inserted.count, start + count <= ids.count else { return false }
        let parameters = plan.insertParameterCount * count
        guard parameters <= Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) else { return false }
        let entity = ObjectIdentifier(ids[start].entity)
        for index in start..<(start + count) where ObjectIdentifier(ids[index].entity) != entity || ids[index].primaryKey == nil {
            return false
        }
        return true
    }

    /// Inserts ``insertBatchSize`` rows of one entity with one statement: each row bound as ``writeRow`` binds it
    /// (the same parameters in the same order, strings and blobs lent), one step for all.
    ///
    /// The rows are bound one inside the next: each row's lent bytes stay lent (their scopes still open) while
    /// the later rows are bound and the statement steps, and the bindings are cleared before anything else uses
    /// the statement (see ``bindLendingBytes(_:slots:from:index:to:bindCopied:finish:)``).
    ///
    /// - Parameters:
    ///   - changes: The first of the rows' changes, followed by the others in order.
    ///   - ids: The rows' permanent IDs, in the same order.
    func writeInsertBatch(
        _ changes: UnsafePointer<SaveRequest.Change>, ids: ArraySlice<ObjectID>, plan: WritePlan, map: [ObjectID: ObjectID],
        _ connection: SQLiteConnection
    ) throws {
        let statement = try batchInsertStatement(plan: plan, connection)
        let writes = blobWrites
        let entityNumber = ids.first.map { Int64(schema.numbers.number(of: $0.entity)) } ?? 0
        defer { statement.clearBindings() }
        func bindRow(_ row: Int, at index: Int32) throws {
            guard row < ids.count else { return try statement.run() }
            let change = changes + row
            let id = ids[ids.startIndex + row]
            guard let pk = id.primaryKey else {
                throw QuireError(.persistentStoreSave, "An inserted object of '\(id.entity.name)' has no primary key.")
            }
            statement.bind(pk, at: index)
            statement.bind(entityNumber, at: index + 1)
            statement.bind(Int64(1), at: index + 2)
            try change.pointee.attributes.withUnsafeBufferPointer { attributes in
                try bindLendingBytes(
                    attributes, slots: plan.attributeSlots, from: 0, index: index + 3, to: statement,
                    bindCopied: { slot, external, index in
                        try bindCopied(attributes[slot], external: external, at: index, to: statement, writes: writes)
                    },
                    finish: { next in
                        try bindRow(row + 1, at: bindToOneKeys(of: change, slots: plan.relationshipSlots, map: map, from: next, to: statement))
                    })
            }
        }
        try bindRow(0, at: 1)
    }

    /// The prepared INSERT of ``insertBatchSize`` rows of a plan's entity, kept with the plan.
    private func batchInsertStatement(plan: WritePlan, _ connection: SQLiteConnection) throws -> SQLiteStatement {
        // Kept only for the connection that prepared it (a statement of another connection would write outside
        // this save's transaction).
        if let statement = plan.batchInsertStatement as? SQLiteStatement, statement.raw != nil, statement.connection === connection {
            statement.resetKeepingBindings()
            return statement
        }
        let row = "(" + Array(repeating: "?", count: plan.insertParameterCount).joined(separator: ", ") + ")"
        // `OR FAIL`: a statement that writes several rows and may abort halfway makes SQLite keep a statement
        // journal (written to a temporary file as it grows) to undo its own rows; with `OR FAIL` a failing row
        // stops the statement and keeps the rows before it, which needs no journal. Nothing is kept either way:
        // the error fails the save, and its transaction is rolled back whole.
        guard plan.insertSQL.hasPrefix("INSERT INTO ") else { throw QuireError(.persistentStoreSave, "Unexpected INSERT: \(plan.insertSQL)") }
        let sql = "INSERT OR FAIL INTO " + plan.insertSQL.dropFirst("INSERT INTO ".count)
            + String(repeating: ", " + row, count: Self.insertBatchSize - 1)
        let statement = try connection.cachedStatement(sql)
        plan.batchInsertStatement = statement
        return statement
    }
}

extension WritePlan {
    /// The number of parameters the single-row INSERT binds: `Z_PK, Z_ENT, Z_OPT`, the attributes, and each to-one's
    /// key and, where stored, entity number.
    var insertParameterCount: Int {
        3 + attributeSlots.count + relationshipSlots.reduce(0) { $0 + ($1.1 ? 2 : 1) }
    }
}
