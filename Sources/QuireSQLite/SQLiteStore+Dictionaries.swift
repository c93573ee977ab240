import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// A dictionary fetch as one statement (``SQLDictionaryQuery``); nil when its predicate or having predicate
    /// does not compile, so the context computes it in memory.
    ///
    /// - Returns: One array of values per result row, in the order of the fetch's columns.
    package func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? {
        guard schema.table(for: request.fetch.entity) != nil else { return [] }
        guard let query = try SQLDictionaryQuery(request, schema: schema, store: store, dialect: .sqlite) else { return nil }
        let statement = try db().cachedStatement(query.sql)
        defer { statement.reset() }
        for (index, value) in query.bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        var rows: [[DictionaryValue]] = []
        while try statement.step() {
            var values: [DictionaryValue] = []
            values.reserveCapacity(query.reads.count)
            for read in query.reads {
                values.append(try value(of: read.column, statement, Int32(read.index), read.entityIndex.map(Int32.init)))
            }
            rows.append(values)
        }
        return rows
    }

    private func value(
        of column: DictionaryFetch.Column, _ statement: SQLiteStatement, _ index: Int32, _ entityIndex: Int32?
    ) throws -> DictionaryValue {
        if statement.isNull(at: index) { return .null }
        if column.function == nil, let relationship = column.relationship, let destination = relationship.resolvedDestination {
            var concrete = destination
            let pk = statement.int64(at: index)
            if let entityIndex, !statement.isNull(at: entityIndex) {
                concrete = try schema.entity(
                    number: statement.int64(at: entityIndex), row: pk, kindOf: destination,
                    store: "the SQLite store '\(storeURL.path)'", file: storeURL)
            }
            return .object(ObjectID(entity: concrete, store: store, primaryKey: pk))
        }
        let type = column.readType ?? .integer64
        let external = column.function == nil && column.attribute?.allowsExternalBinaryDataStorage == true
        return .value(try statement.attributeValue(at: index, type: type, externalFormat: external))
    }
}
