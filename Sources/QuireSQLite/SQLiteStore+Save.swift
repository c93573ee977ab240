import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

extension SQLiteStore {
    /// Writes a save in one transaction: permanent keys from `Z_PRIMARYKEY`, inserts, optimistic-locked
    /// updates and deletes (`Z_OPT`), join-table rows and ordered-relationship keys.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreSaveConflicts`` naming the objects another context or
    ///   coordinator changed or deleted since they were read, with each one's row as the store has it now in
    ///   ``QuireError/conflicts``; the transaction is rolled back and nothing is written.
    package func save(_ request: SaveRequest) throws -> SaveResult {
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        let writes = externalDataFolder.map { ExternalDataWrites(folder: $0, threshold: options.externalDataThreshold) }
        blobWrites = writes
        defer { blobWrites = nil }
        let result: SaveResult
        do {
            result = try withSaveCache(for: request, connection) {
                try SQLiteFunctions.withDerivationDate(derivationDate(of: request), on: connection) { try transaction(request, connection) }
            }
        } catch {
            writes?.discard()
            throw error
        }
        metadataIsDirty = false
        if Self.mayUnreferenceExternalData(request) { try? collectExternalData() }
        return result
    }

    private func transaction(_ request: SaveRequest, _ connection: SQLiteConnection) throws -> SaveResult {
        try connection.transaction {
            var result = SaveResult()
            try assignPrimaryKeys(request.inserted, into: &result, connection)
            // Relationships may point at inserted objects by temporary ID; the map is needed only then.
            let map = request.referencesTemporaryIDs ? result.permanentIDsByTemporaryID(for: request) : [:]
            func permanent(_ id: ObjectID) -> ObjectID { map[id] ?? id }
            var conflicting: [SaveRequest.Change] = []
            // Deletes first: a record deleted and one inserted with its unique values in the same save (an
            // `.overwrite` constraint resolution) must not meet in a UNIQUE index.
            let tombstoneRows = try historyTombstoneRows(request)
            for change in request.deleted {
                if try !deleteRow(change, connection) { conflicting.append(change) }
            }
            // Through a buffer pointer: iterating the changes would copy each (its arrays retained and released).
            // The write plan is looked up once per run of one entity, and runs are written `insertBatchSize` rows
            // a statement (SQLiteStore+BatchInsert.swift), the rest one by one.
            let permanentIDs = result.permanentIDs
            try request.inserted.withUnsafeBufferPointer { inserted in
                var run: (entity: ObjectIdentifier, plan: WritePlan?)?
                var index = 0
                while index < inserted.count && index < permanentIDs.count {
                    let id = permanentIDs[index]
                    let plan: WritePlan?
                    if let run, run.entity == ObjectIdentifier(id.entity) {
                        plan = run.plan
                    } else {
                        plan = writePlan(for: id.entity)
                        run = (ObjectIdentifier(id.entity), plan)
                    }
                    guard let plan, let base = inserted.baseAddress else {
                        index += 1
                        continue
                    }
                    // Safe: `index` (and, for a batch, the `insertBatchSize - 1` changes after it, which
                    // `canInsertBatch` checked) is within the buffer, which lives for the whole closure.
                    if canInsertBatch(inserted, ids: permanentIDs, from: index, plan: plan, connection) {
                        let end = index + Self.insertBatchSize
                        try writeInsertBatch(base + index, ids: permanentIDs[index..<end], plan: plan, map: map, connection)
                        index = end
                    } else {
                        try writeRow(base + index, id: id, plan: plan, map: map, insert: true, version: 1, connection)
                        index += 1
                    }
                }
            }
            for change in request.updated {
                if try !writeRow(change, id: change.objectID, map: map, insert: false, connection) {
                    conflicting.append(change)
                }
            }
            if !conflicting.isEmpty { throw try conflictError(conflicting) }
            if metadataIsDirty { try SQLiteStore.write(metadata, connection) }
            // Join rows first, from the owning sides; then the inverse sides' order columns, which update rows
            // the owners may only just have inserted in this save.
            for inverseSides in [false, true] {
                for changes in [request.inserted, request.updated] {
                    // By buffer pointer, so that the changes without to-many relationships are not even copied.
                    try changes.withUnsafeBufferPointer { changes in
                        for index in changes.indices where changes[index].objectID.entity.hasToManyRelationships {
                            let id = permanent(changes[index].objectID)
                            try writeJoins(changes[index], id: id, map: map, inverseSides: inverseSides, connection)
                            if !inverseSides { try writeOrderKeys(changes[index], map: map, connection) }
                            try writeMemberChanges(changes[index], id: id, map: map, inverseSides: inverseSides, connection)
                        }
                    }
                }
            }
            if let writes = blobWrites, !writes.written.isEmpty {
                try recordExternalData(writes.lengths, connection)
                writes.finish()
            }
            try recordHistory(request, permanentIDs: result.permanentIDs, tombstoneRows: tombstoneRows, connection)
            return result
        }
    }

    /// The error of a save whose optimistic-locking check failed: each conflicting object with the store's
    /// row as it is now (read inside the failing transaction, before it is rolled back), or none when deleted.
    private func conflictError(_ conflicting: [SaveRequest.Change]) throws -> QuireError {
        try QuireError.saveConflicts(conflicting, in: "the store '\(storeURL.path)'", file: storeURL) { try snapshot(for: $0) }
    }

    private func assignPrimaryKeys(_ inserted: [SaveRequest.Change], into result: inout SaveResult, _ connection: SQLiteConnection) throws {
        guard !inserted.isEmpty else { return }
        let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        // Keys are unique across a hierarchy (one table), so every entity of it draws from one counter, kept on
        // the root's row as Core Data does; it starts above every row's value (Quire once kept one per entity)
        // and above the table's largest key (see `largestKey(of:_:)`).
        var counters: [ObjectIdentifier: Int64] = [:]
        var roots: [EntityDescription] = []
        result.permanentIDs.reserveCapacity(inserted.count)
        // The counter of the previous object's hierarchy is kept at hand (saves insert runs of one entity); it
        // goes back into `counters` when another hierarchy comes.
        var current: (root: ObjectIdentifier, next: Int64)?
        for index in inserted.indices {
            let objectID = inserted[index].objectID
            // A key reserved by obtainPermanentIDs (already counted in Z_MAX) is kept.
            if !objectID.isTemporaryID, objectID.primaryKey != nil {
                result.permanentIDs.append(objectID)
                continue
            }
            let entity = objectID.entity
            let root = entity.rootEntity
            var next: Int64
            if let run = current, run.root == ObjectIdentifier(root) {
                next = run.next
            } else {
                if let run = current { counters[run.root] = run.next }
                if let counter = counters[ObjectIdentifier(root)] {
                    next = counter
                } else {
                    next = try largestKey(of: root, connection)
                    roots.append(root)
                }
            }
            guard next < .max else { throw noKeysLeft(after: next, count: inserted.count - index, for: entity.name) }
            next += 1
            current = (ObjectIdentifier(root), next)
            result.permanentIDs.append(ObjectID(entity: entity, store: store, primaryKey: next))
        }
        if let run = current { counters[run.root] = run.next }
        for root in roots {
            update.reset()
            update.bind(counters[ObjectIdentifier(root)] ?? 0, at: 1)
            update.bind(Int64(schema.numbers.number(of: root)), at: 2)
            try update.run()
        }
    }

    /// Inserts or updates one row; returns false when an update found the row changed or gone.
    @discardableResult
    package func writeRow(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], insert: Bool, version: Int64 = 1,
        _ connection: SQLiteConnection
    ) throws -> Bool {
        guard let plan = writePlan(for: id.entity) else { return false }
        return try withUnsafePointer(to: change) { change in
            try writeRow(change, id: id, plan: plan, map: map, insert: insert, version: version, connection)
        }
    }

    /// ``writeRow(_:id:map:insert:version:_:)`` with the entity's write plan at hand (a save looks it up once
    /// per run of objects of one entity).
    @discardableResult
    ///
    /// The change comes by address, so that a save's loop over its request does not copy each change (with a
    /// retain and a release of each of its arrays) to pass it.
    private func writeRow(
        _ change: UnsafePointer<SaveRequest.Change>, id: ObjectID, plan: WritePlan, map: [ObjectID: ObjectID], insert: Bool, version: Int64,
        _ connection: SQLiteConnection
    ) throws -> Bool {
        let entity = id.entity
        guard let pk = id.primaryKey else { return false }
        // An update writes only the columns that changed where the change says which (Core Data's UPDATEs).
        let partial = try insert ? nil : partialUpdate(for: change, plan: plan, connection)
        let statement = try partial?.statement ?? writeStatement(for: entity, plan: plan, insert: insert, connection)
        let attributeSlots = partial?.attributeSlots ?? plan.attributeSlots
        let relationshipSlots = partial?.relationshipSlots ?? plan.relationshipSlots
        let first: Int32 = insert ? 4 : 1
        if insert {
            statement.bind(pk, at: 1)
            statement.bind(Int64(schema.numbers.number(of: entity)), at: 2)
            statement.bind(version, at: 3)
        }
        let writes = blobWrites
        // Strings and blobs are lent to SQLite for the step rather than copied (see `bindLendingBytes`), and taken
        // back in one call once it stepped, or failed.
        defer { statement.clearBindings() }
        try change.pointee.attributes.withUnsafeBufferPointer { attributes in
            try bindLendingBytes(
                attributes, slots: attributeSlots, from: 0, index: first, to: statement,
                bindCopied: { slot, external, index in
                    try bindCopied(attributes[slot], external: external, at: index, to: statement, writes: writes)
                },
                finish: { next in
                    let index = bindToOneKeys(of: change, slots: relationshipSlots, map: map, from: next, to: statement)
                    if !insert {
                        statement.bind(pk, at: index)
                        statement.bind(change.pointee.version, at: index + 1)
                    }
                    try statement.run()
                })
        }
        return insert || connection.changes == 1
    }

    /// Binds one attribute value the copying way: external-storage values through the save's blob writes.
    func bindCopied(
        _ value: AttributeValue, external: Bool, at index: Int32, to statement: SQLiteStatement, writes: ExternalDataWrites?
    ) throws {
        if external, let writes {
            statement.bind(try writes.stored(value, external: true), at: index, externalFormat: true)
        } else {
            statement.bind(value, at: index, externalFormat: external)
        }
    }

    /// Binds a change's to-one relationships of `slots` (a plan's `relationshipSlots`, or some of them) from
    /// parameter `index` on (each key, and the destination's entity number where the plan stores one; temporary
    /// IDs through `map`); returns the next parameter index.
    func bindToOneKeys(
        of change: UnsafePointer<SaveRequest.Change>, slots: [(Int, Bool)], map: [ObjectID: ObjectID], from index: Int32,
        to statement: SQLiteStatement
    ) -> Int32 {
        var index = index
        for (slot, withEntity) in slots {
            var target: ObjectID?
            if case .toOne(let related) = change.pointee.relationships[slot] { target = related.map { map[$0] ?? $0 } }
            if let key = target?.primaryKey { statement.bind(key, at: index) } else { statement.bindNull(at: index) }
            index += 1
            if withEntity {
                if let target {
                    statement.bind(Int64(schema.numbers.number(of: target.entity)), at: index)
                } else {
                    statement.bindNull(at: index)
                }
                index += 1
            }
        }
        return index
    }

    /// The prepared INSERT or UPDATE of an entity's rows, looked up by entity rather than by SQL text.
    private func writeStatement(
        for entity: EntityDescription, plan: WritePlan, insert: Bool, _ connection: SQLiteConnection
    ) throws -> SQLiteStatement {
        // Kept only for the connection that prepared it (a statement of another connection would write outside
        // this save's transaction); `raw` first: a statement whose connection closed was finalized.
        if let statement = (insert ? plan.insertStatement : plan.updateStatement) as? SQLiteStatement, statement.raw != nil,
           statement.connection === connection {
            // Every parameter is bound again, so a reset without clearing the bindings is enough.
            statement.resetKeepingBindings()
            return statement
        }
        let statement = try connection.cachedStatement(insert ? plan.insertSQL : plan.updateSQL)
        if insert { plan.insertStatement = statement } else { plan.updateStatement = statement }
        return statement
    }

    /// The INSERT and UPDATE of an entity's rows and the slots they bind, built once per entity.
    private func writePlan(for entity: EntityDescription) -> WritePlan? {
        if let plan = writePlans[ObjectIdentifier(entity)] { return plan }
        guard let plan = WritePlan.make(for: entity, schema: schema, dialect: .sqlite, excluding: triggerMaintainedAttributes) else { return nil }
        writePlans[ObjectIdentifier(entity)] = plan
        return plan
    }

    private func deleteRow(_ change: SaveRequest.Change, _ connection: SQLiteConnection) throws -> Bool {
        let entity = change.objectID.entity
        guard let table = schema.table(for: entity), let pk = change.objectID.primaryKey else { return true }
        let statement = try connection.cachedStatement("DELETE FROM \(SQLDialect.sqlite.quote(table.name)) WHERE Z_PK = ? AND Z_OPT = ?")
        statement.bind(pk, at: 1)
        statement.bind(change.version, at: 2)
        try statement.run()
        guard connection.changes == 1 else { return false }
        try JoinTableWrites.visitRemovals(of: entity, schema: schema, dialect: .sqlite) { sql in
            let remove = try connection.cachedStatement(sql)
            remove.bind(pk, at: 1)
            try remove.run()
        }
        return true
    }

    /// Join-table rows for the to-many relationships this object owns (the side that names the join table);
    /// the inverse side only updates its order column. The statements are planned by ``JoinTableWrites``.
    func writeJoins(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, _ connection: SQLiteConnection
    ) throws {
        var runner = SQLiteJoinStatementRunner(connection)
        try JoinTableWrites.visitJoins(change, id: id, map: map, inverseSides: inverseSides, schema: schema, dialect: .sqlite) {
            try runner.run($0, $1)
        }
    }

    /// `Z_FOK_` keys of the members of ordered to-many relationships kept by the members' foreign keys.
    func writeOrderKeys(_ change: SaveRequest.Change, map: [ObjectID: ObjectID], _ connection: SQLiteConnection) throws {
        var runner = SQLiteJoinStatementRunner(connection)
        try JoinTableWrites.visitOrderKeys(change, map: map, schema: schema, dialect: .sqlite) { try runner.run($0, $1) }
    }
}
