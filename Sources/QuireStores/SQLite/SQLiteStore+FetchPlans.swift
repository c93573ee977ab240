@_spi(QuireEngine) import QuireCore
import Foundation

extension SQLiteStore {
    /// Prepares (or reuses) the statement of a fetch's planned SQL (``SQLStore/plannedRows(_:_:table:)``) and
    /// binds its values: the plan's statement when it has one, else one from the connection's cache, kept in the
    /// plan.
    package func runPlanned(_ sql: String, _ bindings: [AttributeValue], plan: SQLFetchPlan?) throws -> SQLiteStatement {
        let statement: SQLiteStatement
        if let kept = plan?.statement as? SQLiteStatement {
            statement = try db().reuse(kept, sql: sql)
        } else {
            statement = try db().cachedStatement(sql)
            // Only the connection's own statement, which its closing finalizes (the store's closing drops plans).
            // Not a query generation's statement: its connection closes with the generation.
            if !statement.isOutsideCache, statement.connection === connection { plan?.statement = statement }
        }
        for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        return statement
    }

    /// Reads the rows of a fetch as ``visitRows(_:_:)`` does when the store evaluates its predicate,
    /// compiling it (or finding it compiled) once; returns false, having read nothing, when it does not.
    package func visitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool {
        guard case .evaluable(let statement) = try evaluableRows(fetch) else { return false }
        guard let statement else { return true }
        defer { statement.reset() }
        while try statement.step() { try body(try snapshot(from: statement, expecting: fetch.entity)) }
        return true
    }

    /// ``visitRowsIfEvaluable(_:_:)`` with each row read straight into its packed form
    /// (``RowReader/packedSnapshot(from:in:builder:)``).
    package func visitPackedRowsIfEvaluable(
        _ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void
    ) throws -> Bool {
        guard case .evaluable(let statement) = try evaluableRows(fetch) else { return false }
        guard let statement else { return true }
        defer { statement.reset() }
        let builder = PackedRowBuilder()
        var memo = RowReaderMemo()
        while try statement.step() {
            try body(try RowReader.packedSnapshot(from: statement, in: self, expecting: fetch.entity, builder: builder, memo: &memo))
        }
        return true
    }
}
