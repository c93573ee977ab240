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
    package func save(_ request: SaveRequest) throws -> SaveResult {
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        // Keys are drawn before the transaction begins: a sequence is never rolled back, so a failed save loses
        // its keys either way, and the allocation's lock is then held for its one statement only.
        let keys = try allocatePrimaryKeys(request.inserted, connection)
        let result = try connection.transaction {
            var result = SaveResult()
            try assignPrimaryKeys(request.inserted, keys: keys, into: &result)
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
            // Asked once per run of one entity, not per object (each asking looks up the entity's write plan).
            var chunked: (entity: EntityDescription, answer: Bool)?
            for index in request.inserted.indices where index < result.permanentIDs.count {
                let id = result.permanentIDs[index]
                if chunked?.entity !== id.entity { chunked = (id.entity, mayWriteChunks(id.entity)) }
                if chunked?.answer == false {
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
            // Long runs of one entity go as COPY (which a pipeline cannot carry), before the pipeline.
            pipelinedInserts = try copyInserts(request.inserted, at: pipelinedInserts, ids: permanentIDs, map: map, connection)
            // The last insert of each multi-row INSERT, by its first insert's label.
            var batchEnds: [Int: Int] = [:]
            let unchanged = pipelinedInserts.isEmpty && pipelinedUpdates.isEmpty ? [] : try connection.pipelined(describe: { label in
                guard label < insertedCount else { return Self.describeWrite(insert: false, updated[label - insertedCount].objectID) }
                guard let end = batchEnds[label] else { return Self.describeWrite(insert: true, permanentIDs[label]) }
                return Self.describeInserts(permanentIDs[label], through: permanentIDs[end], count: end - label + 1)
            }) { pipeline in
                try sendInserts(request.inserted, at: pipelinedInserts, ids: permanentIDs, map: map, pipeline, connection) { first, last in
                    batchEnds[first] = last
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
            try snapshots(for: [$0]).first
        }
    }

    /// Keys for the inserted objects: one block of consecutive keys per hierarchy, by its table, drawn from the
    /// hierarchy's sequence in one statement (``allocateKeys(_:count:_:)``).
    private func allocatePrimaryKeys(
        _ inserted: [SaveRequest.Change], _ connection: PostgresConnection
    ) throws -> [ObjectIdentifier: ClosedRange<Int64>] {
        guard !inserted.isEmpty else { return [:] }
        // Saves insert runs of objects of one entity: the table is looked up, and counted, once per run; the
        // changes are read in place (iterating them would copy each, retaining and releasing its arrays).
        var needed: [ObjectIdentifier: (CoreDataSchema.Table, Int)] = [:]
        var run: (entity: ObjectIdentifier, table: CoreDataSchema.Table?, count: Int)?
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
        var keys: [ObjectIdentifier: ClosedRange<Int64>] = [:]
        for (id, (table, count)) in needed { keys[id] = try allocateKeys(table, count: count, connection) }
        return keys
    }

    /// Draws `count` consecutive keys from the table's sequence in one statement: `nextval` then `setval` past
    /// the block, under a transaction-scoped advisory lock of the sequence's own, so that no other allocation
    /// (each takes the same lock) draws between the two. Run outside a transaction, the statement is one, and the
    /// lock is held for that statement only: concurrent saves wait for each other's allocation, never for each
    /// other's transactions. The subquery taking the lock has a volatile function in its result, so PostgreSQL
    /// does not fold it into the outer query: it runs, and locks, before the outer query's `nextval`.
    func allocateKeys(_ table: CoreDataSchema.Table, count: Int, _ connection: PostgresConnection) throws -> ClosedRange<Int64> {
        let sequence = PostgresSchema.keySequence(table)
        let quoted = sequence.replacingOccurrences(of: "'", with: "''")
        let answer = try connection.query(
            "SELECT setval('\(quoted)', nextval('\(quoted)') + $1::BIGINT - 1) FROM (SELECT pg_advisory_xact_lock(hashtext($2::TEXT))) AS l",
            [.integer(Int64(count)), .text("quire-keys:\(connection.url.schema).\(sequence)")])
        let last = answer.count == 1 ? answer.int64(0, 0) : 0
        guard count > 0, last >= Int64(count) else {
            throw QuireError(.persistentStoreSave, "The key sequence \(sequence) of the PostgreSQL store '\(displayURL)' answered no keys.")
        }
        return (last - Int64(count) + 1)...last
    }

    /// Gives the inserted objects their keys from the blocks ``allocatePrimaryKeys(_:_:)`` drew, in order.
    private func assignPrimaryKeys(
        _ inserted: [SaveRequest.Change], keys: [ObjectIdentifier: ClosedRange<Int64>], into result: inout SaveResult
    ) throws {
        guard !inserted.isEmpty else { return }
        // The next key of each table's block.
        var next: [ObjectIdentifier: Int64] = keys.mapValues(\.lowerBound)
        result.permanentIDs.reserveCapacity(inserted.count)
        // The current run's table and next key are kept out of `next` while the run lasts, and put back after.
        var current: (entity: ObjectIdentifier, table: ObjectIdentifier?, key: Int64, end: Int64)?
        func putBack() {
            if let current, let table = current.table { next[table] = current.key }
        }
        for index in inserted.indices {
            let entity = inserted[index].objectID.entity
            if current?.entity != ObjectIdentifier(entity) {
                putBack()
                let table = schema.table(for: entity).map(ObjectIdentifier.init)
                let block = table.flatMap { keys[$0] }
                current = (ObjectIdentifier(entity), table, table.flatMap { next[$0] } ?? 1, block?.upperBound ?? 0)
            }
            guard let key = current?.key, current?.table != nil, key <= current?.end ?? 0 else {
                throw QuireError(.persistentStoreSave, "The entity '\(entity.name)' has no table in the PostgreSQL store '\(displayURL)'.")
            }
            current?.key = key + 1
            result.permanentIDs.append(ObjectID(entity: entity, store: store, primaryKey: key))
        }
    }

    /// The INSERT and UPDATE of an entity's rows and the slots they bind, built once per entity.
    func writePlan(for entity: EntityDescription) -> WritePlan? {
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

    /// What a failed multi-row INSERT was doing, for its error: "inserting the Item with z_pk 12 … the Item with
    /// z_pk 1011 (1000 rows in one statement)" (the server's message names the failing row's values).
    static func describeInserts(_ first: ObjectID, through last: ObjectID, count: Int) -> String {
        describeWrite(insert: true, first) + " … the \(last.entity.name) with z_pk \(last.primaryKey.map(String.init) ?? "?") "
            + "(\(count) rows in one statement)"
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
        guard let plan = writePlan(for: id.entity) else { return nil }
        // An update writes only the columns that changed when it can (``partialUpdate(for:plan:)``); not for an
        // entity whose values may be chunks: a save removes the chunks of the row's old names its change does not
        // hold again, which would take those of a value the UPDATE left in place (the SQLite store instead
        // collects the files no row refers to).
        let partial = insert || plan.attributeSlots.contains(where: { $0.1 }) ? nil
            : withUnsafePointer(to: change) { partialUpdate(for: $0, plan: plan) }
        var values: [PostgresConnection.Value] = []
        values.reserveCapacity(plan.attributeSlots.count + plan.relationshipSlots.count * 2 + 3)
        guard try visitRowValues(
            change, id: id, plan: plan, writing: partial.map { ($0.attributeSlots, $0.relationshipSlots) }, map: map,
            insert: insert, version: version, keeping: old, connection, { values.append($0) })
        else { return nil }
        return (insert ? plan.insertSQL : partial?.sql ?? plan.updateSQL, values)
    }

    /// Appends the values of one row's INSERT or UPDATE (``rowStatement(_:id:map:insert:version:keeping:_:)``) to
    /// `values`; false, appending nothing, for an object without a key.
    func appendRowValues(
        _ change: SaveRequest.Change, id: ObjectID, plan: WritePlan, map: [ObjectID: ObjectID], insert: Bool, version: Int64 = 1,
        keeping old: Set<String> = [], to values: inout [PostgresConnection.Value], _ connection: PostgresConnection
    ) throws -> Bool {
        try visitRowValues(change, id: id, plan: plan, map: map, insert: insert, version: version, keeping: old, connection) {
            values.append($0)
        }
    }

    /// Calls `visit` with the values of one row's INSERT or UPDATE in their parameters' order (for an insert
    /// `z_pk`, `z_ent`, `z_opt`, the attributes, the to-one keys; for an update the attributes, the to-one keys,
    /// `z_pk` and the version read; those of `writing` only, when given: a partial UPDATE's slots); false,
    /// visiting nothing, for an object without a key. Values stored as chunks are written on `connection` as they
    /// are met.
    func visitRowValues(
        _ change: SaveRequest.Change, id: ObjectID, plan: WritePlan,
        writing slots: (attributes: [(Int, Bool)], relationships: [(Int, Bool)])? = nil, map: [ObjectID: ObjectID],
        insert: Bool, version: Int64 = 1, keeping old: Set<String> = [], _ connection: PostgresConnection,
        _ visit: (PostgresConnection.Value) throws -> Void
    ) throws -> Bool {
        let entity = id.entity
        guard let pk = id.primaryKey else { return false }
        if insert {
            try visit(.integer(pk))
            try visit(.integer(Int64(schema.numbers.number(of: entity))))
            try visit(.integer(version))
        }
        for (slot, external) in slots?.attributes ?? plan.attributeSlots {
            try visit(
                external ? try storedExternalValue(change.attributes[slot], of: id, slot: slot, keeping: old, connection)
                    : PostgresDialect.value(change.attributes[slot]))
        }
        for (slot, withEntity) in slots?.relationships ?? plan.relationshipSlots {
            var target: ObjectID?
            if case .toOne(let related) = change.relationships[slot] { target = related.map { map[$0] ?? $0 } }
            try visit(target?.primaryKey.map { .integer($0) } ?? .null)
            if withEntity { try visit(target.map { .integer(Int64(schema.numbers.number(of: $0.entity))) } ?? .null) }
        }
        if !insert {
            try visit(.integer(pk))
            try visit(.integer(change.version))
        }
        return true
    }

    /// Sends the INSERTs of the objects at `indices` (none writes chunks): each run of one entity as multi-row
    /// INSERTs of up to ``maximumRowsPerInsert`` rows (fewer where the entity's columns would pass PostgreSQL's
    /// 65,535 parameters), the rest of a run in statements of 512, 256, … rows, so that an entity has at most a
    /// dozen INSERT statements prepared however many objects a save inserts. `batch` is told the first and last
    /// index of each multi-row INSERT, which is labelled with its first index.
    private func sendInserts(
        _ inserted: [SaveRequest.Change], at indices: [Int], ids: [ObjectID], map: [ObjectID: ObjectID], _ pipeline: PostgresPipeline,
        _ connection: PostgresConnection, batch: (Int, Int) -> Void
    ) throws {
        var values: [PostgresConnection.Value] = []
        try Self.forEachRunOfOneEntity(in: indices, ids: ids) { entity, run in
            guard let plan = writePlan(for: entity) else { return }
            let start = run.startIndex, end = run.endIndex
            let perRow = 3 + plan.attributeSlots.count + plan.relationshipSlots.reduce(0) { $0 + ($1.1 ? 2 : 1) }
            let most = max(1, min(Self.maximumRowsPerInsert, 65_535 / perRow))
            var position = start
            while position < end {
                let left = end - position
                // A full statement, or the largest power of two that fits what is left.
                let rows = left >= most ? most : 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
                values.removeAll(keepingCapacity: true)
                values.reserveCapacity(rows * perRow)
                var sent = 0
                for offset in position..<(position + rows) {
                    let index = indices[offset]
                    if try appendRowValues(inserted[index], id: ids[index], plan: plan, map: map, insert: true, to: &values, connection) {
                        sent += 1
                    }
                }
                let first = indices[position]
                if sent == 1 {
                    try pipeline.send(plan.insertSQL, values, label: first)
                } else if sent > 1 {
                    batch(first, indices[position + rows - 1])
                    try pipeline.send(insertSQL(plan, entity: entity, rows: sent, perRow: perRow), values, label: first)
                }
                position += rows
            }
        }
    }

    /// The most rows one multi-row INSERT writes.
    static let maximumRowsPerInsert = 1_000

    /// The INSERT of `rows` rows of an entity (`VALUES ($1, …), ($n+1, …), …`), built once per count.
    private func insertSQL(_ plan: WritePlan, entity: EntityDescription, rows: Int, perRow: Int) -> String {
        let key = MultiRowInsertKey(entity: ObjectIdentifier(entity), rows: rows)
        if let sql = multiRowInserts[key] { return sql }
        // The single-row INSERT's head (`INSERT INTO t (columns) VALUES `) and one tuple of placeholders per row.
        let head = plan.insertSQL.range(of: " VALUES (").map { String(plan.insertSQL[..<$0.lowerBound]) } ?? plan.insertSQL
        var sql = head + " VALUES "
        sql.reserveCapacity(head.count + rows * perRow * 8)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<perRow {
                sql += column == 0 ? "$" : ", $"
                sql += String(row * perRow + column + 1)
            }
            sql += ")"
        }
        multiRowInserts[key] = sql
        return sql
    }

    /// Deletes one row and its join-table rows; returns the names of the chunked values it referred to, or nil
    /// when the row was changed or gone.
    private func deleteRow(_ change: SaveRequest.Change, _ connection: PostgresConnection) throws -> Set<String>? {
        let entity = change.objectID.entity
        guard let table = schema.table(for: entity), let pk = change.objectID.primaryKey else { return [] }
        let q = dialect.quote
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

/// The key of a multi-row INSERT's SQL in ``PostgresStore/multiRowInserts``: the entity and the row count.
struct MultiRowInsertKey: Hashable {
    /// The entity whose rows the statement inserts.
    let entity: ObjectIdentifier
    /// How many rows it inserts.
    let rows: Int
}
