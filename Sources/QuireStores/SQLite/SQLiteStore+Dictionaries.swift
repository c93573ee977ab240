import QuireCore
import Foundation

extension SQLiteStore {
    /// A dictionary fetch as one statement: `SELECT [DISTINCT] … FROM … WHERE … GROUP BY … HAVING … ORDER BY
    /// … LIMIT …`; nil when its predicate or having predicate does not compile, so the context computes it in
    /// memory.
    ///
    /// - Returns: One array of values per result row, in the order of the fetch's columns.
    package func sqliteFetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? {
        let fetch = request.fetch
        guard let table = schema.table(for: fetch.entity) else { return [] }
        let counter = SQLiteAliasCounter()
        let scope = SQLiteQueryScope(counter: counter)
        var compiler = SQLitePredicateCompiler(schema: schema, store: store, counter: counter)
        let row = SQLitePredicateCompiler.Row(alias: "t0", entity: fetch.entity, scope: scope)

        // The selected values; a relationship also selects its destination's entity number when it varies.
        var selects: [String] = []
        var reads: [(column: DictionaryFetch.Column, index: Int32, entityIndex: Int32?)] = []
        var names: [String: SQLitePredicateCompiler.Operand] = [:]
        var expressions: [String: (sql: String, isString: Bool)] = [:]
        // median:, mode: and stddev: are computed in memory over the fetched values.
        if request.columns.contains(where: { [.median, .mode, .stddev].contains($0.function) }) { return nil }
        for column in request.columns {
            let compiled: (sql: String, operand: SQLitePredicateCompiler.Operand, entitySQL: String?)
            do {
                compiled = try expression(for: column, from: fetch.entity, scope: scope, compiler: &compiler)
            } catch is SQLitePredicateCompiler.Unsupported {
                return nil
            }
            let (sql, operand, entitySQL) = compiled
            reads.append((column, Int32(selects.count), entitySQL.map { _ in Int32(selects.count + 1) }))
            selects.append(sql)
            if let entitySQL { selects.append(entitySQL) }
            names[column.name] = operand
            var isString = column.attribute?.attributeType == .string
            if column.expression != nil, case .scalar(_, .string) = operand { isString = true }
            expressions[column.name] = (sql, column.function == nil && isString)
        }
        var groups: [String] = []
        for group in request.groupBy {
            // A fetched expression groups by the same SQL (its parameters are numbered, so they can repeat).
            if group.expression != nil, let named = expressions[group.name] {
                groups.append(named.sql)
            } else {
                groups.append(try expression(for: group, from: fetch.entity, scope: scope, compiler: &compiler).sql)
            }
        }

        var conditions: [String] = []
        let numbers = fetch.includesSubentities ? schema.numbers.hierarchyNumbers(of: fetch.entity) : [schema.numbers.number(of: fetch.entity)]
        if numbers.count != 1 + table.root.allSubentities.count {
            conditions.append("t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
        }
        var havingSQL: String?
        do {
            if let predicate = fetch.predicate, predicate != .true {
                conditions.append(try compiler.compile(predicate, for: row))
            }
            if let having = request.having { havingSQL = try compiler.compile(having, for: row, names: names) }
        } catch is SQLitePredicateCompiler.Unsupported {
            return nil
        }
        var order: [String] = []
        for key in fetch.sortKeys {
            var sql: String
            var isString: Bool
            if let named = expressions[key.keyPath] {
                (sql, isString) = named
            } else {
                let resolved = try KeyPathResolver.resolve(key.keyPath, from: fetch.entity)
                let column = DictionaryFetch.Column(
                    name: key.keyPath, keyPath: key.keyPath, attribute: resolved.attribute,
                    relationship: resolved.finalRelationship)
                sql = try expression(for: column, from: fetch.entity, scope: scope, compiler: &compiler).sql
                isString = resolved.attribute?.attributeType == .string
            }
            if isString, let collation = SQLiteFunctions.collation(for: key.comparator) { sql += " COLLATE \(collation)" }
            order.append(sql + (key.ascending ? " ASC" : " DESC"))
        }

        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(selects.joined(separator: ", ")) FROM "
            + "\(SQLiteSchema.quote(table.name)) t0\(scope.joinSQL)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        if let havingSQL { sql += " HAVING " + havingSQL }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        var bindings = compiler.bindings
        if fetch.limit > 0 || fetch.offset > 0 {
            sql += " LIMIT ?\(bindings.count + 1) OFFSET ?\(bindings.count + 2)"
            bindings += [.integer(fetch.limit > 0 ? Int64(fetch.limit) : -1), .integer(Int64(fetch.offset))]
        }
        let statement = try db().cachedStatement(sql)
        defer { statement.reset() }
        for (index, value) in bindings.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        var rows: [[DictionaryValue]] = []
        while try statement.step() {
            var values: [DictionaryValue] = []
            values.reserveCapacity(reads.count)
            for read in reads {
                values.append(try value(of: read.column, statement, read.index, read.entityIndex))
            }
            rows.append(values)
        }
        return rows
    }

    /// The SQL of a column, its operand for a having predicate, and the SQL of the destination's entity
    /// number for a relationship whose destination has sub-entities.
    private func expression(
        for column: DictionaryFetch.Column, from entity: EntityDescription, scope: SQLiteQueryScope,
        compiler: inout SQLitePredicateCompiler
    ) throws -> (sql: String, operand: SQLitePredicateCompiler.Operand, entitySQL: String?) {
        var value = "NULL"
        var entitySQL: String?
        var operand = SQLitePredicateCompiler.Operand.scalar("NULL", nil)
        if let expression = column.expression {
            // An expression of each object: a scalar SQL value of the row (constants bound).
            let row = SQLitePredicateCompiler.Row(alias: "t0", entity: entity, scope: scope)
            switch try compiler.scalar(expression, for: row) {
            case .scalar(let sql, let kind?):
                value = sql
                operand = .scalar(sql, kind)
            case .constant(let constant) where !constant.isNull:
                value = compiler.bind(constant)
                operand = .scalar(value, SQLitePredicateCompiler.Kind(constant))
            default:
                throw SQLitePredicateCompiler.Unsupported(reason: "an expression that is not a value")
            }
        } else if let keyPath = column.keyPath {
            let resolved = try KeyPathResolver.resolve(keyPath, from: entity)
            let owner = scope.join(from: "t0", through: resolved.relationships, schema: schema)
            if let attribute = resolved.attribute, let name = schema.column(of: attribute) {
                value = "\(owner).\(SQLiteSchema.quote(name))"
                operand = .scalar(value, attribute.allowsExternalBinaryDataStorage ? nil : .init(attribute.attributeType))
            } else if let relationship = resolved.finalRelationship, let name = schema.foreignKeyColumn(of: relationship),
                let destination = relationship.resolvedDestination
            {
                value = "\(owner).\(SQLiteSchema.quote(name))"
                operand = .object(value, root: destination.rootEntity, row: nil)
                if let entityColumn = schema.foreignEntityColumn(of: relationship) {
                    entitySQL = "\(owner).\(SQLiteSchema.quote(entityColumn))"
                }
            } else {
                throw QuireError(.invalidFetchRequest, "The key path '\(keyPath)' has no column in the SQLite store.")
            }
        }
        guard let function = column.function else { return (value, operand, entitySQL) }
        let sql: String
        switch function {
        case .count: sql = column.keyPath == nil ? "COUNT(*)" : "COUNT(\(value))"
        case .sum: sql = "TOTAL(\(value))"
        case .average: sql = "AVG(\(value))"
        case .min: sql = "MIN(\(value))"
        case .max: sql = "MAX(\(value))"
        case .median, .mode, .stddev: throw SQLitePredicateCompiler.Unsupported(reason: "\(function.rawValue) in SQL")
        }
        let kind = column.readType.flatMap(SQLitePredicateCompiler.Kind.init)
        return (sql, .scalar(sql, function == .count ? .number : kind), nil)
    }

    private func value(
        of column: DictionaryFetch.Column, _ statement: SQLiteStatement, _ index: Int32, _ entityIndex: Int32?
    ) throws -> DictionaryValue {
        if statement.isNull(at: index) { return .null }
        if column.function == nil, let relationship = column.relationship, let destination = relationship.resolvedDestination {
            var concrete = destination
            if let entityIndex, let number = entity(number: statement.int64(at: entityIndex)) { concrete = number }
            return .object(ObjectID(entity: concrete, store: store, primaryKey: statement.int64(at: index)))
        }
        let type = column.readType ?? .integer64
        let external = column.function == nil && column.attribute?.allowsExternalBinaryDataStorage == true
        return .value(try statement.attributeValue(at: index, type: type, externalFormat: external))
    }
}
