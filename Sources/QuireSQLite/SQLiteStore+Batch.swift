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

    /// The members of a to-many relationship of many objects, one statement per 500 owners; every owner
    /// asked for has an entry.
    package func relatedObjectIDs(
        of objectIDs: [ObjectID], relationship: RelationshipDescription
    ) throws -> [ObjectID: [ObjectID]] {
        var owners: [Int64: ObjectID] = [:]
        var result: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs {
            result[id] = []
            if id.isStored(in: store), let key = id.primaryKey { owners[key] = id }
        }
        guard let destination = relationship.resolvedDestination, let destinationTable = schema.table(for: destination)
        else { return result }
        let sql: String
        if let key = schema.memberKey(for: relationship) {
            let column = SQLDialect.sqlite.quote(key.column)
            var order = "t0.\(column)"
            if let orderColumn = key.orderColumn { order += ", t0.\(SQLDialect.sqlite.quote(orderColumn))" }
            sql = "SELECT t0.\(column), t0.Z_PK, t0.Z_ENT FROM \(SQLDialect.sqlite.quote(key.table.name)) t0 WHERE t0.\(column) IN "
                + "(SELECT value FROM json_each(?1)) ORDER BY \(order), t0.Z_PK"
        } else if let join = schema.joinTable(for: relationship) {
            let forward = join.relationship === relationship
            let source = SQLDialect.sqlite.quote(forward ? join.sourceColumn : join.destinationColumn)
            let member = SQLDialect.sqlite.quote(forward ? join.destinationColumn : join.sourceColumn)
            var order = "j.\(source)"
            if let column = forward ? join.orderColumn : join.inverseOrderColumn {
                order += ", j.\(SQLDialect.sqlite.quote(column))"
            }
            sql = "SELECT j.\(source), d.Z_PK, d.Z_ENT FROM \(join.readSource(SQLDialect.sqlite.quote)) j JOIN "
                + "\(SQLDialect.sqlite.quote(destinationTable.name)) d ON d.Z_PK = j.\(member) WHERE j.\(source) IN "
                + "(SELECT value FROM json_each(?1)) ORDER BY \(order), d.Z_PK"
        } else {
            return result
        }
        let keys = Array(owners.keys).sorted()
        for start in stride(from: 0, to: keys.count, by: Self.batchKeyCount) {
            let statement = try db().cachedStatement(sql)
            defer { statement.reset() }
            statement.bind(Self.jsonArray(keys[start..<min(keys.count, start + Self.batchKeyCount)]), at: 1)
            while try statement.step() {
                guard let owner = owners[statement.int64(at: 0)] else { continue }
                let member = statement.int64(at: 1)
                let entity = try schema.entity(
                    number: statement.int64(at: 2), row: member, kindOf: destination,
                    store: "the SQLite store '\(storeURL.path)'", file: storeURL)
                result[owner, default: []].append(ObjectID(entity: entity, store: store, primaryKey: member))
            }
        }
        return result
    }

    private static func jsonArray(_ keys: ArraySlice<Int64>) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }
}
