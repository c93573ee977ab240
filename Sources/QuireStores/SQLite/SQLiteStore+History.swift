import QuireCore
import Foundation

/// Persistent history in Core Data's own tables and entity numbers (seen in Core Data 1344 stores of the
/// corpus): `ATRANSACTION` (16002) with its strings in `ATRANSACTIONSTRING` (16003), and one `ACHANGE` (16001)
/// row per changed object, keys counted in `Z_PRIMARYKEY` like any entity's.
extension SQLiteStore: HistoryTrackingStoreBackend {
    /// Core Data's entity numbers of the history entities.
    package static let historyChangeEntity: Int64 = 16001
    /// See ``historyChangeEntity``.
    package static let historyTransactionEntity: Int64 = 16002
    /// See ``historyChangeEntity``.
    package static let historyStringEntity: Int64 = 16003

    /// Core Data's DDL of the history tables and their indexes, exactly as the corpus stores have it.
    package static let historySchema = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    /// The bundle identifier and process name recorded with every transaction of this process.
    private static let processStrings: (bundleID: String, processID: String) = {
        let process = ProcessInfo.processInfo.processName
        return (Bundle.main.bundleIdentifier ?? process, process)
    }()

    /// Whether the history tables exist.
    private func historyTablesExist(_ connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.cachedStatement("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'ATRANSACTION'")
        defer { statement.reset() }
        return try statement.step() && statement.int64(at: 0) > 0
    }

    /// Creates the history tables and their `Z_PRIMARYKEY` rows when missing (inside the caller's transaction).
    private func createHistoryTablesIfNeeded(_ connection: SQLiteConnection) throws {
        guard try !historyTablesExist(connection) else { return }
        for statement in Self.historySchema { try connection.execute(statement) }
        try connection.execute(
            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES "
                + "(16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)")
    }

    /// The largest key handed out for a history entity: its `Z_MAX`, or its table's largest `Z_PK` if larger.
    private func historyMaximum(_ entity: Int64, table: String, _ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT MAX(IFNULL((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?1), 0), IFNULL((SELECT MAX(Z_PK) FROM \(table)), 0))")
        defer { statement.reset() }
        statement.bind(entity, at: 1)
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    private func setHistoryMaximum(_ entity: Int64, _ value: Int64, _ connection: SQLiteConnection) throws {
        let statement = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2")
        statement.bind(value, at: 1)
        statement.bind(entity, at: 2)
        try statement.run()
    }

    /// The key of a string in `ATRANSACTIONSTRING`, added when new; nil for nil.
    private func historyString(_ string: String?, _ connection: SQLiteConnection) throws -> Int64? {
        guard let string else { return nil }
        let select = try connection.cachedStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?1")
        select.bind(string, at: 1)
        if try select.step() {
            defer { select.reset() }
            return select.int64(at: 0)
        }
        select.reset()
        let key = try historyMaximum(Self.historyStringEntity, table: "ATRANSACTIONSTRING", connection) + 1
        let insert = try connection.cachedStatement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?1, 16003, NULL, ?2)")
        insert.bind(key, at: 1)
        insert.bind(string, at: 2)
        try insert.run()
        try setHistoryMaximum(Self.historyStringEntity, key, connection)
        return key
    }

    /// Adds a transaction row and returns its key. Core Data keeps the strings only through the `…TS` keys
    /// (its `ZAUTHOR`, `ZBUNDLEID`, `ZCONTEXTNAME`, `ZPROCESSID` columns are NULL in the corpus); so does Quire.
    private func beginHistoryTransaction(author: String?, contextName: String?, _ connection: SQLiteConnection) throws -> Int64 {
        try createHistoryTablesIfNeeded(connection)
        let key = try historyMaximum(Self.historyTransactionEntity, table: "ATRANSACTION", connection) + 1
        let strings = Self.processStrings
        let values = [
            try historyString(author, connection), try historyString(strings.bundleID, connection),
            try historyString(contextName, connection), try historyString(strings.processID, connection),
        ]
        let insert = try connection.cachedStatement(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) "
                + "VALUES (?1, 16002, NULL, ?2, ?3, ?4, ?5, ?6)")
        insert.bind(key, at: 1)
        for (index, value) in values.enumerated() {
            if let value { insert.bind(value, at: Int32(index + 2)) } else { insert.bindNull(at: Int32(index + 2)) }
        }
        insert.bind(Date().timeIntervalSinceReferenceDate, at: 6)
        try insert.run()
        try setHistoryMaximum(Self.historyTransactionEntity, key, connection)
        return key
    }

    /// Records a save in the history tables, inside its transaction: one `ATRANSACTION` row and one `ACHANGE`
    /// row per inserted (0), updated (1, with the changed properties in `ZCOLUMNS`) and deleted (2) object.
    package func recordHistory(_ request: SaveRequest, permanentIDs: [ObjectID], _ connection: SQLiteConnection) throws {
        guard options.persistentHistoryTracking, !request.isEmpty else { return }
        let transaction = try beginHistoryTransaction(author: request.transactionAuthor, contextName: request.contextName, connection)
        var key = try historyMaximum(Self.historyChangeEntity, table: "ACHANGE", connection)
        let insert = try connection.cachedStatement(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) "
                + "VALUES (?1, 16001, NULL, ?2, ?3, ?4, ?5, ?6)")
        func add(_ id: ObjectID, type: Int64, columns: Data?) throws {
            guard let pk = id.primaryKey else { return }
            key += 1
            insert.resetKeepingBindings()
            insert.bind(key, at: 1)
            insert.bind(type, at: 2)
            insert.bind(Int64(schema.numbers.number(of: id.entity)), at: 3)
            insert.bind(pk, at: 4)
            insert.bind(transaction, at: 5)
            if let columns { insert.bind(columns, at: 6) } else { insert.bindNull(at: 6) }
            try insert.run()
        }
        // Inserted objects get consecutive keys per hierarchy: each run of them is one INSERT … SELECT over the
        // run's keys, so a large save costs one statement per run rather than one per object.
        var index = 0
        while index < permanentIDs.count {
            let first = permanentIDs[index]
            guard let start = first.primaryKey else {
                index += 1
                continue
            }
            var end = index + 1
            while end < permanentIDs.count, permanentIDs[end].entity === first.entity,
                permanentIDs[end].primaryKey == start + Int64(end - index)
            {
                end += 1
            }
            if end - index < 8 {
                for id in permanentIDs[index..<end] { try add(id, type: 0, columns: nil) }
            } else {
                let run = try connection.cachedStatement(
                    "WITH RECURSIVE k(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM k WHERE n < ?2) "
                        + "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) "
                        + "SELECT ?3 + n - ?1, 16001, NULL, 0, ?4, n, ?5, NULL FROM k")
                run.bind(start, at: 1)
                run.bind(start + Int64(end - index - 1), at: 2)
                run.bind(key + 1, at: 3)
                run.bind(Int64(schema.numbers.number(of: first.entity)), at: 4)
                run.bind(transaction, at: 5)
                try run.run()
                key += Int64(end - index)
            }
            index = end
        }
        for change in request.updated { try add(change.objectID, type: 1, columns: Self.changedColumns(change)) }
        for change in request.deleted { try add(change.objectID, type: 2, columns: nil) }
        try setHistoryMaximum(Self.historyChangeEntity, key, connection)
    }

    /// Quire's `ZCOLUMNS` of an update: a bit set, bit `n` (byte `n / 8`, bit `n % 8`) for the entity's `n`-th
    /// persistent property, attributes by slot then relationships by slot. Core Data's own encoding of this
    /// column is not in the corpus (its stores record inserts only), so this layout is Quire's.
    package static func changedColumns(_ change: SaveRequest.Change) -> Data {
        let entity = change.objectID.entity
        var bits: [Int] = []
        if let committed = change.committedAttributes {
            for attribute in entity.allAttributes where !attribute.isTransient && attribute.slot < committed.count
                && attribute.slot < change.attributes.count && committed[attribute.slot] != change.attributes[attribute.slot]
            {
                bits.append(attribute.slot)
            }
        }
        if let committed = change.committedRelationships {
            for relationship in entity.allRelationships where !relationship.isTransient && relationship.slot < committed.count
                && relationship.slot < change.relationships.count
            {
                let now = change.relationships[relationship.slot]
                let then = committed[relationship.slot]
                if !now.isFault, !then.isFault, Set(now.objectIDs) != Set(then.objectIDs) {
                    bits.append(entity.allAttributes.count + relationship.slot)
                }
            }
        }
        return mask(bits, count: entity.allAttributes.count + entity.allRelationships.count)
    }

    /// A bit set of `count` bits with `bits` set.
    package static func mask(_ bits: [Int], count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: max(1, (count + 7) / 8))
        for bit in bits where bit >= 0 && bit / 8 < bytes.count { bytes[bit / 8] |= UInt8(1 << (bit % 8)) }
        return Data(bytes)
    }

    /// The names of the properties a `ZCOLUMNS` bit set names (see ``changedColumns(_:)``).
    private static func propertyNames(_ columns: Data, entity: EntityDescription) -> [String] {
        let properties: [PropertyDescription] = entity.allAttributes + entity.allRelationships
        var names: [String] = []
        for (byteIndex, byte) in columns.enumerated() {
            for bit in 0..<8 where byte & UInt8(1 << bit) != 0 {
                let index = byteIndex * 8 + bit
                if index < properties.count { names.append(properties[index].name) }
            }
        }
        return names
    }

    /// Records a batch delete or update run as one statement: the transaction, then one `ACHANGE` row per row
    /// the statement will change, written by one `INSERT … SELECT` with the statement's own condition.
    package func recordBatchHistory(
        _ request: StoreBatchRequest, table: String, condition: String?, bindings: [AttributeValue], _ connection: SQLiteConnection
    ) throws {
        guard options.persistentHistoryTracking else { return }
        let transaction = try beginHistoryTransaction(author: request.transactionAuthor, contextName: request.contextName, connection)
        let base = try historyMaximum(Self.historyChangeEntity, table: "ACHANGE", connection)
        var type: Int64 = 2
        var columns: Data?
        if case .update(let values) = request.operation {
            type = 1
            columns = Self.mask(values.map(\.attribute.slot), count: request.entity.allAttributes.count + request.entity.allRelationships.count)
        }
        let next = bindings.count
        var sql = "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) "
            + "SELECT ?\(next + 1) + row_number() OVER (ORDER BY t0.Z_PK), 16001, NULL, ?\(next + 2), t0.Z_ENT, t0.Z_PK, ?\(next + 3), ?\(next + 4) "
            + "FROM \(table) AS t0"
        if let condition { sql += " WHERE " + condition }
        let statement = try connection.prepare(sql)
        defer { statement.finalize() }
        for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        statement.bind(base, at: Int32(next + 1))
        statement.bind(type, at: Int32(next + 2))
        statement.bind(transaction, at: Int32(next + 3))
        if let columns { statement.bind(columns, at: Int32(next + 4)) } else { statement.bindNull(at: Int32(next + 4)) }
        try statement.run()
        try setHistoryMaximum(Self.historyChangeEntity, base + Int64(connection.changes), connection)
    }

    // MARK: Reading and deleting

    package func hasHistory() throws -> Bool {
        try options.persistentHistoryTracking || historyTablesExist(try db())
    }

    package func lastHistoryTransaction() throws -> Int64 {
        let connection = try db()
        guard try historyTablesExist(connection) else { return 0 }
        return try historyMaximum(Self.historyTransactionEntity, table: "ATRANSACTION", connection)
    }

    package func fetchHistory(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction] {
        let connection = try db()
        guard try historyTablesExist(connection) else { return [] }
        let (condition, value) = Self.historyCondition(bound, fetching: true)
        let select = try connection.prepare(
            "SELECT t.Z_PK, t.ZTIMESTAMP, IFNULL(a.ZNAME, t.ZAUTHOR), IFNULL(c.ZNAME, t.ZCONTEXTNAME), IFNULL(b.ZNAME, t.ZBUNDLEID), "
                + "IFNULL(p.ZNAME, t.ZPROCESSID) FROM ATRANSACTION t "
                + "LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS "
                + "LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS "
                + "WHERE \(condition) ORDER BY t.Z_PK")
        defer { select.finalize() }
        if let value { select.bind(value, at: 1) }
        var transactions: [StoreHistoryTransaction] = []
        var positions: [Int64: Int] = [:]
        while try select.step() {
            positions[select.int64(at: 0)] = transactions.count
            transactions.append(StoreHistoryTransaction(
                number: select.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: select.double(at: 1)),
                author: select.string(at: 2), contextName: select.string(at: 3), bundleID: select.string(at: 4),
                processID: select.string(at: 5), changes: includingChanges ? [] : nil))
        }
        guard includingChanges, let first = transactions.first?.number else { return transactions }
        let changes = try connection.prepare(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID >= ?1 ORDER BY Z_PK")
        defer { changes.finalize() }
        changes.bind(first, at: 1)
        while try changes.step() {
            guard let position = positions[changes.int64(at: 4)], let entity = entity(number: changes.int64(at: 2)) else { continue }
            let type = Int(changes.int64(at: 1))
            let columns = changes.isNull(at: 5) ? nil : changes.data(at: 5)
            transactions[position].changes?.append(StoreHistoryChange(
                number: changes.int64(at: 0), objectID: ObjectID(entity: entity, store: store, primaryKey: changes.int64(at: 3)),
                type: type, updatedProperties: type == 1 ? columns.map { Self.propertyNames($0, entity: entity) } : nil))
        }
        return transactions
    }

    package func deleteHistory(through bound: StoreHistoryBound) throws -> Int {
        guard !options.isReadOnly else { throw readOnlyError() }
        let connection = try db()
        guard try historyTablesExist(connection) else { return 0 }
        let (condition, value) = Self.historyCondition(bound, fetching: false)
        return try connection.transaction {
            let changes = try connection.prepare("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))")
            defer { changes.finalize() }
            if let value { changes.bind(value, at: 1) }
            try changes.run()
            let transactions = try connection.prepare("DELETE FROM ATRANSACTION AS t WHERE \(condition)")
            defer { transactions.finalize() }
            if let value { transactions.bind(value, at: 1) }
            try transactions.run()
            return connection.changes
        }
    }

    /// The condition on `ATRANSACTION t` of a bound, and the value it binds as `?1`.
    private static func historyCondition(_ bound: StoreHistoryBound, fetching: Bool) -> (String, AttributeValue?) {
        switch bound {
        case .all: return ("1", nil)
        case .transaction(let number): return (fetching ? "t.Z_PK > ?1" : "t.Z_PK <= ?1", .integer(number))
        case .date(let date): return (fetching ? "t.ZTIMESTAMP > ?1" : "t.ZTIMESTAMP < ?1", .double(date.timeIntervalSinceReferenceDate))
        }
    }
}
