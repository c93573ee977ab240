import QuireCore
import Foundation

extension SQLiteStore {
    /// The prepared statement of a fetch, its values bound: the fetch's shape (``SQLFetchShape``) finds the SQL
    /// compiled for an earlier fetch of the same shape and its prepared statement, so that repeated fetches
    /// that differ only in their constants compile nothing; the bindings then come from the fetch's own
    /// constants. A shape seen for the first time is compiled and remembered (at most
    /// ``SQLFetchPlanCache/capacity`` shapes, least recently used out).
    ///
    /// - Throws: ``SQLPredicateCompiler/Unsupported`` when the predicate does not compile; store errors.
    func plannedStatement(
        _ selection: SQLFetchShape.Selection, _ fetch: StoreFetch, table: CoreDataSchema.Table
    ) throws -> SQLiteStatement {
        let (sql, bindings, plan, compiled) = try fetchPlans.sql(
            for: fetch, selection: selection, sorted: selection != .count, store: store
        ) {
            var clauses = try self.clauses(fetch, table: table, sorted: selection != .count)
            clauses.sql = "SELECT \(selectionList(selection, table)) \(clauses.sql)"
            return clauses
        }
        if compiled { fetchCompilations += 1 }
        let statement: SQLiteStatement
        if let kept = plan?.statement as? SQLiteStatement {
            statement = try db().reuse(kept, sql: sql)
        } else {
            statement = try db().cachedStatement(sql)
            // Only the connection's own statement, which its closing finalizes (the store's closing drops plans).
            // Not a query generation's statement: its connection closes with the generation.
            if !statement.isOutsideCache, statement.connection === connection { plan?.statement = statement }
        }
        bind(bindings, fetch, to: statement)
        return statement
    }

    private func selectionList(_ selection: SQLFetchShape.Selection, _ table: CoreDataSchema.Table) -> String {
        switch selection {
        case .rows: return selectList(table)
        case .objectIDs: return "t0.Z_PK, t0.Z_ENT"
        case .count, .predicateOnly: return "COUNT(*)"
        }
    }

    /// Binds a predicate's values, then the fetch's limit and offset when it has them.
    private func bind(_ bindings: [AttributeValue], _ fetch: StoreFetch, to statement: SQLiteStatement) {
        for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        if fetch.limit > 0 || fetch.offset > 0 {
            statement.bind(.integer(fetch.limit > 0 ? Int64(fetch.limit) : -1), at: Int32(bindings.count + 1))
            statement.bind(.integer(Int64(fetch.offset)), at: Int32(bindings.count + 2))
        }
    }

    /// The error of a fetch whose predicate the store cannot evaluate.
    func unsupportedPredicateError(_ fetch: StoreFetch, _ error: SQLPredicateCompiler.Unsupported) -> QuireError {
        QuireError(
            .invalidFetchRequest,
            "The SQLite store '\(storeURL.path)' cannot evaluate the predicate '\(fetch.predicate ?? .true)' on entity "
                + "'\(fetch.entity.name)': \(error.reason).",
            context: .init(file: storeURL, entity: fetch.entity.name))
    }

    /// Reads the rows of a fetch as ``sqliteVisitRows(_:_:)`` does when the store evaluates its predicate,
    /// compiling it (or finding it compiled) once; returns false, having read nothing, when it does not.
    func sqliteVisitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool {
        guard case .evaluable(let statement) = try evaluableRowStatement(fetch) else { return false }
        guard let statement else { return true }
        defer { statement.reset() }
        while try statement.step() { try body(try snapshot(from: statement, expecting: fetch.entity)) }
        return true
    }

    /// ``sqliteVisitRowsIfEvaluable(_:_:)`` with each row read straight into its packed form
    /// (``RowReader/packedSnapshot(from:in:builder:)``).
    func sqliteVisitPackedRowsIfEvaluable(
        _ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void
    ) throws -> Bool {
        guard case .evaluable(let statement) = try evaluableRowStatement(fetch) else { return false }
        guard let statement else { return true }
        defer { statement.reset() }
        let builder = PackedRowBuilder()
        var memo = RowReaderMemo()
        while try statement.step() {
            try body(try RowReader.packedSnapshot(from: statement, in: self, expecting: fetch.entity, builder: builder, memo: &memo))
        }
        return true
    }

    /// The planned statement of a fetch's rows, when the store evaluates its predicate (nil for an entity
    /// without a table: no rows).
    private func evaluableRowStatement(_ fetch: StoreFetch) throws -> Evaluation<SQLiteStatement?> {
        guard let table = schema.table(for: fetch.entity) else { return .evaluable(nil) }
        do {
            return .evaluable(try plannedStatement(.rows, fetch, table: table))
        } catch is SQLPredicateCompiler.Unsupported {
            return .notEvaluable
        }
    }

    /// Whether a predicate on an entity compiles to SQL as a whole, remembered by the predicate's shape.
    func sqliteCanEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        evaluablePredicates.evaluates(predicate, for: entity, store: store) {
            let counter = SQLAliasCounter()
            var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter)
            fetchCompilations += 1
            let compiles =
                (try? compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: .init(counter: counter)))) != nil
            return (compiles, compiler.dependsOnParameterValues)
        }
    }
}
