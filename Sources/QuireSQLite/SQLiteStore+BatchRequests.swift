import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore: BatchExecutingStoreBackend {
    /// Runs a batch delete or update as one SQL statement on the entity's table (``SQLStore/batchStatement(_:table:)``),
    /// in one transaction with its history, with `RETURNING Z_PK, Z_ENT` when the IDs are wanted; nil, leaving the
    /// request to ``PersistentStoreBackend/executeBatchByRecords(_:)``, where one statement cannot do it right, or
    /// where a computed value does not fit its attribute.
    package func executeBatchInStore(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        guard !options.isReadOnly else { throw readOnlyError() }
        let entity = request.entity
        guard let table = schema.table(for: entity) else { return StoreBatchResult(count: 0, objectIDs: request.wantsObjectIDs ? [] : nil) }
        guard var statement = try batchStatement(request, table: table) else { return nil }
        if request.wantsObjectIDs { statement.sql += " RETURNING Z_PK, Z_ENT" }
        let connection = try db()
        let result: StoreBatchResult
        do {
            result = try runBatchStatement(
                statement.sql, bindings: statement.compiledBindings + statement.constants,
                conditionBindings: statement.conditionBindings, request, table: statement.tableName,
                condition: statement.condition, connection)
        } catch where statement.computesValues && SQLiteBatchValueFunction.raised(error) {
            // A computed value does not fit its attribute: the transaction was rolled back, and the pass over the
            // records reports which value of which object, with the error a context's own save would give.
            return nil
        }
        let entities = [entity] + entity.allSubentities
        if case .delete = request.operation, entities.contains(where: { $0.allAttributes.contains(where: \.allowsExternalBinaryDataStorage) }) {
            // Core Data leaves the files of deleted rows behind; Quire removes those no row refers to any more.
            try collectExternalData()
        }
        return result
    }

    /// Attributes the store's triggers maintain are left to the pass over the records.
    package func keepsOutOfBatchUpdates(_ attribute: AttributeDescription) -> Bool {
        triggerMaintainedAttributes.contains(ObjectIdentifier(attribute))
    }

    /// A batch request's condition; a predicate SQLite cannot evaluate throws `invalidFetchRequest`.
    package func batchCondition(
        _ predicate: QueryPredicate, entity: EntityDescription, scope: SQLQueryScope, compiler: inout SQLPredicateCompiler
    ) throws -> String? {
        try compileCondition(predicate, entity: entity, scope: scope, compiler: &compiler)
    }

    /// Runs a batch request's statement in one transaction, with its history, and reads what it returns.
    private func runBatchStatement(
        _ sql: String, bindings: [AttributeValue], conditionBindings: [AttributeValue], _ request: StoreBatchRequest, table tableName: String,
        condition: String?, _ connection: SQLiteConnection
    ) throws -> StoreBatchResult {
        try connection.transaction {
            try recordBatchHistory(request, table: tableName, condition: condition, bindings: conditionBindings, connection)
            let statement = try connection.prepare(sql)
            defer { statement.finalize() }
            for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
            guard request.wantsObjectIDs else {
                try statement.run()
                return StoreBatchResult(count: connection.changes)
            }
            var ids: [ObjectID] = []
            while try statement.step() {
                let pk = statement.int64(at: 0)
                let rowEntity = try schema.entity(
                    number: statement.int64(at: 1), row: pk, kindOf: request.entity,
                    store: errorDescription, file: storeURL)
                ids.append(ObjectID(entity: rowEntity, store: store, primaryKey: pk))
            }
            return StoreBatchResult(count: ids.count, objectIDs: ids)
        }
    }

    /// The SQL computing a batch update's expression for each row (`t0`), wrapped in
    /// ``SQLiteBatchValueFunction`` so it converts as the in-memory pass would; nil when SQL cannot compute it
    /// exactly as the evaluator does (the pass over the records then does), or when it is not a value of the
    /// attribute's kind (the pass then reports the mismatch).
    package func batchValue(
        _ expression: QueryExpression, for attribute: AttributeDescription, entity: EntityDescription, compiler: inout SQLPredicateCompiler
    ) -> String? {
        guard SQLiteBatchValueFunction.converts(attribute.attributeType), let kind = SQLPredicateCompiler.Kind(attribute.attributeType)
        else { return nil }
        let scope = SQLQueryScope(counter: compiler.counter, dialect: dialect)
        let row = SQLPredicateCompiler.Row(alias: "t0", entity: entity, scope: scope)
        let sql: String
        switch try? compiler.scalar(expression, for: row) {
        case .scalar(let text, let found)? where found == kind: sql = text
        case .constant(let constant)? where constant.isNull || SQLPredicateCompiler.Kind(constant) == kind: sql = compiler.bind(constant)
        default: return nil
        }
        // UPDATE cannot join: an expression that needed a join is left to the pass over the records.
        guard scope.joinSQL.isEmpty else { return nil }
        return "\(SQLiteBatchValueFunction.name)(\(sql), '\(attribute.attributeType.rawValue)')"
    }
}
