import QuireCore
import Foundation

extension SQLStore {
    /// The FROM, WHERE, ORDER BY and LIMIT clauses of a fetch in the store's dialect, with the predicate's
    /// values (limit and offset are bound after them, ``SQLDialect/limitClause(_:after:)``), as
    /// ``plannedRows(_:_:table:)`` caches them. Rows equal under every sort key come in primary-key order.
    ///
    /// - Throws: ``SQLPredicateCompiler/Unsupported`` when the predicate does not compile; `invalidFetchRequest`
    ///   for a sort key the store cannot sort by.
    package func clauses(_ fetch: StoreFetch, table: CoreDataSchema.Table, sorted: Bool) throws -> CompiledFetchSQL {
        let counter = SQLAliasCounter()
        let scope = SQLQueryScope(counter: counter, dialect: dialect)
        var order: [String] = []
        if sorted {
            for key in fetch.sortKeys {
                if key.sortsInMemory {
                    throw QuireError(
                        .invalidFetchRequest,
                        "The sort key '\(key.keyPath)' compares with Swift code, which \(dialect.name) cannot run; a context sorts such fetches in memory.",
                        context: .init(entity: fetch.entity.name, key: key.keyPath))
                }
                let resolved = try KeyPathResolver.resolve(key.keyPath, from: fetch.entity)
                let owner = scope.join(from: "t0", through: resolved.relationships, schema: schema)
                var expression: String
                if let attribute = resolved.attribute {
                    guard let column = schema.column(of: attribute) else {
                        throw QuireError(
                            .invalidFetchRequest, "Cannot sort by transient attribute '\(key.keyPath)' in \(errorDescription).",
                            context: .init(entity: fetch.entity.name, key: key.keyPath))
                    }
                    expression = "\(owner).\(dialect.quote(column))"
                    if attribute.attributeType == .decimal { expression = dialect.real(expression) }
                    order.append(
                        dialect.orderTerm(
                            expression, isString: attribute.attributeType == .string, comparator: key.comparator,
                            ascending: key.ascending))
                } else if let relationship = resolved.finalRelationship, let column = schema.foreignKeyColumn(of: relationship) {
                    expression = "\(owner).\(dialect.quote(column))"
                    order.append(dialect.orderTerm(expression, isString: false, comparator: key.comparator, ascending: key.ascending))
                } else {
                    throw QuireError(.invalidFetchRequest, "Cannot sort by '\(key.keyPath)'.", context: .init(entity: fetch.entity.name))
                }
            }
            if let keyOrder = dialect.keyOrder { order.append(keyOrder) }
        }
        var conditions: [String] = []
        let numbers = fetch.includesSubentities ? schema.numbers.hierarchyNumbers(of: fetch.entity) : [schema.numbers.number(of: fetch.entity)]
        if numbers.count != 1 + table.root.allSubentities.count {
            conditions.append("t0.\(dialect.plain("Z_ENT")) IN (\(numbers.map(String.init).joined(separator: ", ")))")
        }
        var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: dialect)
        if let predicate = fetch.predicate, predicate != .true {
            conditions.append(try compiler.compile(predicate, for: .init(alias: "t0", entity: fetch.entity, scope: scope)))
        }
        var sql = "FROM \(dialect.quote(table.name)) t0" + scope.joinSQL
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        sql += dialect.limitClause(fetch, after: compiler.bindings.count).sql
        return CompiledFetchSQL(
            sql: sql, predicateBindings: compiler.bindings, folds: compiler.bindingFolds,
            dependsOnParameterValues: compiler.dependsOnParameterValues)
    }

    /// What a fetch selects: whole rows (``selectList(_:)``), object IDs, or a count.
    private func selectionList(_ selection: SQLFetchShape.Selection, _ table: CoreDataSchema.Table) -> String {
        switch selection {
        case .rows: return selectList(table)
        case .objectIDs: return "t0.\(dialect.plain("Z_PK")), t0.\(dialect.plain("Z_ENT"))"
        case .count, .predicateOnly: return "COUNT(*)"
        }
    }

    /// The rows of a fetch's statement: the fetch's shape (``SQLFetchShape``) finds the SQL compiled for an
    /// earlier fetch of the same shape and its prepared statement, so that repeated fetches that differ only in
    /// their constants compile nothing; the values then come from the fetch's own constants. A shape seen for the
    /// first time is compiled and remembered (at most ``SQLFetchPlanCache/capacity`` shapes, least recently used
    /// out). The engine runs it (``runPlanned(_:_:plan:)``).
    ///
    /// - Throws: ``SQLPredicateCompiler/Unsupported`` when the predicate does not compile; store errors.
    package func plannedRows(
        _ selection: SQLFetchShape.Selection, _ fetch: StoreFetch, table: CoreDataSchema.Table
    ) throws -> PlannedRows {
        let sorted = selection != .count
        let (sql, bindings, plan, compiled) = try fetchPlans.sql(for: fetch, selection: selection, sorted: sorted, store: store) {
            var clauses = try self.clauses(fetch, table: table, sorted: sorted)
            clauses.sql = "SELECT \(selectionList(selection, table)) \(clauses.sql)"
            return clauses
        }
        if compiled { fetchCompilations += 1 }
        return try runPlanned(sql, bindings + dialect.limitBindings(fetch), plan: plan)
    }

    /// ``plannedRows(_:_:table:)`` of the fetch's entity's table, with a predicate that does not compile reported
    /// as the store's error (``unsupportedPredicateError(_:_:)``); nil for an entity without a table (no rows).
    package func plannedRows(_ selection: SQLFetchShape.Selection, _ fetch: StoreFetch) throws -> PlannedRows? {
        guard let table = schema.table(for: fetch.entity) else { return nil }
        do {
            return try plannedRows(selection, fetch, table: table)
        } catch let error as SQLPredicateCompiler.Unsupported {
            throw unsupportedPredicateError(fetch, error)
        }
    }

    /// The rows of a fetch, when the store evaluates its predicate (nil for an entity without a table: no rows).
    package func evaluableRows(_ fetch: StoreFetch) throws -> Evaluation<PlannedRows?> {
        guard let table = schema.table(for: fetch.entity) else { return .evaluable(nil) }
        do {
            return .evaluable(try plannedRows(.rows, fetch, table: table))
        } catch is SQLPredicateCompiler.Unsupported {
            return .notEvaluable
        }
    }

    /// The error of a fetch whose predicate the store cannot evaluate.
    package func unsupportedPredicateError(_ fetch: StoreFetch, _ error: SQLPredicateCompiler.Unsupported) -> QuireError {
        QuireError(
            .invalidFetchRequest,
            "\(errorDescription.prefix(1).uppercased())\(errorDescription.dropFirst()) cannot evaluate the predicate "
                + "'\(fetch.predicate ?? .true)' on entity '\(fetch.entity.name)': \(error.reason).",
            context: .init(file: errorFile, entity: fetch.entity.name))
    }

    /// Whether a predicate on an entity compiles to SQL as a whole, remembered by the predicate's shape.
    package func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        evaluablePredicates.evaluates(predicate, for: entity, store: store) {
            let counter = SQLAliasCounter()
            var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: dialect)
            fetchCompilations += 1
            let scope = SQLQueryScope(counter: counter, dialect: dialect)
            let compiles = (try? compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: scope))) != nil
            return (compiles, compiler.dependsOnParameterValues)
        }
    }

    /// The rows of a fetch, read one by one (``PersistentStoreBackend/visitRows(_:_:)``).
    package func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        try visitRows(fetch) { rows.append($0) }
        return rows
    }

    /// Whether a relationship and its inverse keep separate sides (``CoreDataSchema/keepsInverseApart(_:)``).
    package func keepsInverseApart(_ relationship: RelationshipDescription) -> Bool { CoreDataSchema.keepsInverseApart(relationship) }
}

extension SQLStore where Self: ImportingStoreBackend {
    /// Which pass of an import writes a relationship: the inverse side of a join table, whose order column needs
    /// the owners' rows, comes second.
    package func importPass(for relationship: RelationshipDescription) -> Int {
        guard let join = schema.joinTable(for: relationship) else { return 0 }
        return join.relationship === relationship ? 0 : 1
    }
}
