import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

extension SQLiteStore: RowReadingStore {
    /// The columns every row select lists: `Z_PK, Z_ENT, Z_OPT`, then the table's columns (alias `t0`).
    package func selectList(_ table: CoreDataSchema.Table) -> String {
        if let cached = selectLists[ObjectIdentifier(table)] { return cached }
        let list = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map { SQLDialect.sqlite.quote($0.name) })
            .map { "t0.\($0)" }.joined(separator: ", ")
        selectLists[ObjectIdentifier(table)] = list
        return list
    }

    /// The reader of rows whose `Z_ENT` is `number`, from an array indexed by entity number.
    package func reader(forEntityNumber number: Int64) -> RowReader? {
        if number > 0, number < readersByNumber.count, let reader = readersByNumber[Int(number)] { return reader }
        guard let entity = entity(number: number), let reader = reader(for: entity) else { return nil }
        if readersByNumber.count <= Int(number) {
            readersByNumber += Array(repeating: nil, count: Int(number) + 1 - readersByNumber.count)
        }
        readersByNumber[Int(number)] = reader
        return reader
    }

    package func reader(for entity: EntityDescription) -> RowReader? {
        if let reader = readers[ObjectIdentifier(entity)] { return reader }
        guard let reader = RowReader.reading(entity, in: schema) else { return nil }
        readers[ObjectIdentifier(entity)] = reader
        return reader
    }

    /// The entity of a store's entity number (`Z_ENT`), from the store's own numbering. Never inlined: the row
    /// reader calls it only for a to-one whose destination has sub-entities, and inlined there, its access to
    /// `schema` (checked at run time) was hoisted to run for every row.
    @inline(never)
    package func entity(number: Int64) -> EntityDescription? { schema.numbers.entity(number: number) }

    /// Reads the current row of a statement selected with ``selectList(_:)`` from a query of `expected`'s rows
    /// (``RowReader/snapshot(from:in:expecting:)``).
    @inline(__always)
    package func snapshot(from statement: SQLiteStatement, expecting expected: EntityDescription) throws -> RowSnapshot {
        try RowReader.snapshot(from: statement, in: self, expecting: expected)
    }

    /// What errors call this store.
    package var errorDescription: String { "the SQLite store '\(storeURL.path)'" }

    /// The file errors carry.
    package var errorFile: URL? { storeURL }

    // MARK: Fetching

    /// Reads the rows of a fetch one by one, handing each to `body` before the next is read.
    package func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws {
        guard let statement = try plannedRows(.rows, fetch) else { return }
        defer { statement.reset() }
        while try statement.step() { try body(try snapshot(from: statement, expecting: fetch.entity)) }
    }

    package func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] {
        guard let statement = try plannedRows(.objectIDs, fetch) else { return [] }
        var ids: [ObjectID] = []
        while try statement.step() {
            let pk = statement.int64(at: 0)
            let entity = try schema.entity(
                number: statement.int64(at: 1), row: pk, kindOf: fetch.entity, store: errorDescription, file: storeURL)
            ids.append(ObjectID(entity: entity, store: store, primaryKey: pk))
        }
        return ids
    }

    package func count(_ fetch: StoreFetch) throws -> Int {
        if fetch.limit > 0 || fetch.offset > 0 { return try fetchObjectIDs(fetch).count }
        guard let statement = try plannedRows(.count, fetch) else { return 0 }
        defer { statement.reset() }
        return try statement.step() ? Int(statement.int64(at: 0)) : 0
    }

    package func snapshot(for objectID: ObjectID) throws -> RowSnapshot? {
        try readRow(of: objectID) { statement, table in try snapshot(from: statement, expecting: table.root) }
    }

    /// The row of an object read by key straight into its packed form (``RowReader/packedSnapshot(from:in:expecting:builder:)``),
    /// as a fired fault keeps it; nil when the record does not exist.
    package func faultRow(for objectID: ObjectID) throws -> FaultRow? {
        try readRow(of: objectID) { statement, table in
            .packed(try RowReader.packedSnapshot(from: statement, in: self, expecting: table.root, builder: faultRowBuilder))
        }
    }

    /// Selects an object's row by key and hands the statement, on that row, and its table to `read`; nil when
    /// the record does not exist.
    private func readRow<T>(
        of objectID: ObjectID, _ read: (SQLiteStatement, CoreDataSchema.Table) throws -> T
    ) throws -> T? {
        guard let pk = objectID.primaryKey, let query = rowByKeyQuery(for: objectID.entity) else { return nil }
        let statement = try rowByKeyStatement(query)
        statement.bind(pk, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try read(statement, query.table)
    }

    /// The select of one row of `entity` by key, made once per entity: firing a fault finds it with one lookup
    /// by the entity's identity, not by hashing its SQL.
    private func rowByKeyQuery(for entity: EntityDescription) -> SQLiteRowByKeyQuery? {
        if let query = rowByKey[ObjectIdentifier(entity)] { return query }
        guard let table = schema.table(for: entity) else { return nil }
        let query = SQLiteRowByKeyQuery(
            table: table, sql: "SELECT \(selectList(table)) FROM \(SQLDialect.sqlite.quote(table.name)) t0 WHERE t0.Z_PK = ?")
        rowByKey[ObjectIdentifier(entity)] = query
        return query
    }

    /// The query's statement, reused as it was prepared when it can be (see ``SQLiteConnection/reuse(_:sql:)``).
    private func rowByKeyStatement(_ query: SQLiteRowByKeyQuery) throws -> SQLiteStatement {
        let current = try db()
        if let kept = query.statement { return try current.reuse(kept, sql: query.sql) }
        let statement = try current.cachedStatement(query.sql)
        // Only the store's own connection's statement, which its closing finalizes (the closing also drops the
        // queries); not a query generation's, whose connection closes with the generation.
        if !statement.isOutsideCache, statement.connection === connection { query.statement = statement }
        return statement
    }

    package func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        guard let pk = objectID.primaryKey, let destination = relationship.resolvedDestination,
            let destinationTable = schema.table(for: destination)
        else { return [] }
        let statement: SQLiteStatement
        if let key = schema.memberKey(for: relationship) {
            var sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(SQLDialect.sqlite.quote(key.table.name)) t0 "
                + "WHERE t0.\(SQLDialect.sqlite.quote(key.column)) = ?"
            if let order = key.orderColumn { sql += " ORDER BY t0.\(SQLDialect.sqlite.quote(order)), t0.Z_PK" }
            statement = try db().cachedStatement(sql)
        } else if let join = schema.joinTable(for: relationship) {
            let forward = join.relationship === relationship
            let source = forward ? join.sourceColumn : join.destinationColumn
            let member = forward ? join.destinationColumn : join.sourceColumn
            let orderColumn = forward ? join.orderColumn : join.inverseOrderColumn
            var sql = "SELECT d.Z_PK, d.Z_ENT FROM \(join.readSource(SQLDialect.sqlite.quote)) j "
                + "JOIN \(SQLDialect.sqlite.quote(destinationTable.name)) d "
                + "ON d.Z_PK = j.\(SQLDialect.sqlite.quote(member)) WHERE j.\(SQLDialect.sqlite.quote(source)) = ?"
            if let orderColumn { sql += " ORDER BY j.\(SQLDialect.sqlite.quote(orderColumn)), d.Z_PK" }
            statement = try db().cachedStatement(sql)
        } else {
            return []
        }
        statement.bind(pk, at: 1)
        var ids: [ObjectID] = []
        while try statement.step() {
            let member = statement.int64(at: 0)
            let entity = try schema.entity(
                number: statement.int64(at: 1), row: member, kindOf: destination, store: errorDescription, file: storeURL)
            ids.append(ObjectID(entity: entity, store: store, primaryKey: member))
        }
        return ids
    }
}
