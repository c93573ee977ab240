import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// Runs a fetch's statement: the fetch's shape (``SQLFetchShape``) finds the SQL compiled for an earlier
    /// fetch of the same shape (the store's ``fetchPlans``, the cache the SQLite store uses) and the server-side
    /// prepared statement made for it on this connection, so repeated fetches that differ only in their
    /// constants compile and prepare nothing; the parameters come from the fetch's own constants. A plan's
    /// prepared statement is used only on the connection that prepared it (``PostgresPreparedStatement``): after
    /// a reconnection the statement is prepared again.
    ///
    /// - Throws: ``SQLPredicateCompiler/Unsupported`` when the predicate does not compile; store errors.
    func plannedQuery(_ selection: SQLFetchShape.Selection, _ fetch: StoreFetch, table: CoreDataSchema.Table) throws -> PostgresResult {
        let sorted = selection != .count
        let (sql, bindings, plan, compiled) = try fetchPlans.sql(for: fetch, selection: selection, sorted: sorted, store: store) {
            var clauses = try self.clauses(fetch, table: table, sorted: sorted)
            clauses.sql = "SELECT \(selectionList(selection, table)) \(clauses.sql)"
            return clauses
        }
        if compiled { fetchCompilations += 1 }
        var values = PostgresDialect.values(bindings)
        if fetch.limit > 0 || fetch.offset > 0 {
            values += [fetch.limit > 0 ? .integer(Int64(fetch.limit)) : .null, .integer(Int64(fetch.offset))]
        }
        let connection = try db()
        let statement: PostgresConnection.Prepared
        if let kept = plan?.statement as? PostgresPreparedStatement, kept.connection === connection {
            statement = kept.statement
        } else {
            statement = try connection.prepare(sql, values)
            plan?.statement = PostgresPreparedStatement(statement, connection: connection)
        }
        return try connection.runPrepared(statement, sql: sql, values, binaryResult: true)
    }

    private func selectionList(_ selection: SQLFetchShape.Selection, _ table: CoreDataSchema.Table) -> String {
        switch selection {
        case .rows: return selectList(table)
        case .objectIDs: return "t0.z_pk, t0.z_ent"
        case .count, .predicateOnly: return "COUNT(*)"
        }
    }

    /// The error of a fetch whose predicate the store cannot evaluate.
    func unsupportedPredicateError(_ fetch: StoreFetch, _ error: SQLPredicateCompiler.Unsupported) -> QuireError {
        QuireError(
            .invalidFetchRequest,
            "The PostgreSQL store '\(displayURL)' cannot evaluate the predicate '\(fetch.predicate ?? .true)' on entity "
                + "'\(fetch.entity.name)': \(error.reason).",
            context: .init(file: errorURL, entity: fetch.entity.name))
    }

    /// Reads the rows of a fetch as ``pgVisitRows(_:_:)`` does when the store evaluates its predicate, compiling
    /// it (or finding it compiled) once; returns false, having read nothing, when it does not.
    func pgVisitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool {
        guard case .evaluable(let result) = try evaluableRows(fetch) else { return false }
        if let result { try visitSnapshots(result, expecting: fetch.entity, body) }
        return true
    }

    /// ``pgVisitRowsIfEvaluable(_:_:)`` with each row read straight into its packed form
    /// (``RowReader/packedSnapshot(from:in:builder:)``).
    func pgVisitPackedRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void) throws -> Bool {
        guard case .evaluable(let result) = try evaluableRows(fetch) else { return false }
        guard let result else { return true }
        var cursor = PostgresRowCursor(result, display: displayURL, errorFile: errorURL)
        let builder = PackedRowBuilder()
        var memo = RowReaderMemo()
        for row in 0..<Int32(result.count) {
            cursor.row = row
            try body(try RowReader.packedSnapshot(from: cursor, in: self, expecting: fetch.entity, builder: builder, memo: &memo))
        }
        return true
    }

    /// The rows of a fetch, when the store evaluates its predicate (nil for an entity without a table).
    private func evaluableRows(_ fetch: StoreFetch) throws -> Evaluation<PostgresResult?> {
        guard let table = schema.table(for: fetch.entity) else { return .evaluable(nil) }
        do {
            return .evaluable(try plannedQuery(.rows, fetch, table: table))
        } catch is SQLPredicateCompiler.Unsupported {
            return .notEvaluable
        }
    }

    /// Whether a predicate on an entity compiles to SQL as a whole, remembered by the predicate's shape.
    func pgCanEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        evaluablePredicates.evaluates(predicate, for: entity, store: store) {
            let counter = SQLAliasCounter()
            var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: .postgres)
            let scope = SQLQueryScope(counter: counter, dialect: .postgres)
            fetchCompilations += 1
            let compiles = (try? compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: scope))) != nil
            return (compiles, compiler.dependsOnParameterValues)
        }
    }
}
