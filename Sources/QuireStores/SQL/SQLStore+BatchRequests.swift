import QuireCore

/// The one statement of a batch delete or update on an entity's table (`DELETE FROM … AS t0 WHERE …`,
/// `UPDATE … AS t0 SET Z_OPT = Z_OPT + 1, … WHERE …`), without the `RETURNING` clause each engine adds.
package struct SQLBatchStatement {
    /// The statement.
    package var sql: String
    /// The values the compiler bound, in order: the condition's, then those of computed values.
    package var compiledBindings: [AttributeValue]
    /// The condition's values alone (SQLite's history reads the affected rows with them).
    package var conditionBindings: [AttributeValue]
    /// The constants an update sets, bound after ``compiledBindings``, each with its column's type.
    package var constants: [AttributeValue]
    /// The WHERE condition; nil for every row of the table.
    package var condition: String?
    /// The table, quoted.
    package var tableName: String
    /// Whether an update computes values with SQL (which may fail per row).
    package var computesValues: Bool
}

extension SQLStore {
    /// The statement of a batch delete or update (``SQLBatchStatement``), or nil, leaving the request to
    /// ``PersistentStoreBackend/executeBatchByRecords(_:)``, for what one statement cannot do right: a delete whose
    /// relationships need delete rules applied or join-table rows removed, an update of an attribute kept as
    /// external data, or one the engine keeps out (``keepsOutOfBatchUpdates(_:)``), a condition or computed value
    /// the engine does not compile (``batchCondition(_:entity:scope:compiler:)``,
    /// ``batchValue(_:for:entity:compiler:)``), and a fetch with a limit or offset.
    package func batchStatement(_ request: StoreBatchRequest, table: CoreDataSchema.Table) throws -> SQLBatchStatement? {
        let entity = request.entity
        let entities = [entity] + entity.allSubentities
        switch request.operation {
        case .delete:
            if entities.contains(where: schema.batchDeleteNeedsRecordPass) { return nil }
        case .update(let values):
            for (attribute, _) in values {
                if attribute.allowsExternalBinaryDataStorage || keepsOutOfBatchUpdates(attribute) || schema.column(of: attribute) == nil {
                    return nil
                }
            }
        }
        let counter = SQLAliasCounter()
        var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: dialect)
        guard
            let condition = try schema.batchCondition(request.target, table: table, compiler: &compiler, compile: { predicate, entity, scope, compiler in
                try batchCondition(predicate, entity: entity, scope: scope, compiler: &compiler)
            })
        else { return nil }
        let conditionBindings = compiler.bindings
        var expressionSQL: [ObjectIdentifier: String] = [:]
        if case .update(let values) = request.operation {
            for case (let attribute, .expression(let expression)) in values {
                guard let sql = batchValue(expression, for: attribute, entity: entity, compiler: &compiler) else { return nil }
                expressionSQL[ObjectIdentifier(attribute)] = sql
            }
        }
        let compiledBindings = compiler.bindings
        var constants: [AttributeValue] = []
        let tableName = dialect.quote(table.name)
        var sql: String
        switch request.operation {
        case .delete:
            sql = "DELETE FROM \(tableName) AS t0"
        case .update(let values):
            let version = dialect.plain("Z_OPT")
            var assignments = ["\(version) = \(version) + 1"]
            for (attribute, value) in values {
                guard let column = schema.column(of: attribute) else { continue }
                switch value {
                case .constant(let constant):
                    guard let declared = schema.declaredType(of: attribute) else { return nil }
                    constants.append(constant)
                    let index = compiledBindings.count + constants.count
                    assignments.append("\(dialect.quote(column)) = \(dialect.columnParameter(index, declared))")
                case .attribute(let source):
                    guard let sourceColumn = schema.column(of: source) else { return nil }
                    assignments.append("\(dialect.quote(column)) = t0.\(dialect.quote(sourceColumn))")
                case .expression:
                    guard let sql = expressionSQL[ObjectIdentifier(attribute)] else { return nil }
                    assignments.append("\(dialect.quote(column)) = \(sql)")
                }
            }
            sql = "UPDATE \(tableName) AS t0 SET " + assignments.joined(separator: ", ")
        }
        if let condition { sql += " WHERE " + condition }
        return SQLBatchStatement(
            sql: sql, compiledBindings: compiledBindings, conditionBindings: conditionBindings, constants: constants,
            condition: condition, tableName: tableName, computesValues: !expressionSQL.isEmpty)
    }
}
