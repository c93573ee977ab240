import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// Persistent history in Core Data's own tables and entity numbers (seen in Core Data 1344 stores of the
/// corpus): `ATRANSACTION` (16002) with its strings in `ATRANSACTIONSTRING` (16003), and one `ACHANGE` (16001)
/// row per changed object, keys counted in `Z_PRIMARYKEY` like any entity's.
extension SQLiteStore: HistoryTrackingStoreBackend {
    /// Core Data's entity numbers of the history entities.
    static let historyChangeEntity: Int64 = 16001
    /// See ``historyChangeEntity``.
    static let historyTransactionEntity: Int64 = 16002
    /// See ``historyChangeEntity``.
    static let historyStringEntity: Int64 = 16003

    /// Core Data's DDL of the history tables and their indexes, exactly as the corpus stores have it.
    static let historySchema = [
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

    /// `ACHANGE`'s DDL with `count` tombstone columns after `ZCOLUMNS` (`ZTOMBSTONE0 BLOB`, …): one per
    /// preserved attribute of the entity that preserves the most. Without any it is Core Data's DDL as the
    /// corpus has it; the declared type of the tombstone columns (`BLOB`, so values keep their storage class) is
    /// as public schemas of Core Data stores (Photos) show it.
    static func historyChangeTableSQL(tombstoneColumns count: Int) -> String {
        var sql = historySchema[0]
        guard count > 0 else { return sql }
        sql.removeLast(2)
        for column in 0..<count { sql += ", ZTOMBSTONE\(column) BLOB" }
        return sql + " )"
    }

    /// The number of tombstone columns this store's entities need.
    private var tombstoneColumnCount: Int { StoreHistoryLayout.tombstoneColumnCount(entities) }

    /// Creates the history tables and their `Z_PRIMARYKEY` rows when missing (inside the caller's transaction);
    /// adds the tombstone columns an existing `ACHANGE` lacks (a model that preserves more than before).
    private func createHistoryTablesIfNeeded(_ connection: SQLiteConnection) throws {
        let tombstones = tombstoneColumnCount
        guard try !historyTablesExist(connection) else {
            if tombstones > 0 {
                let present = try historyTombstoneColumns(connection).count
                for column in present..<max(present, tombstones) {
                    try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(column) BLOB")
                }
            }
            return
        }
        try connection.execute(Self.historyChangeTableSQL(tombstoneColumns: tombstones))
        for statement in Self.historySchema.dropFirst() { try connection.execute(statement) }
        try connection.execute(
            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES "
                + "(16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)")
    }

    /// The tombstone columns `ACHANGE` has: `ZTOMBSTONE0`, `ZTOMBSTONE1`, … as far as they go.
    private func historyTombstoneColumns(_ connection: SQLiteConnection) throws -> [String] {
        let info = try connection.prepare("PRAGMA table_info(ACHANGE)")
        defer { info.finalize() }
        var names = Set<String>()
        while try info.step() { if let name = info.string(at: 1) { names.insert(name) } }
        var columns: [String] = []
        while names.contains("ZTOMBSTONE\(columns.count)") { columns.append("ZTOMBSTONE\(columns.count)") }
        return columns
    }

    /// The attribute values of the objects a save deletes whose entities preserve values in history, read from
    /// their rows before the rows go (called inside the save's transaction, before its deletes).
    func historyTombstoneRows(_ request: SaveRequest) throws -> [ObjectID: [AttributeValue]] {
        guard options.persistentHistoryTracking else { return [:] }
        let ids = request.deleted.map(\.objectID).filter { !StoreHistoryLayout.tombstoneAttributes($0.entity).isEmpty }
        guard !ids.isEmpty else { return [:] }
        var rows: [ObjectID: [AttributeValue]] = [:]
        for row in try snapshots(for: ids) { rows[row.objectID] = row.attributes }
        return rows
    }

    /// The largest key handed out for a history entity: its `Z_MAX`, or its table's largest `Z_PK` if larger.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreSave`` when fewer than `count` keys are left after it.
    private func historyMaximum(_ entity: Int64, table: String, reserving count: Int = 1, _ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT MAX(IFNULL((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?1), 0), IFNULL((SELECT MAX(Z_PK) FROM \(table)), 0))")
        defer { statement.reset() }
        statement.bind(entity, at: 1)
        let maximum = try statement.step() ? statement.int64(at: 0) : 0
        guard Self.hasKeys(after: maximum, count: count) else { throw noKeysLeft(after: maximum, count: count, for: table) }
        return maximum
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
    /// row per inserted (0), updated (1, with the changed properties in `ZCOLUMNS`) and deleted (2) object, a
    /// deleted object's preserved values in the `ZTOMBSTONE<n>` columns (from `tombstoneRows`, read by
    /// ``historyTombstoneRows(_:)`` before the deletes).
    func recordHistory(
        _ request: SaveRequest, permanentIDs: [ObjectID], tombstoneRows: [ObjectID: [AttributeValue]] = [:], _ connection: SQLiteConnection
    ) throws {
        guard options.persistentHistoryTracking, !request.isEmpty else { return }
        let transaction = try beginHistoryTransaction(author: request.transactionAuthor, contextName: request.contextName, connection)
        var key = try historyMaximum(
            Self.historyChangeEntity, table: "ACHANGE", reserving: permanentIDs.count + request.updated.count + request.deleted.count,
            connection)
        let tombstoneCount = tombstoneRows.isEmpty ? 0 : tombstoneColumnCount
        let tombstoneColumns = (0..<tombstoneCount).map { ", ZTOMBSTONE\($0)" }.joined()
        let tombstoneParameters = (0..<tombstoneCount).map { ", ?\($0 + 7)" }.joined()
        let insert = try connection.cachedStatement(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns)) "
                + "VALUES (?1, 16001, NULL, ?2, ?3, ?4, ?5, ?6\(tombstoneParameters))")
        func add(_ id: ObjectID, type: Int64, columns: Data?, tombstone: [AttributeValue]? = nil) throws {
            guard let pk = id.primaryKey else { return }
            key += 1
            insert.resetKeepingBindings()
            insert.bind(key, at: 1)
            insert.bind(type, at: 2)
            insert.bind(Int64(schema.numbers.number(of: id.entity)), at: 3)
            insert.bind(pk, at: 4)
            insert.bind(transaction, at: 5)
            if let columns { insert.bind(columns, at: 6) } else { insert.bindNull(at: 6) }
            if tombstoneCount > 0 {
                let preserved = tombstone == nil ? [] : StoreHistoryLayout.tombstoneAttributes(id.entity)
                for column in 0..<tombstoneCount {
                    // Each value as the attribute's own column stores it.
                    if column < preserved.count, let values = tombstone, preserved[column].slot < values.count {
                        insert.bind(values[preserved[column].slot], at: Int32(column + 7))
                    } else {
                        insert.bindNull(at: Int32(column + 7))
                    }
                }
            }
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
        for change in request.updated {
            try add(change.objectID, type: 1, columns: StoreHistoryLayout.columns(
                StoreHistoryLayout.changedPropertyNames(change), of: change.objectID.entity))
        }
        for change in request.deleted { try add(change.objectID, type: 2, columns: nil, tombstone: tombstoneRows[change.objectID]) }
        try setHistoryMaximum(Self.historyChangeEntity, key, connection)
    }

    /// Records a batch delete or update run as one statement: the transaction, then one `ACHANGE` row per row
    /// the statement will change, written by one `INSERT … SELECT` with the statement's own condition.
    func recordBatchHistory(
        _ request: StoreBatchRequest, table: String, condition: String?, bindings: [AttributeValue], _ connection: SQLiteConnection
    ) throws {
        guard options.persistentHistoryTracking else { return }
        let transaction = try beginHistoryTransaction(author: request.transactionAuthor, contextName: request.contextName, connection)
        let base = try historyMaximum(Self.historyChangeEntity, table: "ACHANGE", connection)
        var type: Int64 = 2
        var columns: Data?
        var tombstones = ""
        var tombstoneValues = ""
        if case .update(let values) = request.operation {
            type = 1
            columns = StoreHistoryLayout.columns(values.map(\.attribute.name), of: request.entity)
        } else {
            // Each deleted row's preserved values, copied from its columns by the same statement; in a hierarchy
            // whose entities preserve different attributes, chosen by the row's entity.
            let entities = [request.entity] + request.entity.allSubentities
            let count = StoreHistoryLayout.tombstoneColumnCount(entities)
            for column in 0..<count {
                var cases: [String] = []
                for entity in entities {
                    let preserved = StoreHistoryLayout.tombstoneAttributes(entity)
                    guard column < preserved.count, let name = schema.column(of: preserved[column]) else { continue }
                    cases.append("WHEN \(schema.numbers.number(of: entity)) THEN t0.\(SQLDialect.sqlite.quote(name))")
                }
                tombstones += ", ZTOMBSTONE\(column)"
                tombstoneValues += cases.isEmpty ? ", NULL" : ", CASE t0.Z_ENT " + cases.joined(separator: " ") + " END"
            }
        }
        let next = bindings.count
        var sql = "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones)) "
            + "SELECT ?\(next + 1) + row_number() OVER (ORDER BY t0.Z_PK), 16001, NULL, ?\(next + 2), t0.Z_ENT, t0.Z_PK, ?\(next + 3), ?\(next + 4)"
            + "\(tombstoneValues) FROM \(table) AS t0"
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
        let tombstoneColumns = try historyTombstoneColumns(connection)
        let changes = try connection.prepare(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS"
                + tombstoneColumns.map { ", " + $0 }.joined() + " FROM ACHANGE WHERE ZTRANSACTIONID >= ?1 ORDER BY Z_PK")
        defer { changes.finalize() }
        changes.bind(first, at: 1)
        while try changes.step() {
            guard let position = positions[changes.int64(at: 4)], let entity = entity(number: changes.int64(at: 2)) else { continue }
            let type = Int(changes.int64(at: 1))
            let columns = changes.isNull(at: 5) ? nil : changes.data(at: 5)
            var tombstone: [String: AttributeValue]?
            if type == 2 {
                let preserved = StoreHistoryLayout.tombstoneAttributes(entity)
                if !preserved.isEmpty {
                    var values: [String: AttributeValue] = [:]
                    for (column, attribute) in preserved.enumerated() where column < tombstoneColumns.count {
                        let value = try changes.attributeValue(at: Int32(6 + column), type: attribute.attributeType)
                        if !value.isNull { values[attribute.name] = value }
                    }
                    tombstone = values
                }
            }
            transactions[position].changes?.append(StoreHistoryChange(
                number: changes.int64(at: 0), objectID: ObjectID(entity: entity, store: store, primaryKey: changes.int64(at: 3)),
                type: type, updatedProperties: type == 1 ? columns.map { StoreHistoryLayout.propertyNames($0, of: entity) } : nil,
                tombstone: tombstone))
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
