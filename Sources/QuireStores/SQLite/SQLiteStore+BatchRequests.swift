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
            if entities.contains(where: schema.batchDeleteNeedsRecordPass) { return nil }
        case .update(let values):
            for (attribute, _) in values {
                if attribute.allowsExternalBinaryDataStorage || triggerMaintainedAttributes.contains(ObjectIdentifier(attribute))
                    || schema.column(of: attribute) == nil
                {
                    return nil
                }
            }
        }
        let counter = SQLAliasCounter()
        var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter)
        guard
            let condition = try schema.batchCondition(request.target, table: table, compiler: &compiler, compile: { predicate, entity, scope, compiler in
                try compileCondition(predicate, entity: entity, scope: scope, compiler: &compiler)
            })
        else { return nil }
        let conditionBindings = compiler.bindings
        var expressionSQL: [ObjectIdentifier: String] = [:]
        if case .update(let values) = request.operation {
            for case (let attribute, .expression(let expression)) in values {
                guard let sql = batchExpression(expression, for: attribute, entity: entity, compiler: &compiler) else { return nil }
                expressionSQL[ObjectIdentifier(attribute)] = sql
            }
        }
        var bindings = compiler.bindings
        let tableName = CoreDataSchema.quote(table.name)
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
                    assignments.append("\(CoreDataSchema.quote(column)) = ?\(bindings.count)")
                case .attribute(let source):
                    guard let sourceColumn = schema.column(of: source) else { return nil }
                    assignments.append("\(CoreDataSchema.quote(column)) = t0.\(CoreDataSchema.quote(sourceColumn))")
                case .expression:
                    guard let sql = expressionSQL[ObjectIdentifier(attribute)] else { return nil }
                    assignments.append("\(CoreDataSchema.quote(column)) = \(sql)")
                }
            }
            sql = "UPDATE \(tableName) AS t0 SET " + assignments.joined(separator: ", ")
        }
        if let condition { sql += " WHERE " + condition }
        if request.wantsObjectIDs { sql += " RETURNING Z_PK, Z_ENT" }
        let connection = try db()
        let result: StoreBatchResult
        do {
            result = try runBatchStatement(
                sql, bindings: bindings, conditionBindings: conditionBindings, request, table: tableName, condition: condition, connection)
        } catch where !expressionSQL.isEmpty && SQLiteBatchValueFunction.raised(error) {
            // A computed value does not fit its attribute: the transaction was rolled back, and the pass over the
            // records reports which value of which object, with the error a context's own save would give.
            return nil
        }
        if case .delete = request.operation, entities.contains(where: { $0.allAttributes.contains(where: \.allowsExternalBinaryDataStorage) }) {
            // Core Data leaves the files of deleted rows behind; Quire removes those no row refers to any more.
            try collectExternalData()
        }
        return result
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
                    store: "the SQLite store '\(storeURL.path)'", file: storeURL)
                ids.append(ObjectID(entity: rowEntity, store: store, primaryKey: pk))
            }
            return StoreBatchResult(count: ids.count, objectIDs: ids)
        }
    }

    /// The SQL computing a batch update's expression for each row (`t0`), wrapped in
    /// ``SQLiteBatchValueFunction`` so it converts as the in-memory pass would; nil when SQL cannot compute it
    /// exactly as the evaluator does (the pass over the records then does), or when it is not a value of the
    /// attribute's kind (the pass then reports the mismatch).
    private func batchExpression(
        _ expression: QueryExpression, for attribute: AttributeDescription, entity: EntityDescription, compiler: inout SQLPredicateCompiler
    ) -> String? {
        guard SQLiteBatchValueFunction.converts(attribute.attributeType), let kind = SQLPredicateCompiler.Kind(attribute.attributeType)
        else { return nil }
        let scope = SQLQueryScope(counter: compiler.counter)
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
