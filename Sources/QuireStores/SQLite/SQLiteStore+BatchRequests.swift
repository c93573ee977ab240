import QuireCore
import Foundation

extension SQLiteStore: BatchExecutingStoreBackend {
    /// Runs a batch delete or update as one SQL statement on the entity's table (`DELETE FROM … WHERE …`,
    /// `UPDATE … SET Z_OPT = Z_OPT + 1, … WHERE …`), in one transaction, with `RETURNING Z_PK, Z_ENT` when the
    /// IDs are wanted. Returns nil, leaving the request to ``PersistentStoreBackend/executeBatchByRecords(_:)``,
    /// for what one statement cannot do right: a delete whose relationships need delete rules applied or
    /// join-table rows removed, an update of an attribute kept in external data files or maintained by the
    /// store's triggers, and a fetch with a limit or offset.
    package func executeBatchInStore(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        guard !options.isReadOnly else { throw readOnlyError() }
        let entity = request.entity
        guard let table = schema.table(for: entity) else { return StoreBatchResult(count: 0, objectIDs: request.wantsObjectIDs ? [] : nil) }
        let entities = [entity] + entity.allSubentities
        switch request.operation {
        case .delete:
            if entities.contains(where: { needsRecordPassForDelete($0) }) { return nil }
        case .update(let values):
            for (attribute, _) in values {
                if attribute.allowsExternalBinaryDataStorage || triggerMaintainedAttributes.contains(ObjectIdentifier(attribute))
                    || schema.column(of: attribute) == nil
                {
                    return nil
                }
            }
        }
        guard let (condition, initialBindings) = try batchCondition(request.target, entity: entity, table: table) else { return nil }
        var bindings = initialBindings
        let tableName = SQLiteSchema.quote(table.name)
        var sql: String
        switch request.operation {
        case .delete:
            sql = "DELETE FROM \(tableName) AS t0"
        case .update(let values):
            var assignments = ["Z_OPT = Z_OPT + 1"]
            for (attribute, value) in values {
                guard let column = schema.column(of: attribute) else { continue }
                switch value {
                case .constant(let constant):
                    bindings.append(constant)
                    assignments.append("\(SQLiteSchema.quote(column)) = ?\(bindings.count)")
                case .attribute(let source):
                    guard let sourceColumn = schema.column(of: source) else { return nil }
                    assignments.append("\(SQLiteSchema.quote(column)) = t0.\(SQLiteSchema.quote(sourceColumn))")
                }
            }
            sql = "UPDATE \(tableName) AS t0 SET " + assignments.joined(separator: ", ")
        }
        if let condition { sql += " WHERE " + condition }
        if request.wantsObjectIDs { sql += " RETURNING Z_PK, Z_ENT" }
        let connection = try db()
        let result: StoreBatchResult = try connection.transaction {
            try recordBatchHistory(request, table: tableName, condition: condition, bindings: bindings.prefix(initialBindings.count).map { $0 }, connection)
            let statement = try connection.prepare(sql)
            defer { statement.finalize() }
            for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
            guard request.wantsObjectIDs else {
                try statement.run()
                return StoreBatchResult(count: connection.changes)
            }
            var ids: [ObjectID] = []
            while try statement.step() {
                guard let rowEntity = self.entity(number: statement.int64(at: 1)) else { continue }
                ids.append(ObjectID(entity: rowEntity, store: store, primaryKey: statement.int64(at: 0)))
            }
            return StoreBatchResult(count: ids.count, objectIDs: ids)
        }
        if case .delete = request.operation, entities.contains(where: { $0.allAttributes.contains(where: \.allowsExternalBinaryDataStorage) }) {
            // Core Data leaves the files of deleted rows behind; Quire removes those no row refers to any more.
            try collectExternalData()
        }
        return result
    }

    /// Whether deleting rows of an entity by one statement would skip something a delete must do: a delete
    /// rule that reaches other rows (cascade, deny, nullify of an inverse to-one), or join-table rows.
    private func needsRecordPassForDelete(_ entity: EntityDescription) -> Bool {
        let inJoinTable = schema.allJoinTables.contains { join in
            [join.relationship.entity, join.relationship.resolvedDestination].contains { owner in owner.map(entity.isKind(of:)) ?? false }
        }
        return inJoinTable || entity.allRelationships.contains { relationship in
            guard !relationship.isTransient else { return false }
            switch relationship.deleteRule {
            case .cascade, .deny: return true
            case .nullify: return relationship.resolvedInverse.map { !$0.isToMany && !$0.isTransient } ?? false
            case .noAction: return false
            }
        }
    }

    /// The WHERE condition (over the alias `t0`) of a batch request's records and its bindings (numbered
    /// parameters); a nil condition matches every row of the table. Nil when the fetch has a limit or offset.
    private func batchCondition(
        _ target: StoreBatchRequest.Target, entity: EntityDescription, table: SQLiteSchema.Table
    ) throws -> (String?, [AttributeValue])? {
        switch target {
        case .objectIDs(let ids):
            let keys = ids.filter { $0.persistentStore === store && schema.table(for: $0.entity) === table }.compactMap(\.primaryKey)
            let list = "[" + keys.map(String.init).joined(separator: ",") + "]"
            return ("t0.Z_PK IN (SELECT value FROM json_each(?1))", [.string(list)])
        case .fetch(let fetch):
            guard fetch.limit == 0, fetch.offset == 0 else { return nil }
            let counter = SQLiteAliasCounter()
            let scope = SQLiteQueryScope(counter: counter)
            var conditions: [String] = []
            let numbers = fetch.includesSubentities ? schema.numbers.hierarchyNumbers(of: fetch.entity) : [schema.numbers.number(of: fetch.entity)]
            if numbers.count != 1 + table.root.allSubentities.count {
                conditions.append("t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
            }
            var compiler = SQLitePredicateCompiler(schema: schema, store: store, counter: counter)
            if let predicate = fetch.predicate, predicate != .true {
                conditions.append(try compileCondition(predicate, entity: fetch.entity, scope: scope, compiler: &compiler))
            }
            guard !conditions.isEmpty else { return (nil, []) }
            let condition = conditions.joined(separator: " AND ")
            if scope.joinSQL.isEmpty { return (condition, compiler.bindings) }
            // Key paths through to-one relationships need joins, which DELETE and UPDATE cannot have.
            let tableName = SQLiteSchema.quote(table.name)
            return ("t0.Z_PK IN (SELECT t0.Z_PK FROM \(tableName) t0\(scope.joinSQL) WHERE \(condition))", compiler.bindings)
        }
    }
}
