@_spi(QuireEngine) import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension PostgresStore: RowReadingStore {
    // MARK: Rows

    /// `z_pk, z_ent, z_opt`, then the table's columns (alias `t0`), in ``RowReader``'s column order.
    package func selectList(_ table: CoreDataSchema.Table) -> String {
        if let cached = selectLists[ObjectIdentifier(table)] { return cached }
        // Rows come in binary form; decimals (NUMERIC, whose binary form is base 10000) as their text.
        let list = (["z_pk", "z_ent", "z_opt"] + table.columns.map { SQLDialect.postgres.quote($0.name) + ($0.type == "DECIMAL" ? "::TEXT" : "") })
            .map { "t0.\($0)" }.joined(separator: ", ")
        selectLists[ObjectIdentifier(table)] = list
        return list
    }

    func reader(for entity: EntityDescription) -> RowReader? {
        if let reader = readers[ObjectIdentifier(entity)] { return reader }
        guard let reader = RowReader.reading(entity, in: schema) else { return nil }
        readers[ObjectIdentifier(entity)] = reader
        return reader
    }

    /// The reader of rows whose `z_ent` is `number`.
    package func reader(forEntityNumber number: Int64) -> RowReader? {
        schema.numbers.entity(number: number).flatMap(reader(for:))
    }

    /// The entity of a store's entity number (`z_ent`).
    package func entity(number: Int64) -> EntityDescription? { schema.numbers.entity(number: number) }

    /// Reads every row of a result selected with ``selectList(_:)`` from a query of `expected`'s rows
    /// (``RowReader/snapshot(from:in:expecting:)``), handing each to `body`.
    func visitSnapshots(
        _ result: PostgresResult, expecting expected: EntityDescription, _ body: (consuming RowSnapshot) throws -> Void
    ) throws {
        var cursor = PostgresRowCursor(result, display: displayURL, errorFile: errorURL)
        for row in 0..<Int32(result.count) {
            cursor.row = row
            try body(try RowReader.snapshot(from: cursor, in: self, expecting: expected))
        }
    }

    /// What errors call this store.
    package var errorDescription: String { "the PostgreSQL store '\(displayURL)'" }

    /// The redacted URL errors carry as their file.
    package var errorFile: URL? { errorURL }

    // MARK: Fetching

    package func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws {
        guard let result = try plannedRows(.rows, fetch) else { return }
        try visitSnapshots(result, expecting: fetch.entity, body)
    }

    package func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] {
        guard let result = try plannedRows(.objectIDs, fetch) else { return [] }
        return try (0..<result.count).map { row in
            let pk = result.int64(row, 0)
            let entity = try schema.entity(
                number: result.int64(row, 1), row: pk, kindOf: fetch.entity, store: errorDescription, file: errorURL)
            return ObjectID(entity: entity, store: store, primaryKey: pk)
        }
    }

    package func count(_ fetch: StoreFetch) throws -> Int {
        if fetch.limit > 0 || fetch.offset > 0 { return try fetchObjectIDs(fetch).count }
        guard let result = try plannedRows(.count, fetch), result.count == 1 else { return 0 }
        return Int(result.int64(0, 0))
    }

    /// `{1,2,3}`: keys as one array parameter.
    static func keyArray(_ keys: [Int64]) -> PostgresConnection.Value {
        .text("{" + keys.map(String.init).joined(separator: ",") + "}")
    }

    package func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] {
        var byTable: [ObjectIdentifier: (CoreDataSchema.Table, [Int64])] = [:]
        var order: [ObjectIdentifier] = []
        for id in objectIDs {
            guard id.persistentStore === store, let pk = id.primaryKey, let table = schema.table(for: id.entity) else { continue }
            let key = ObjectIdentifier(table)
            if byTable[key] == nil { order.append(key) }
            byTable[key, default: (table, [])].1.append(pk)
        }
        var rows: [RowSnapshot] = []
        for key in order {
            guard let (table, keys) = byTable[key] else { continue }
            let sql = keys.count == 1
                ? "SELECT \(selectList(table)) FROM \(SQLDialect.postgres.quote(table.name)) t0 WHERE t0.z_pk = $1::BIGINT"
                : "SELECT \(selectList(table)) FROM \(SQLDialect.postgres.quote(table.name)) t0 WHERE t0.z_pk = ANY($1::BIGINT[])"
            let result = try db().query(sql, [keys.count == 1 ? .integer(keys[0]) : Self.keyArray(keys)], binaryResult: true)
            try visitSnapshots(result, expecting: table.root) { rows.append($0) }
        }
        return rows
    }

    /// The row of an object read by key straight into its packed form, as a fired fault keeps it
    /// (``RowReader/packedSnapshot(from:in:expecting:builder:)``); nil when the record does not exist.
    package func faultRow(for objectID: ObjectID) throws -> FaultRow? {
        guard objectID.persistentStore === store, let pk = objectID.primaryKey, let table = schema.table(for: objectID.entity)
        else { return nil }
        let sql = "SELECT \(selectList(table)) FROM \(SQLDialect.postgres.quote(table.name)) t0 WHERE t0.z_pk = $1::BIGINT"
        let result = try db().query(sql, [.integer(pk)], binaryResult: true)
        guard result.count > 0 else { return nil }
        var cursor = PostgresRowCursor(result, display: displayURL, errorFile: errorURL)
        cursor.row = 0
        return .packed(try RowReader.packedSnapshot(from: cursor, in: self, expecting: table.root, builder: PackedRowBuilder()))
    }

    /// ``SQLStore/relatedObjectIDs(of:relationship:)``'s query: the key list bound as a `BIGINT[]` literal, the
    /// rows in binary form.
    package func visitKeyTriples(querying sql: String, keyList: String, _ body: (Int64, Int64, Int64) throws -> Void) throws {
        let result = try db().query(sql, [.text(keyList)], binaryResult: true)
        for row in 0..<result.count { try body(result.int64(row, 0), result.int64(row, 1), result.int64(row, 2)) }
    }

    /// Every owner in one query (the server takes a key array of any length).
    package var relatedKeysPerStatement: Int { Int.max }
}
