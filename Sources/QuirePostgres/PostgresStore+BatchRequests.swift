import QuireCore
import QuireStores
import Foundation

extension PostgresStore: BatchExecutingStoreBackend {
    /// Runs a batch delete or update as one SQL statement on the entity's table, as the SQLite store does
    /// (`DELETE FROM … AS t0 WHERE …`, `UPDATE … AS t0 SET z_opt = z_opt + 1, … WHERE …`, ``SQLStore/batchStatement(_:table:)``), in one transaction
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
        guard var statement = try batchStatement(request, table: table) else { return nil }
        var externalNames: [String] = []
        if case .delete = request.operation {
            var seen = Set<String>()
            for case let (_, column) in ([entity] + entity.allSubentities).flatMap(externalColumns(of:))
            where seen.insert(column).inserted {
                externalNames.append(column)
            }
        }
        statement.sql += " RETURNING t0.z_pk, t0.z_ent" + externalNames.map { ", t0.\(dialect.quote($0))" }.joined()
        let sql = statement.sql
        let values = PostgresDialect.values(statement.compiledBindings) + statement.constants.map { PostgresDialect.value($0) }
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

extension PostgresStore {
    /// PostgreSQL keeps no attribute out of batch updates.
    package func keepsOutOfBatchUpdates(_ attribute: AttributeDescription) -> Bool { false }

    /// A batch request's condition; nil for a predicate PostgreSQL cannot evaluate, left to the pass over the
    /// records, which reports it.
    package func batchCondition(
        _ predicate: QueryPredicate, entity: EntityDescription, scope: SQLQueryScope, compiler: inout SQLPredicateCompiler
    ) throws -> String? {
        try? compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: scope))
    }

    /// PostgreSQL computes no batch update's expression: the pass over the records does.
    package func batchValue(
        _ expression: QueryExpression, for attribute: AttributeDescription, entity: EntityDescription,
        compiler: inout SQLPredicateCompiler
    ) -> String? {
        nil
    }
}
