import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// Writes a save in one transaction (`READ COMMITTED`): keys from the hierarchies' sequences, inserts,
    /// optimistic-locked updates and deletes (`UPDATE … WHERE z_pk = $ AND z_opt = $`, which PostgreSQL
    /// re-checks against the row as another transaction committed it), join-table rows and order keys.
    ///
    /// Updates and deletes go in key order, so two saves touching the same rows lock them in the same order and
    /// never deadlock.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreSaveConflicts`` with one ``MergeConflict`` per object another
    ///   context, process or machine changed or deleted since it was read (nothing written);
    ///   ``QuireError/Code/postgresConnectionLost`` when the connection dropped (nothing written: the server rolls
    ///   the transaction back; the next request reconnects).
    func pgSave(_ request: SaveRequest) throws -> SaveResult {
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        let result = try connection.transaction {
            var result = SaveResult()
            try assignPrimaryKeys(request.inserted, into: &result, connection)
            let map = request.referencesTemporaryIDs ? result.permanentIDsByTemporaryID(for: request) : [:]
            func permanent(_ id: ObjectID) -> ObjectID { map[id] ?? id }
            var conflicting: [SaveRequest.Change] = []
            var unreferenced = Set<String>()
            // Deletes first, as in the SQLite store: a record deleted and one inserted with its unique values in
            // the same save (an `.overwrite` constraint resolution) must not meet in a UNIQUE index.
            for change in Self.lockOrder(request.deleted) {
                guard let names = try deleteRow(change, connection) else {
                    conflicting.append(change)
                    continue
                }
                unreferenced.formUnion(names)
            }
            // Rows with values stored as chunks are written one by one (their chunks are statements of their own);
            // the others go in one pipeline (``PostgresPipeline``), updates in key order after the inserts.
            let updated = Self.lockOrder(request.updated)
            var pipelinedInserts: [Int] = []
            var pipelinedUpdates: [Int] = []
            // By index: iterating the pairs would copy every change (its arrays retained and released).
            pipelinedInserts.reserveCapacity(request.inserted.count)
            for index in request.inserted.indices where index < result.permanentIDs.count {
                let id = result.permanentIDs[index]
                if !mayWriteChunks(id.entity) {
                    pipelinedInserts.append(index)
                } else {
                    try writeRow(request.inserted[index], id: id, map: map, insert: true, connection)
                }
            }
            for (index, change) in updated.enumerated() {
                guard mayWriteChunks(change.objectID.entity) else {
                    pipelinedUpdates.append(index)
                    continue
                }
                let old = try storedExternalNames(of: change.objectID, connection)
                if try writeRow(change, id: change.objectID, map: map, insert: false, keeping: old, connection) {
                    unreferenced.formUnion(old.subtracting(keptExternalNames(change, of: change.objectID, among: old)))
                } else {
                    conflicting.append(change)
                }
            }
            let insertedCount = request.inserted.count
            let permanentIDs = result.permanentIDs
            let unchanged = pipelinedInserts.isEmpty && pipelinedUpdates.isEmpty ? [] : try connection.pipelined(describe: { label in
                label < insertedCount
                    ? Self.describeWrite(insert: true, permanentIDs[label])
                    : Self.describeWrite(insert: false, updated[label - insertedCount].objectID)
            }) { pipeline in
                for index in pipelinedInserts {
                    guard let (sql, values) = try rowStatement(request.inserted[index], id: permanentIDs[index], map: map, insert: true, connection)
                    else { continue }
                    try pipeline.send(sql, values, label: index)
                }
                for index in pipelinedUpdates {
                    let change = updated[index]
                    guard let (sql, values) = try rowStatement(change, id: change.objectID, map: map, insert: false, connection) else {
                        conflicting.append(change)
                        continue
                    }
                    try pipeline.send(sql, values, label: insertedCount + index, expectsOneRow: true)
                }
            }
            conflicting += unchanged.map { updated[$0 - insertedCount] }
            if !conflicting.isEmpty { throw try conflictError(conflicting) }
            try removeExternalData(unreferenced, connection)
            if metadataIsDirty { try Self.write(metadata, connection) }
            if request.inserted.contains(where: { $0.objectID.entity.hasToManyRelationships })
                || request.updated.contains(where: { $0.objectID.entity.hasToManyRelationships })
            {
                for inverseSides in [false, true] {
                    // Join rows and order keys of the loaded relationships in one more pipeline, each object's
                    // statements labelled with its ID; then the members recorded while relationships were faults,
                    // which read the current last positions (so they cannot be pipelined). The owning sides of both
                    // are written before any inverse side numbers its rows.
                    var owners: [ObjectID] = []
                    _ = try connection.pipelined(describe: { Self.describeMemberWrites(owners[$0]) }) { pipeline in
                        for changes in [request.inserted, request.updated] {
                            for change in changes where change.objectID.entity.hasToManyRelationships {
                                owners.append(permanent(change.objectID))
                                try sendMemberWrites(
                                    change, id: owners[owners.count - 1], map: map, inverseSides: inverseSides, pipeline,
                                    label: owners.count - 1)
                            }
                        }
                    }
                    for changes in [request.inserted, request.updated] {
                        for change in changes where !change.memberChanges.isEmpty {
                            try writeMemberChanges(change, id: permanent(change.objectID), map: map, inverseSides: inverseSides, connection)
                        }
                    }
                }
            }
            try notifySave(request, permanentIDs: result.permanentIDs, connection)
            return result
        }
        metadataIsDirty = false
        return result
    }

    /// Changes sorted by table and key: the order rows are locked in.
    static func lockOrder(_ changes: [SaveRequest.Change]) -> [SaveRequest.Change] {
        changes.sorted {
            let a = ($0.objectID.entity.rootEntity.name, $0.objectID.primaryKey ?? 0)
            let b = ($1.objectID.entity.rootEntity.name, $1.objectID.primaryKey ?? 0)
            return a < b
        }
    }

    /// The error of a save whose optimistic-locking check failed (``QuireError/saveConflicts(_:in:file:row:)``).
    private func conflictError(_ conflicting: [SaveRequest.Change]) throws -> QuireError {
        try QuireError.saveConflicts(conflicting, in: "the PostgreSQL store '\(displayURL)'", file: errorURL) {
            try pgSnapshots(for: [$0]).first
        }
    }

    /// Keys for the inserted objects, drawn from each hierarchy's sequence in one statement per hierarchy.
    private func assignPrimaryKeys(_ inserted: [SaveRequest.Change], into result: inout SaveResult, _ connection: PostgresConnection) throws {
        guard !inserted.isEmpty else { return }
        // Saves insert runs of objects of one entity: the table is looked up, and counted, once per run; the
        // changes are read in place (iterating them would copy each, retaining and releasing its arrays).
        var needed: [ObjectIdentifier: (SQLiteSchema.Table, Int)] = [:]
        var run: (entity: ObjectIdentifier, table: SQLiteSchema.Table?, count: Int)?
        func countRun() {
            guard let run, let table = run.table else { return }
            needed[ObjectIdentifier(table), default: (table, 0)].1 += run.count
        }
        for index in inserted.indices {
            let entity = inserted[index].objectID.entity
            if let current = run, current.entity == ObjectIdentifier(entity) {
                run?.count += 1
            } else {
                countRun()
                run = (ObjectIdentifier(entity), schema.table(for: entity), 1)
            }
        }
        countRun()
        var keys: [ObjectIdentifier: [Int64]] = [:]
        for (id, (table, count)) in needed {
            let answer = try connection.query(
                "SELECT nextval('\(PostgresSchema.keySequence(table).replacingOccurrences(of: "'", with: "''"))') FROM generate_series(1, $1::INTEGER)",
                [.integer(Int64(count))])
            keys[id] = (0..<answer.count).map { answer.int64($0, 0) }.sorted().reversed()
        }
        result.permanentIDs.reserveCapacity(inserted.count)
        // The keys of the current run's table are taken out of `keys` while the run lasts, and put back after.
        var current: (entity: ObjectIdentifier, table: ObjectIdentifier?, keys: [Int64])?
        func putBack() {
            if let current, let table = current.table { keys[table] = current.keys }
        }
        for index in inserted.indices {
            let entity = inserted[index].objectID.entity
            if current?.entity != ObjectIdentifier(entity) {
                putBack()
                let table = schema.table(for: entity).map(ObjectIdentifier.init)
                current = (ObjectIdentifier(entity), table, table.flatMap { keys.removeValue(forKey: $0) } ?? [])
            }
            guard current?.table != nil, let key = current?.keys.popLast() else {
                throw QuireError(.persistentStoreSave, "The entity '\(entity.name)' has no table in the PostgreSQL store '\(displayURL)'.")
            }
            result.permanentIDs.append(ObjectID(entity: entity, store: store, primaryKey: key))
        }
    }

    /// The INSERT and UPDATE of an entity's rows and the slots they bind, built once per entity.
    private func writePlan(for entity: EntityDescription) -> WritePlan? {
        if let plan = writePlans[ObjectIdentifier(entity)] { return plan }
        guard let plan = WritePlan.make(for: entity, schema: schema, dialect: .postgres) else { return nil }
        writePlans[ObjectIdentifier(entity)] = plan
        return plan
    }

    /// Whether writing a row of the entity may write chunks (it has attributes stored externally), so that the
    /// row cannot go in a pipeline.
    func mayWriteChunks(_ entity: EntityDescription) -> Bool {
        writePlan(for: entity)?.attributeSlots.contains { $0.1 } ?? false
    }

    /// What a failed INSERT or UPDATE was doing, for its error: "inserting the Item with z_pk 12".
    static func describeWrite(insert: Bool, _ id: ObjectID) -> String {
        "\(insert ? "inserting" : "updating") the \(id.entity.name) with z_pk \(id.primaryKey.map(String.init) ?? "?")"
    }

    /// Inserts or updates one row; returns false when an update found the row changed or gone.
    @discardableResult
    func writeRow(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], insert: Bool, version: Int64 = 1,
        keeping old: Set<String> = [], _ connection: PostgresConnection
    ) throws -> Bool {
        guard let (sql, values) = try rowStatement(change, id: id, map: map, insert: insert, version: version, keeping: old, connection)
        else { return false }
        let result = try connection.query(sql, values)
        return insert || result.changes == 1
    }

    /// The INSERT or UPDATE of one row and its values (nil for an entity without a table or an object without
    /// a key); values stored as chunks are written on `connection` as they are met.
    func rowStatement(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], insert: Bool, version: Int64 = 1,
        keeping old: Set<String> = [], _ connection: PostgresConnection
    ) throws -> (sql: String, values: [PostgresConnection.Value])? {
        let entity = id.entity
        guard let plan = writePlan(for: entity), let pk = id.primaryKey else { return nil }
        var values: [PostgresConnection.Value] = []
        values.reserveCapacity(plan.attributeSlots.count + plan.relationshipSlots.count * 2 + 3)
        if insert {
            values += [.integer(pk), .integer(Int64(schema.numbers.number(of: entity))), .integer(version)]
        }
        for (slot, external) in plan.attributeSlots {
            values.append(
                external ? try storedExternalValue(change.attributes[slot], of: id, slot: slot, keeping: old, connection)
                    : PostgresDialect.value(change.attributes[slot]))
        }
        for (slot, withEntity) in plan.relationshipSlots {
            var target: ObjectID?
            if case .toOne(let related) = change.relationships[slot] { target = related.map { map[$0] ?? $0 } }
            values.append(target?.primaryKey.map { .integer($0) } ?? .null)
            if withEntity { values.append(target.map { .integer(Int64(schema.numbers.number(of: $0.entity))) } ?? .null) }
        }
        if !insert { values += [.integer(pk), .integer(change.version)] }
        return (insert ? plan.insertSQL : plan.updateSQL, values)
    }

    /// Deletes one row and its join-table rows; returns the names of the chunked values it referred to, or nil
    /// when the row was changed or gone.
    private func deleteRow(_ change: SaveRequest.Change, _ connection: PostgresConnection) throws -> Set<String>? {
        let entity = change.objectID.entity
        guard let table = schema.table(for: entity), let pk = change.objectID.primaryKey else { return [] }
        let q = PostgresDialect.quote
        let external = externalColumns(of: entity)
        let returning = external.isEmpty ? "" : " RETURNING " + external.map { q($0.column) }.joined(separator: ", ")
        let result = try connection.query(
            "DELETE FROM \(q(table.name)) WHERE z_pk = $1 AND z_opt = $2\(returning)", [.integer(pk), .integer(change.version)])
        guard result.changes == 1 else { return nil }
        let names = external.isEmpty ? [] : Self.referencedNames(result, row: 0, columns: 0..<external.count)
        try JoinTableWrites.visitRemovals(of: entity, schema: schema, dialect: .postgres) { try connection.query($0, [.integer(pk)]) }
        return names
    }

    /// Sends the join-table rows of the to-many relationships this object owns and the order keys of its
    /// ordered members (or, with `inverseSides`, the other side's order columns), as ``JoinTableWrites`` plans them.
    func sendMemberWrites(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, _ pipeline: PostgresPipeline, label: Int
    ) throws {
        func send(_ sql: String, _ parameters: JoinTableWrites.Parameters) throws {
            var values: [PostgresConnection.Value] = [.integer(parameters.first), .integer(parameters.second)]
            if let third = parameters.third { values.append(.integer(third)) }
            try pipeline.send(sql, values, label: label)
        }
        try JoinTableWrites.visitJoins(change, id: id, map: map, inverseSides: inverseSides, schema: schema, dialect: .postgres, send)
        if !inverseSides { try JoinTableWrites.visitOrderKeys(change, map: map, schema: schema, dialect: .postgres, send) }
    }

    /// What failed member writes were doing, for their error.
    static func describeMemberWrites(_ id: ObjectID) -> String {
        "writing the to-many relationships of the \(id.entity.name) with z_pk \(id.primaryKey.map(String.init) ?? "?")"
    }
}
