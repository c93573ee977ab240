import QuireSupport
import Foundation

/// A value of a dictionary result as stores return it: an attribute value, or the ID of a related object.
package enum DictionaryValue: Hashable, Sendable {
    case value(AttributeValue)
    case object(ObjectID)
    /// Several values, as `mode:` gives.
    case values([AttributeValue])

    package static let null = DictionaryValue.value(.null)

    /// The value as sort keys compare it (objects by primary key).
    package var sortValue: AttributeValue {
        switch self {
        case .value(let value): return value
        case .object(let id): return .integer(id.primaryKey ?? 0)
        case .values(let values): return values.first ?? .null
        }
    }
}

/// A ``FetchResultType/dictionary`` fetch with its properties resolved against the entity and checked:
/// what the SQLite store compiles to one `SELECT … GROUP BY … HAVING …`, and what the context computes in
/// memory when a store cannot.
package struct DictionaryFetch {
    /// One value of the result dictionaries.
    package struct Column {
        /// The dictionary key.
        package var name: String
        /// The key path read (for functions, their argument); nil for `SELF`.
        package var keyPath: String?
        /// The aggregate function, for expression descriptions of functions.
        package var function: ExpressionDescription.Function?
        /// The expression computed for each object (the function's argument when there is a function), for
        /// expression descriptions of expressions other than key paths.
        package var expression: QueryExpression?
        /// The attribute the key path ends on.
        package var attribute: AttributeDescription?
        /// The to-one relationship the key path ends on (the value is the related object's ID).
        package var relationship: RelationshipDescription?
        /// The type an expression description asks for; the result is converted to it.
        package var resultType: AttributeType?
        /// A description of the result type, for converting values to their public form.
        var resultDescription: AttributeDescription?

        /// Creates a column.
        package init(
            name: String, keyPath: String?, function: ExpressionDescription.Function? = nil,
            attribute: AttributeDescription? = nil, relationship: RelationshipDescription? = nil,
            resultType: AttributeType? = nil, resultDescription: AttributeDescription? = nil,
            expression: QueryExpression? = nil
        ) {
            self.expression = expression
            self.name = name
            self.keyPath = keyPath
            self.function = function
            self.attribute = attribute
            self.relationship = relationship
            self.resultType = resultType
            self.resultDescription = resultDescription
        }

        /// The type values of the column are read as.
        package var readType: AttributeType? {
            if let resultType { return resultType }
            if function == .count { return .integer64 }
            return attribute?.attributeType
        }
    }

    package var fetch: StoreFetch
    package var columns: [Column]
    package var groupBy: [Column]
    package var having: QueryPredicate?
    package var distinct: Bool

    /// Whether the result has one dictionary per group (or one in all) rather than one per object.
    package var isAggregate: Bool { !groupBy.isEmpty || columns.contains { $0.function != nil } }

    /// Resolves and checks a request's dictionary parameters.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for a key path that does not resolve or goes through a
    ///   to-many relationship, a transient attribute, a function of values it cannot combine, a fetched key
    ///   path that is not grouped by, or a having predicate without grouping.
    package init<Result>(request: FetchRequest<Result>, fetch: StoreFetch) throws {
        self.fetch = fetch
        let entity = fetch.entity
        distinct = request.returnsDistinctResults
        having = request.havingPredicate
        let properties =
            request.propertiesToFetch
            ?? entity.allAttributes.filter { !$0.isTransient }.map { FetchedProperty.keyPath($0.name) }
        let columns = try properties.map { try Self.column($0, entity) }
        self.columns = columns
        // A name of a fetched per-object expression groups by its value.
        groupBy = try (request.propertiesToGroupBy ?? []).map { name in
            if let named = columns.first(where: { $0.name == name && $0.expression != nil && $0.function == nil }) {
                return named
            }
            return try Self.column(.keyPath(name), entity)
        }
        var names = Set<String>()
        for column in columns where !names.insert(column.name).inserted {
            throw Self.invalid("The fetch request fetches two properties named '\(column.name)'.", entity)
        }
        if !groupBy.isEmpty {
            let grouped = Set(groupBy.compactMap(\.keyPath))
            let groupedNames = Set(groupBy.filter { $0.expression != nil }.map(\.name))
            for column in columns
            where column.function == nil && !grouped.contains(column.keyPath ?? "") && !groupedNames.contains(column.name) {
                throw Self.invalid(
                    "The fetch request fetches '\(column.name)', which is neither grouped by nor an aggregate.", entity)
            }
        } else if columns.contains(where: { $0.function != nil }), let plain = columns.first(where: { $0.function == nil }) {
            throw Self.invalid(
                "The fetch request mixes aggregates with '\(plain.name)' without grouping by it.", entity)
        }
        if having != nil && groupBy.isEmpty {
            throw Self.invalid("A having predicate needs propertiesToGroupBy.", entity)
        }
    }

    private static func invalid(_ message: String, _ entity: EntityDescription) -> QuireError {
        QuireError(.invalidFetchRequest, message, context: .init(entity: entity.name))
    }

    private static func column(_ property: FetchedProperty, _ entity: EntityDescription) throws -> Column {
        switch property {
        case .keyPath(let keyPath):
            return try keyPathColumn(name: keyPath, keyPath: keyPath, entity)
        case .expression(let description):
            var column: Column
            switch description.expression {
            case .keyPath(let keyPath):
                column = try keyPathColumn(name: description.name, keyPath: keyPath, entity)
            case .function(let function, let keyPath):
                column = try functionColumn(description.name, function, keyPath, entity)
            case .expression(let expression):
                column = try expressionColumn(description.name, expression, entity)
            }
            column.resultType = description.resultType
            column.resultDescription = AttributeDescription(name: description.name, type: description.resultType)
            return column
        }
    }

    private static func functionColumn(
        _ name: String, _ function: ExpressionDescription.Function, _ keyPath: String, _ entity: EntityDescription
    ) throws -> Column {
        if keyPath == "SELF" {
            guard function == .count else { throw invalid("Only count: applies to SELF (in '\(name)').", entity) }
            return Column(name: name, keyPath: nil, function: function)
        }
        var column = try keyPathColumn(name: name, keyPath: keyPath, entity)
        column.function = function
        switch function {
        case .count: break
        case .sum, .average, .median, .stddev:
            guard column.attribute?.attributeType.isNumeric == true || column.attribute?.attributeType == .boolean
            else { throw invalid("\(function.rawValue) needs a numeric attribute, not '\(keyPath)'.", entity) }
        case .min, .max, .mode:
            guard column.attribute != nil else {
                throw invalid("\(function.rawValue) needs an attribute, not '\(keyPath)'.", entity)
            }
        }
        return column
    }

    /// A column of an expression: a key path, an aggregate function of one (as ``ExpressionDescription/Expression/function(_:keyPath:)``)
    /// or of another expression of each object, or an expression of each object.
    private static func expressionColumn(_ name: String, _ expression: QueryExpression, _ entity: EntityDescription) throws -> Column {
        try QueryPredicate.comparison(QueryComparison(expression, .equalTo, .constant(.null))).validateKeyPaths(from: entity)
        switch expression {
        case .keyPath(let keyPath):
            return try keyPathColumn(name: name, keyPath: keyPath, entity)
        case .function(let function, let arguments) where function.isAggregate && arguments.count == 1:
            guard let aggregate = ExpressionDescription.Function(rawValue: function.rawValue) else {
                throw invalid("The function \(function.name) cannot be fetched into dictionaries.", entity)
            }
            switch arguments[0] {
            case .keyPath(let keyPath): return try functionColumn(name, aggregate, keyPath, entity)
            case .evaluatedObject: return try functionColumn(name, aggregate, "SELF", entity)
            default: return Column(name: name, keyPath: nil, function: aggregate, expression: arguments[0])
            }
        default:
            return Column(name: name, keyPath: nil, expression: expression)
        }
    }

    private static func keyPathColumn(name: String, keyPath: String, _ entity: EntityDescription) throws -> Column {
        let resolved = try KeyPathResolver.resolve(keyPath, from: entity)
        if let attribute = resolved.attribute, attribute.isTransient {
            throw invalid("The transient attribute '\(keyPath)' cannot be fetched into dictionaries.", entity)
        }
        return Column(
            name: name, keyPath: keyPath, attribute: resolved.attribute, relationship: resolved.finalRelationship)
    }

    // MARK: - Values

    /// A value converted to a column's result type (numbers truncate toward zero into integers, as SQLite
    /// reads them).
    package static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue {
        if value.isNull { return value }
        let number: Double? = {
            if case .date(let date) = value { return date.timeIntervalSinceReferenceDate }
            return value.doubleValue
        }()
        switch type {
        case .integer16, .integer32, .integer64:
            if case .integer = value { return value }
            guard let number, number.isFinite, let integer = Int64(exactly: number.rounded(.towardZero)) else { return value }
            return .integer(integer)
        case .double: return number.map { .double($0) } ?? value
        case .float: return number.map { .float(Float($0)) } ?? value
        case .decimal:
            if case .decimal = value { return value }
            if case .integer(let integer) = value { return .decimal(Decimal(integer)) }
            return number.map { .decimal(Decimal($0)) } ?? value
        case .boolean: return number.map { .boolean($0 != 0) } ?? value
        case .date: return number.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? value
        default: return value
        }
    }

    /// The result dictionaries in public form, nil values left out (as in Core Data).
    package func publicDictionaries(_ rows: [[DictionaryValue]]) -> [[String: Any]] {
        rows.map { publicDictionary($0) }
    }

    package func publicDictionary(_ row: [DictionaryValue]) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for (column, value) in zip(columns, row) {
            switch value {
            case .object(let id):
                dictionary[column.name] = id
            case .values(let values):
                dictionary[column.name] = values.compactMap(\.bridgedValue)
            case .value(let raw):
                guard !raw.isNull else { continue }
                if let resultType = column.resultType, let description = column.resultDescription {
                    dictionary[column.name] = ValueCoercion.publicValue(Self.convert(raw, to: resultType), for: description)
                } else if let attribute = column.attribute {
                    dictionary[column.name] = ValueCoercion.publicValue(raw, for: attribute)
                } else {
                    dictionary[column.name] = raw.bridgedValue
                }
            }
        }
        return dictionary
    }

    // MARK: - In memory

    /// An aggregate function over a group's values, `mode:`'s array included.
    package static func aggregateValue(
        _ function: ExpressionDescription.Function, _ values: [DictionaryValue]?, count: Int
    ) -> DictionaryValue {
        guard function == .mode, let values else { return .value(aggregate(function, values, count: count)) }
        let result = try? PredicateEvaluator.apply(.mode, to: [.collection(values.map { .value($0.sortValue) })])
        guard case .collection(let modes)? = result else { return .values([]) }
        return .values(modes.compactMap { if case .value(let value) = $0 { return value } else { return nil } })
    }

    /// An aggregate function over a group's values (`count:` of `SELF` over `count` objects).
    package static func aggregate(
        _ function: ExpressionDescription.Function, _ values: [DictionaryValue]?, count: Int
    ) -> AttributeValue {
        guard let values else { return .integer(Int64(count)) }
        let present = values.filter { $0 != .null }
        switch function {
        case .count:
            return .integer(Int64(present.count))
        case .sum:
            return .double(present.reduce(0) { $0 + ($1.sortValue.doubleValue ?? 0) })
        case .average:
            guard !present.isEmpty else { return .null }
            return .double(present.reduce(0) { $0 + ($1.sortValue.doubleValue ?? 0) } / Double(present.count))
        case .min, .max:
            var best: AttributeValue?
            for value in present.map(\.sortValue) {
                guard let current = best else {
                    best = value
                    continue
                }
                let order = SortKey.Comparator.compare.compare(value, current)
                if (function == .min && order == .orderedAscending) || (function == .max && order == .orderedDescending) {
                    best = value
                }
            }
            return best ?? .null
        case .median, .stddev, .mode:
            guard let expressionFunction = function.expressionFunction,
                case .value(let value)? = try? PredicateEvaluator.apply(
                    expressionFunction, to: [.collection(present.map { .value($0.sortValue) })])
            else { return .null }
            return value
        }
    }
}
