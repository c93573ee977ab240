@_spi(QuireEngine) import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension PostgresStore {
    /// Runs a fetch's planned SQL (``SQLStore/plannedRows(_:_:table:)``) with the server-side prepared statement
    /// made for it on this connection, so repeated fetches that differ only in their constants prepare nothing.
    /// A plan's prepared statement is used only on the connection that prepared it (``PostgresPreparedStatement``):
    /// after a reconnection the statement is prepared again.
    package func runPlanned(_ sql: String, _ bindings: [AttributeValue], plan: SQLFetchPlan?) throws -> PostgresResult {
        let values = PostgresDialect.values(bindings)
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

    /// Reads the rows of a fetch as ``visitRows(_:_:)`` does when the store evaluates its predicate, compiling
    /// it (or finding it compiled) once; returns false, having read nothing, when it does not.
    package func visitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool {
        guard case .evaluable(let result) = try evaluableRows(fetch) else { return false }
        if let result { try visitSnapshots(result, expecting: fetch.entity, body) }
        return true
    }

    /// ``visitRowsIfEvaluable(_:_:)`` with each row read straight into its packed form
    /// (``RowReader/packedSnapshot(from:in:builder:)``).
    package func visitPackedRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void) throws -> Bool {
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
}
