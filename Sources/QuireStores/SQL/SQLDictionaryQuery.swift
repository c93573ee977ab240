import QuireCore
import Foundation

/// A dictionary fetch as one statement in a dialect: `SELECT [DISTINCT] … FROM … WHERE … GROUP BY … HAVING …
/// ORDER BY … LIMIT …`, the SQL the SQLite and PostgreSQL stores both run, each reading the values its way.
package struct SQLDictionaryQuery {
    /// Where a result column's value is, and (for a relationship whose destination has sub-entities) its
    /// destination's entity number.
    package struct Read {
        package var column: DictionaryFetch.Column
        package var index: Int
        package var entityIndex: Int?
    }

    /// The statement.
    package var sql: String
    /// Its parameters, in order (the limit and offset last when there are any).
    package var bindings: [AttributeValue]
    /// The result columns, in the order of the fetch's columns.
    package var reads: [Read]

    /// Compiles a dictionary fetch; nil when its predicate or having predicate does not compile, or when
    /// PostgreSQL would refuse its sort keys (a key that is neither fetched nor grouped by, in a grouped or
    /// distinct fetch), so the context computes it in memory.
    package init?(_ request: DictionaryFetch, schema: CoreDataSchema, store: PersistentStore, dialect: SQLDialect) throws {
        let fetch = request.fetch
        guard let table = schema.table(for: fetch.entity) else { return nil }
        let counter = SQLAliasCounter()
        let scope = SQLQueryScope(counter: counter, dialect: dialect)
        var compiler = SQLPredicateCompiler(schema: schema, store: store, counter: counter, dialect: dialect)
        let row = SQLPredicateCompiler.Row(alias: "t0", entity: fetch.entity, scope: scope)
        // An engine that sorts DISTINCT and grouped results only by what they select computes other such sorts in memory.
        let strict = dialect.ordersOnlyBySelected

        // The selected values; a relationship also selects its destination's entity number when it varies.
        var selects: [String] = []
        var reads: [Read] = []
        var names: [String: SQLPredicateCompiler.Operand] = [:]
        var expressions: [String: (sql: String, isString: Bool)] = [:]
        // median:, mode: and stddev: are computed in memory over the fetched values.
        if request.columns.contains(where: { [.median, .mode, .stddev].contains($0.function) }) { return nil }
        // A column's SQL; nil when it does not compile (the context computes the fetch in memory).
        func compiled(_ column: DictionaryFetch.Column) throws -> (sql: String, operand: SQLPredicateCompiler.Operand, entitySQL: String?)? {
            do {
                return try Self.expression(
                    for: column, from: fetch.entity, scope: scope, schema: schema, dialect: dialect, compiler: &compiler)
            } catch is SQLPredicateCompiler.Unsupported {
                return nil
            }
        }
        for column in request.columns {
            guard let (sql, operand, entitySQL) = try compiled(column) else { return nil }
            reads.append(Read(column: column, index: selects.count, entityIndex: entitySQL.map { _ in selects.count + 1 }))
            selects.append(sql)
            if let entitySQL { selects.append(entitySQL) }
            names[column.name] = operand
            var isString = column.attribute?.attributeType == .string
            if column.expression != nil, case .scalar(_, .string) = operand { isString = true }
            expressions[column.name] = (sql, column.function == nil && isString)
        }
        var groups: [String] = []
        for column in request.groupBy {
            // A fetched expression groups by the same SQL (SQLite's parameters are numbered, so they can repeat;
            // PostgreSQL's too).
            if column.expression != nil, let named = expressions[column.name] {
                groups.append(named.sql)
                continue
            }
            guard let (sql, _, entitySQL) = try compiled(column) else { return nil }
            groups.append(sql)
            // PostgreSQL selects only what is grouped by: the destination's entity number goes with its key.
            if strict, let entitySQL { groups.append(entitySQL) }
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
        } catch is SQLPredicateCompiler.Unsupported {
            return nil
        }
        var order: [String] = []
        for key in fetch.sortKeys {
            let sql: String
            let isString: Bool
            if let named = expressions[key.keyPath] {
                (sql, isString) = named
            } else {
                let resolved = try KeyPathResolver.resolve(key.keyPath, from: fetch.entity)
                let column = DictionaryFetch.Column(
                    name: key.keyPath, keyPath: key.keyPath, attribute: resolved.attribute,
                    relationship: resolved.finalRelationship)
                sql = try Self.expression(
                    for: column, from: fetch.entity, scope: scope, schema: schema, dialect: dialect, compiler: &compiler
                ).sql
                isString = resolved.attribute?.attributeType == .string
                if strict, request.distinct || (request.isAggregate && !groups.contains(sql)) { return nil }
            }
            // SELECT DISTINCT sorts only by what it selects, not by a string folded for the comparator.
            if strict, isString, request.distinct, key.comparator != .compare, key.comparator != .localizedCompare { return nil }
            order.append(dialect.orderTerm(sql, isString: isString, comparator: key.comparator, ascending: key.ascending))
        }

        // Rows equal under every sort key come in key order, as the rows of an object fetch (and so the in-memory path).
        if let keyOrder = dialect.keyOrder, !request.distinct, !request.isAggregate { order.append(keyOrder) }
        var sql = "SELECT \(request.distinct ? "DISTINCT " : "")\(selects.joined(separator: ", ")) FROM "
            + "\(dialect.quote(table.name)) t0\(scope.joinSQL)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        if let havingSQL { sql += " HAVING " + havingSQL }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        var bindings = compiler.bindings
        let limit = dialect.limitClause(fetch, after: bindings.count)
        sql += limit.sql
        bindings += limit.bindings
        self.sql = sql
        self.bindings = bindings
        self.reads = reads
    }

    /// The SQL of a column, its operand for a having predicate, and the SQL of the destination's entity
    /// number for a relationship whose destination has sub-entities.
    private static func expression(
        for column: DictionaryFetch.Column, from entity: EntityDescription, scope: SQLQueryScope, schema: CoreDataSchema,
        dialect: SQLDialect, compiler: inout SQLPredicateCompiler
    ) throws -> (sql: String, operand: SQLPredicateCompiler.Operand, entitySQL: String?) {
        var value = "NULL"
        var entitySQL: String?
        var operand = SQLPredicateCompiler.Operand.scalar("NULL", nil)
        if let expression = column.expression {
            // An expression of each object: a scalar SQL value of the row (constants bound).
            let row = SQLPredicateCompiler.Row(alias: "t0", entity: entity, scope: scope)
            switch try compiler.scalar(expression, for: row) {
            case .scalar(let sql, let kind?):
                value = sql
                operand = .scalar(sql, kind)
            case .constant(let constant) where !constant.isNull:
                value = compiler.bind(constant)
                operand = .scalar(value, SQLPredicateCompiler.Kind(constant))
            default:
                throw SQLPredicateCompiler.Unsupported(reason: "an expression that is not a value")
            }
        } else if let keyPath = column.keyPath {
            let resolved = try KeyPathResolver.resolve(keyPath, from: entity)
            let owner = scope.join(from: "t0", through: resolved.relationships, schema: schema)
            if let attribute = resolved.attribute, let name = schema.column(of: attribute) {
                value = "\(owner).\(dialect.quote(name))"
                operand = .scalar(value, attribute.allowsExternalBinaryDataStorage ? nil : .init(attribute.attributeType))
            } else if let relationship = resolved.finalRelationship, let name = schema.foreignKeyColumn(of: relationship),
                let destination = relationship.resolvedDestination
            {
                value = "\(owner).\(dialect.quote(name))"
                operand = .object(value, root: destination.rootEntity, row: nil)
                if let entityColumn = schema.foreignEntityColumn(of: relationship) {
                    entitySQL = "\(owner).\(dialect.quote(entityColumn))"
                }
            } else {
                throw QuireError(
                    .invalidFetchRequest,
                    "The key path '\(keyPath)' has no column in the \(dialect.name) store.")
            }
        }
        guard let function = column.function else { return (value, operand, entitySQL) }
        let sql: String
        switch function {
        case .count: sql = column.keyPath == nil ? "COUNT(*)" : "COUNT(\(value))"
        case .sum: sql = dialect.total(value)
        case .average: sql = dialect.average(value)
        case .min: sql = "MIN(\(value))"
        case .max: sql = "MAX(\(value))"
        case .median, .mode, .stddev: throw SQLPredicateCompiler.Unsupported(reason: "\(function.rawValue) in SQL")
        }
        let kind = column.readType.flatMap(SQLPredicateCompiler.Kind.init)
        return (sql, .scalar(sql, function == .count ? .number : kind), nil)
    }
}
