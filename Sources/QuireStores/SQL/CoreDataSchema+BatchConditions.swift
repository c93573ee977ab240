import QuireCore

extension CoreDataSchema {
    /// The WHERE condition (over the alias `t0` of `table`) of a batch request's records, for the SQLite and
    /// PostgreSQL stores, its values bound in `compiler` (whose dialect it is written in); `.some(nil)` matches
    /// every row of the table. Nil when the request is one the store leaves to the pass over the records: a
    /// fetch with a limit or offset, or a predicate `compile` answers nil for.
    ///
    /// - Parameter compile: Compiles the fetch's predicate for a row of the scope, as the store compiles its
    ///   fetches' predicates (throwing the store's own error, or nil for the pass over the records).
    package func batchCondition(
        _ target: StoreBatchRequest.Target, table: Table, compiler: inout SQLPredicateCompiler,
        compile: (QueryPredicate, EntityDescription, SQLQueryScope, inout SQLPredicateCompiler) throws -> String?
    ) rethrows -> String?? {
        switch target {
        case .objectIDs(let ids):
            let keys = ids.filter { $0.persistentStore === compiler.store && self.table(for: $0.entity) === table }.compactMap(\.primaryKey)
            let list = compiler.dialect.keyList
            return .some(list.condition("t0.Z_PK", compiler.bind(.string(list.text(keys)))))
        case .fetch(let fetch):
            guard fetch.limit == 0, fetch.offset == 0 else { return nil }
            let scope = SQLQueryScope(counter: compiler.counter, dialect: compiler.dialect)
            var conditions: [String] = []
            let numbers = fetch.includesSubentities ? self.numbers.hierarchyNumbers(of: fetch.entity) : [self.numbers.number(of: fetch.entity)]
            if numbers.count != 1 + table.root.allSubentities.count {
                conditions.append("t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
            }
            if let predicate = fetch.predicate, predicate != .true {
                guard let compiled = try compile(predicate, fetch.entity, scope, &compiler) else { return nil }
                conditions.append(compiled)
            }
            guard !conditions.isEmpty else { return .some(nil) }
            let condition = conditions.joined(separator: " AND ")
            if scope.joinSQL.isEmpty { return .some(condition) }
            // Key paths through to-one relationships need joins, which DELETE and UPDATE cannot have.
            let tableName = compiler.dialect.quote(table.name)
            return .some("t0.Z_PK IN (SELECT t0.Z_PK FROM \(tableName) t0\(scope.joinSQL) WHERE \(condition))")
        }
    }
}
