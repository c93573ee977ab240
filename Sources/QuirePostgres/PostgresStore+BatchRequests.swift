import QuireCore
import QuireStores
import Foundation

extension PostgresStore: BatchExecutingStoreBackend {
    /// Runs a batch delete or update as one SQL statement on the entity's table, as the SQLite store does
    /// (`DELETE FROM … AS t0 WHERE …`, `UPDATE … AS t0 SET z_opt = t0.z_opt + 1, … WHERE …`), in one transaction
    /// that also removes the chunked external values of deleted rows and announces the changed records to other
    /// coordinators (`pg_notify`, delivered at commit). Returns nil, leaving the request to
    /// ``PersistentStoreBackend/executeBatchByRecords(_:)``, for what one statement cannot do right: a delete whose
    /// relationships need delete rules applied or join-table rows removed, an update of an attribute kept as
    /// external data or set to a computed expression, a predicate PostgreSQL cannot evaluate, and a fetch with a
    /// limit or offset.
    package func executeBatchInStore(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        guard !options.isReadOnly else { throw readOnlyError() }
        let entity = request.entity
        guard let table = schema.table(for: entity) else { return StoreBatchResult(count: 0, objectIDs: request.wantsObjectIDs ? [] : nil) }
        let entities = [entity] + entity.allSubentities
        let q = PostgresDialect.quote
        var externalNames: [String] = []
        switch request.operation {
        case .delete:
            if entities.contains(where: schema.batchDeleteNeedsRecordPass) { return nil }
            var seen = Set<String>()
            for case let (_, column) in entities.flatMap(externalColumns(of:)) where seen.insert(column).inserted { externalNames.append(column) }
        case .update(let values):
            for (attribute, value) in values {
                if attribute.allowsExternalBinaryDataStorage || schema.column(of: attribute) == nil { return nil }
                if case .expression = value { return nil }
            }
        }
        let counter = SQLAliasCounter()
        var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: .postgres)
        // A predicate PostgreSQL cannot evaluate is left to the pass over the records, which reports it.
        guard
            let condition = schema.batchCondition(request.target, table: table, compiler: &compiler, compile: { predicate, entity, scope, compiler in
                try? compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: scope))
            })
        else { return nil }
        var values = PostgresDialect.values(compiler.bindings)
        var sql: String
        switch request.operation {
        case .delete:
            sql = "DELETE FROM \(q(table.name)) AS t0"
        case .update(let updates):
            var assignments = ["z_opt = t0.z_opt + 1"]
            for (attribute, value) in updates {
                guard let column = schema.column(of: attribute), let declared = schema.declaredType(of: attribute) else { return nil }
                switch value {
                case .constant(let constant):
                    values.append(PostgresDialect.value(constant))
                    assignments.append("\(q(column)) = $\(values.count)::\(PostgresDialect.columnType(declared))")
                case .attribute(let source):
                    guard let sourceColumn = schema.column(of: source) else { return nil }
                    assignments.append("\(q(column)) = t0.\(q(sourceColumn))")
                case .expression:
                    return nil
                }
            }
            sql = "UPDATE \(q(table.name)) AS t0 SET " + assignments.joined(separator: ", ")
        }
        if let condition { sql += " WHERE " + condition }
        sql += " RETURNING t0.z_pk, t0.z_ent" + externalNames.map { ", t0.\(q($0))" }.joined()
        let connection = try db()
        return try connection.transaction {
            let result = try connection.query(sql, values)
            var ids: [ObjectID] = []
            var unreferenced = Set<String>()
            ids.reserveCapacity(result.count)
            for row in 0..<result.count {
                let pk = result.int64(row, 0)
                let rowEntity = try schema.entity(
                    number: result.int64(row, 1), row: pk, kindOf: entity, store: errorDescription, file: errorURL)
                ids.append(ObjectID(entity: rowEntity, store: store, primaryKey: pk))
                if !externalNames.isEmpty { unreferenced.formUnion(Self.referencedNames(result, row: row, columns: 2..<(2 + externalNames.count))) }
            }
            try removeExternalData(unreferenced, connection)
            if !ids.isEmpty {
                if case .delete = request.operation {
                    try notifyChanges(inserted: [], updated: [], deleted: ids, connection)
                } else {
                    try notifyChanges(inserted: [], updated: ids, deleted: [], connection)
                }
            }
            return StoreBatchResult(count: ids.count, objectIDs: request.wantsObjectIDs ? ids : nil)
        }
    }
}
