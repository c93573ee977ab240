import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// A dictionary fetch as one statement (``SQLDictionaryQuery`` in PostgreSQL's dialect); nil when its
    /// predicate, having predicate or sort keys do not compile, so the context computes it in memory.
    ///
    /// - Returns: One array of values per result row, in the order of the fetch's columns.
    package func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? {
        guard schema.table(for: request.fetch.entity) != nil else { return [] }
        guard let query = try SQLDictionaryQuery(request, schema: schema, store: store, dialect: .postgres) else { return nil }
        let result = try db().query(query.sql, PostgresDialect.values(query.bindings))
        var rows: [[DictionaryValue]] = []
        rows.reserveCapacity(result.count)
        for row in 0..<result.count {
            var values: [DictionaryValue] = []
            values.reserveCapacity(query.reads.count)
            for read in query.reads { values.append(try value(of: read, result, row)) }
            rows.append(values)
        }
        return rows
    }

    private func value(of read: SQLDictionaryQuery.Read, _ result: PostgresResult, _ row: Int) throws -> DictionaryValue {
        let column = read.column
        let index = read.index
        if result.isNull(row, index) { return .null }
        if column.function == nil, let relationship = column.relationship, let destination = relationship.resolvedDestination {
            var concrete = destination
            let pk = result.int64(row, index)
            if let entityIndex = read.entityIndex, !result.isNull(row, entityIndex) {
                concrete = try schema.entity(
                    number: result.int64(row, entityIndex), row: pk, kindOf: destination, store: errorDescription, file: errorURL)
            }
            return .object(ObjectID(entity: concrete, store: store, primaryKey: pk))
        }
        let external = column.function == nil && column.attribute?.allowsExternalBinaryDataStorage == true
        return .value(try attributeValue(result, row, index, type: column.readType ?? .integer64, external: external))
    }

    /// A value of a result column in its text form, as an attribute of a type has it (aggregates come as
    /// numbers of any form: `12`, `12.5`, `1e+20`).
    private func attributeValue(_ result: PostgresResult, _ row: Int, _ column: Int, type: AttributeType, external: Bool) throws -> AttributeValue {
        let text = result.string(row, column) ?? ""
        func damaged() -> QuireError {
            QuireError(
                .fileReadCorruptFile, "The PostgreSQL store '\(displayURL)' answered a dictionary fetch with '\(text.prefix(40))' "
                    + "where a value of type \(type.rawValue) belongs.", context: .init(file: errorURL))
        }
        switch type {
        case .integer16, .integer32, .integer64:
            if let integer = Int64(text) { return .integer(integer) }
            guard let double = Double(text), double.isFinite, abs(double) < 9.2e18 else { throw damaged() }
            return .integer(Int64(double))
        case .boolean: return .boolean((Double(text) ?? 0) != 0)
        case .double: return .double(result.double(row, column))
        case .float: return .float(Float(result.double(row, column)))
        case .decimal:
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw damaged() }
            return .decimal(decimal)
        case .string: return .string(text)
        case .uri:
            guard let url = URL(string: text) else { throw damaged() }
            return .uri(url)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: result.double(row, column)))
        case .binaryData, .transformable:
            let bytes = result.bytes(row, column) ?? Data()
            return external ? try ExternalDataFormat.decodeColumn(bytes, column: "column \(column) of a dictionary fetch") : .data(bytes)
        case .uuid:
            let bytes = [UInt8](result.bytes(row, column) ?? Data())
            guard bytes.count == 16 else { throw damaged() }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        }
    }
}
