import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// How many keys one batched statement reads (bound as one JSON array).
    static let batchKeyCount = 500

    /// The rows of many objects, one statement per table and 500 keys.
    package func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] {
        var keysByTable: [ObjectIdentifier: (table: CoreDataSchema.Table, keys: [Int64])] = [:]
        var tableOrder: [ObjectIdentifier] = []
        for id in objectIDs {
            guard id.isStored(in: store), let key = id.primaryKey, let table = schema.table(for: id.entity) else {
                continue
            }
            let tableID = ObjectIdentifier(table)
            if keysByTable[tableID] == nil {
                keysByTable[tableID] = (table, [])
                tableOrder.append(tableID)
            }
            keysByTable[tableID]?.keys.append(key)
        }
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(objectIDs.count)
        for tableID in tableOrder {
            guard let (table, keys) = keysByTable[tableID] else { continue }
            let sql = "SELECT \(selectList(table)) FROM \(SQLDialect.sqlite.quote(table.name)) t0 "
                + "WHERE t0.Z_PK IN (SELECT value FROM json_each(?1))"
            for start in stride(from: 0, to: keys.count, by: Self.batchKeyCount) {
                let chunk = keys[start..<min(keys.count, start + Self.batchKeyCount)]
                let statement = try db().cachedStatement(sql)
                defer { statement.reset() }
                statement.bind(Self.jsonArray(chunk), at: 1)
                while try statement.step() { rows.append(try snapshot(from: statement, expecting: table.root)) }
            }
        }
        return rows
    }

    /// ``SQLStore/relatedObjectIDs(of:relationship:)``'s query: the key list bound as JSON, the prepared
    /// statement kept by its SQL.
    package func visitKeyTriples(querying sql: String, keyList: String, _ body: (Int64, Int64, Int64) throws -> Void) throws {
        let statement = try db().cachedStatement(sql)
        defer { statement.reset() }
        statement.bind(keyList, at: 1)
        while try statement.step() { try body(statement.int64(at: 0), statement.int64(at: 1), statement.int64(at: 2)) }
    }

    /// 500 owners a statement, as ``snapshots(for:)`` reads rows.
    package var relatedKeysPerStatement: Int { Self.batchKeyCount }

    private static func jsonArray(_ keys: ArraySlice<Int64>) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }
}
