import QuireCore
import Foundation

/// Compiles a ``QueryPredicate`` into an SQL condition over Core Data's schema, with every value bound as a
/// numbered parameter (`?1`, `?2`, …) and never written into the SQL.
///
/// The SQL answers exactly what ``QueryPredicate/evaluate(with:substitutionVariables:)`` answers for the same
/// rows (the evaluator is the reference; the table of cases in the tests holds the two to it):
///
/// - Key paths through to-one relationships become `LEFT JOIN`s, shared with the sort keys; a nil step makes
///   the rest of the path nil, as in memory.
/// - Key paths through to-many relationships become `EXISTS` subqueries: `ANY` (and no modifier) is
///   `EXISTS (… WHERE cmp)`, `ALL` is `NOT EXISTS (… WHERE NOT cmp)`, `NONE` is `NOT EXISTS (… WHERE cmp)`,
///   over the destination's foreign key or the join table of a many-to-many relationship.
/// - `@count`, `@sum`, `@avg`, `@min`, `@max` and `SUBQUERY(…).@count` become scalar subqueries
///   (`COUNT(*)`, `TOTAL`, `AVG`, `MIN`, `MAX`).
/// - Comparisons are two-valued: `!=` is `IS NOT`, a nil constant gives `IS NULL`, and `NOT` treats an
///   unknown (NULL) operand as false, so `NOT (age > 30)` holds for a nil age as it does in memory.
/// - Strings under `[c]`/`[d]` compare through `quire_fold`; `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE`
///   through `quire_string`, `MATCHES` through `quire_matches` (see ``SQLiteFunctions``), all calling the
///   evaluator's own Swift code. Plain `==` and `<` on strings compare bytes (`BINARY`), which agrees with
///   Swift's comparison for precomposed (NFC) text.
/// - Dates bind as seconds since 2001, UUIDs as 16 bytes, Booleans as 0 and 1, decimals as doubles; object
///   IDs compare by primary key (an ID of another store or entity hierarchy matches nothing).
///
/// What it cannot compile throws ``Unsupported``: transient properties, `CAST`s left for evaluation,
/// unbound variables, values of a kind the attribute cannot hold, external binary data beyond nil tests,
/// and a few rare shapes. The store then leaves those predicates (or those conjuncts) to memory.
package struct SQLPredicateCompiler {
    /// Why a predicate cannot be compiled.
    package struct Unsupported: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// The kinds of values SQL compares with one another.
    package enum Kind: Equatable {
        case number, string, date, data, uuid, uri

        package init?(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean: self = .number
            case .string: self = .string
            case .date: self = .date
            case .binaryData, .transformable: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            }
        }

        package init?(_ value: AttributeValue) {
            switch value {
            case .null: return nil
            case .integer, .double, .float, .decimal, .boolean: self = .number
            case .string: self = .string
            case .date: self = .date
            case .data, .externalData: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            }
        }
    }

    /// A row of a table in the statement: its alias, its entity and the FROM clause it belongs to.
    package struct Row {
        package var alias: String
        package var entity: EntityDescription
        package var scope: SQLQueryScope

        /// A row of a query.
        package init(alias: String, entity: EntityDescription, scope: SQLQueryScope) {
            self.alias = alias
            self.entity = entity
            self.scope = scope
        }
    }

    /// A key path through a to-many relationship, from the row it starts at.
    package struct CollectionPath {
        package var start: Row
        /// True when a to-one step before the collection was nil (the whole value is then nil, not empty).
        var prefixNull: String?
        /// The components from the first to-many relationship on.
        package var components: [String]
    }

    /// What an expression compiles to.
    package indirect enum Operand {
        /// An SQL value of a kind; nil kind for values only nil tests can judge (external binary data).
        case scalar(String, Kind?)
        /// An object: the SQL of its primary key (NULL for nil), its entity hierarchy, and its row when joined.
        case object(String, root: EntityDescription, row: Row?)
        case constant(AttributeValue)
        case objectConstant(ObjectID)
        case list([Operand])
        case collection(CollectionPath)

        var isConstant: Bool {
            switch self {
            case .constant, .objectConstant: return true
            case .list(let elements): return elements.allSatisfy(\.isConstant)
            default: return false
            }
        }
    }

    /// The FROM part of a subquery over a collection path.
    package struct Chain {
        package var from: String
        package var conditions: [String]
        package var element: Operand
        package var scope: SQLQueryScope

        package func select(_ what: String, where extra: String?) -> String {
            var all = conditions
            if let extra { all.append(extra) }
            return "SELECT \(what) FROM \(from)\(scope.joinSQL) WHERE \(all.joined(separator: " AND "))"
        }
    }

    /// What `SELF` and the variables of enclosing subqueries stand for.
    package struct Environment {
        package var selfValue: Operand
        package var variables: [String: Operand] = [:]
        /// Values a key path names directly, such as the columns of a grouped SELECT for a having predicate.
        package var names: [String: Operand] = [:]
    }

    package let schema: CoreDataSchema
    package let store: PersistentStore
    package let counter: SQLAliasCounter
    /// The SQL dialect written (SQLite's unless a PostgreSQL store compiles).
    package let dialect: SQLDialect
    /// The values to bind, in parameter order (`?1` is the first).
    package private(set) var bindings: [AttributeValue] = []
    /// Per binding: the options a string constant was folded with for a case- or diacritic-insensitive
    /// comparison, nil when bound as it is; with ``SQLPredicateShape`` it derives the bindings of another
    /// predicate of the same shape without compiling it.
    package private(set) var bindingFolds: [QueryComparison.Options?] = []
    /// Whether the SQL written depends on the value of a constant that ``SQLPredicateShape`` treats as a
    /// parameter (a nil step before a collection compared with a constant): such a predicate's SQL is not
    /// shared with other predicates of its shape.
    package private(set) var dependsOnParameterValues = false

    package init(schema: CoreDataSchema, store: PersistentStore, counter: SQLAliasCounter, dialect: SQLDialect) {
        self.schema = schema
        self.store = store
        self.counter = counter
        self.dialect = dialect
    }

    // MARK: - Entry points

    /// Compiles a predicate whose `SELF` is a row.
    package mutating func compile(_ predicate: QueryPredicate, for row: Row) throws -> String {
        let root = row.entity.rootEntity
        return try compile(predicate, Environment(selfValue: .object("\(row.alias).Z_PK", root: root, row: row)))
    }

    /// Compiles a predicate whose key paths name computed values (a having predicate), the row being `SELF`
    /// for other key paths.
    package mutating func compile(_ predicate: QueryPredicate, for row: Row, names: [String: Operand]) throws -> String {
        var environment = Environment(selfValue: .object("\(row.alias).Z_PK", root: row.entity.rootEntity, row: row))
        environment.names = names
        return try compile(predicate, environment)
    }

    /// Compiles a key path (or expression) read for each row into a scalar SQL value.
    package mutating func scalar(_ expression: QueryExpression, for row: Row) throws -> Operand {
        let root = row.entity.rootEntity
        return try operand(expression, Environment(selfValue: .object("\(row.alias).Z_PK", root: root, row: row)))
    }

    /// Binds a value and returns its parameter.
    package mutating func bind(_ value: AttributeValue) -> String {
        var value = value
        if case .decimal(let decimal) = value { value = .double(NSDecimalNumber(decimal: decimal).doubleValue) }
        bindings.append(value)
        bindingFolds.append(nil)
        return dialect.parameter(bindings.count, for: value)
    }

    // MARK: - Predicates

    package mutating func compile(_ predicate: QueryPredicate, _ environment: Environment) throws -> String {
        switch predicate {
        case .true:
            return dialect.alwaysTrue
        case .false:
            return dialect.alwaysFalse
        case .and(let operands):
            guard !operands.isEmpty else { return dialect.alwaysTrue }
            return "(" + (try operands.map { try compile($0, environment) }).joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return dialect.alwaysFalse }
            return "(" + (try operands.map { try compile($0, environment) }).joined(separator: " OR ") + ")"
        case .not(let operand):
            return dialect.notTrue(try compile(operand, environment))
        case .comparison(let comparison):
            return try compile(comparison, environment)
        }
    }

    private mutating func compile(_ comparison: QueryComparison, _ environment: Environment) throws -> String {
        var left = try operand(comparison.left, environment)
        var right = try operand(comparison.right, environment)
        var op = comparison.operator
        let options = comparison.options
        if left.isConstant && right.isConstant {
            return try constantComparison(comparison)
        }
        if left.isConstant {
            guard comparison.modifier == .direct else { throw Unsupported(reason: "a modifier on a constant") }
            switch op {
            case .equalTo, .notEqualTo: swap(&left, &right)
            case .lessThan: swap(&left, &right); op = .greaterThan
            case .lessThanOrEqualTo: swap(&left, &right); op = .greaterThanOrEqualTo
            case .greaterThan: swap(&left, &right); op = .lessThan
            case .greaterThanOrEqualTo: swap(&left, &right); op = .lessThanOrEqualTo
            case .in:
                switch right {
                case .collection(let path):
                    // `x IN collection` is true when some element equals x.
                    return try collectionComparison(path, .equalTo, .equalTo, left, comparison, .any, options)
                case .scalar(let sql, let kind):
                    guard kind == .string, case .constant(.string(let needle)) = left else { return dialect.alwaysFalse }
                    return stringFunction(.contains, sql, bind(.string(needle)), options)
                default:
                    return dialect.alwaysFalse
                }
            default:
                throw Unsupported(reason: "a constant on the left of \(op.symbol)")
            }
        }
        switch left {
        case .collection(let path):
            return try collectionComparison(path, op, comparison.operator, right, comparison, comparison.modifier, options)
        case .scalar, .object:
            let element = try elementComparison(left, op, right, options)
            let null = try isNull(left)
            switch comparison.modifier {
            case .direct: return element
            case .any: return "(NOT \(null) AND \(element))"
            case .all: return "(\(null) OR \(element))"
            case .none: return "(\(null) OR \(dialect.notTrue(element)))"
            }
        default:
            throw Unsupported(reason: "a comparison of this shape")
        }
    }

    /// A comparison of two constants, decided now by the evaluator.
    private func constantComparison(_ comparison: QueryComparison) throws -> String {
        do {
            let evaluator = PredicateEvaluator(substitutionVariables: [:])
            return dialect.truth(try evaluator.evaluate(.comparison(comparison), on: .null))
        } catch {
            throw Unsupported(reason: "\(error)")
        }
    }

    /// A comparison whose left side is a key path through a to-many relationship.
    private mutating func collectionComparison(
        _ path: CollectionPath,
        _ op: QueryComparison.Operator,
        _ originalOperator: QueryComparison.Operator,
        _ right: Operand,
        _ comparison: QueryComparison,
        _ modifier: QueryComparison.Modifier,
        _ options: QueryComparison.Options
    ) throws -> String {
        var op = op
        // Without a modifier, `collection CONTAINS x` asks whether some element equals x.
        if modifier == .direct && op == .contains { op = .equalTo }
        let chain = try self.chain(path)
        let element = try elementComparison(chain.element, op, right, options)
        switch modifier {
        case .direct, .any:
            var sql = "EXISTS (\(chain.select("1", where: element)))"
            if modifier == .direct, let prefixNull = path.prefixNull {
                // A nil step before the collection makes the value nil, compared as it is.
                guard right.isConstant else { throw Unsupported(reason: "a nil step before a collection") }
                dependsOnParameterValues = true
                let nilComparison = QueryComparison(
                    .constant(.null), originalOperator, comparison.right, modifier: .direct, options: options)
                if try constantComparison(nilComparison) == dialect.alwaysTrue { sql = "(\(sql) OR \(prefixNull))" }
            }
            return sql
        case .all:
            return "NOT EXISTS (\(chain.select("1", where: dialect.notTrue(element))))"
        case .none:
            return "NOT EXISTS (\(chain.select("1", where: element)))"
        }
    }

    private func isNull(_ operand: Operand) throws -> String {
        switch operand {
        case .scalar(let sql, _): return "\(sql) IS NULL"
        case .object(let sql, _, _): return "\(sql) IS NULL"
        default: throw Unsupported(reason: "a nil test of this shape")
        }
    }

    // MARK: - One value against the right side

    private mutating func elementComparison(
        _ left: Operand,
        _ op: QueryComparison.Operator,
        _ right: Operand,
        _ options: QueryComparison.Options
    ) throws -> String {
        switch left {
        case .scalar(let sql, let kind): return try scalarComparison(sql, kind, op, right, options)
        case .object(let sql, let root, _): return try objectComparison(sql, root, op, right)
        default: throw Unsupported(reason: "a comparison of this shape")
        }
    }

    private static func folds(_ kind: Kind?, _ options: QueryComparison.Options) -> Bool {
        kind == .string && !options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive])
    }

    private static func flags(_ options: QueryComparison.Options) -> UInt8 {
        options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
    }

    private func folded(_ sql: String, _ options: QueryComparison.Options) -> String {
        "\(SQLStringFunctions.fold)(\(sql), \(Self.flags(options)))"
    }

    /// Binds a constant compared with a value of `kind`, in the folded form when the comparison folds.
    private mutating func bindCompared(_ value: AttributeValue, fold: Bool, _ options: QueryComparison.Options) -> String {
        if fold, case .string(let string) = value {
            let parameter = bind(.string(PredicateStringMatching.comparisonKey(string, options)))
            bindingFolds[bindingFolds.count - 1] = options
            return parameter
        }
        return bind(value)
    }

    private func sqlOperator(_ op: QueryComparison.Operator) -> String? {
        switch op {
        case .equalTo: return "="
        case .notEqualTo: return dialect.same(false)
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        default: return nil
        }
    }

    private mutating func scalarComparison(
        _ sql: String,
        _ kind: Kind?,
        _ op: QueryComparison.Operator,
        _ right: Operand,
        _ options: QueryComparison.Options
    ) throws -> String {
        let fold = Self.folds(kind, options)
        let lhs = fold ? folded(sql, options) : sql
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let equality = op == .equalTo || op == .notEqualTo
            // What the comparison gives when the kinds cannot be compared: `==` false, `!=` true, order false.
            let mismatch = dialect.truth(op == .notEqualTo)
            switch right {
            case .constant(.null):
                if op == .equalTo { return "\(sql) IS NULL" }
                if op == .notEqualTo { return "\(sql) IS NOT NULL" }
                return dialect.alwaysFalse
            case .constant(let value):
                guard let kind else { throw Unsupported(reason: "a comparison of external binary data") }
                guard Kind(value) == kind else { return mismatch }
                let parameter = bindCompared(value, fold: fold, options)
                return "\(lhs) \(sqlOperator(op) ?? "=") \(parameter)"
            case .scalar(let other, let otherKind):
                guard let kind, let otherKind, kind == otherKind else {
                    throw Unsupported(reason: "a comparison of values of different kinds")
                }
                let rhs = fold ? folded(other, options) : other
                if equality { return "\(lhs) \(dialect.same(op == .equalTo)) \(rhs)" }
                return "\(lhs) \(sqlOperator(op) ?? "=") \(rhs)"
            case .object, .objectConstant, .list:
                if equality { return mismatch }
                return dialect.alwaysFalse
            case .collection:
                throw Unsupported(reason: "a collection on the right of \(op.symbol)")
            }
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                throw Unsupported(reason: "BETWEEN without two bounds")
            }
            guard case .constant(let lower) = bounds[0], case .constant(let upper) = bounds[1] else {
                if bounds.allSatisfy(\.isConstant) { return dialect.alwaysFalse }
                throw Unsupported(reason: "BETWEEN with bounds that are not constants")
            }
            guard let kind else { throw Unsupported(reason: "a comparison of external binary data") }
            guard Kind(lower) == kind, Kind(upper) == kind else { return dialect.alwaysFalse }
            let low = bindCompared(lower, fold: fold, options)
            let high = bindCompared(upper, fold: fold, options)
            return "(\(lhs) BETWEEN \(low) AND \(high))"
        case .in:
            switch right {
            case .list(let elements):
                var hasNull = false
                var values: [AttributeValue] = []
                for element in elements {
                    switch element {
                    case .constant(.null): hasNull = true
                    case .constant(let value) where kind != nil && Kind(value) == kind: values.append(value)
                    case .constant, .objectConstant, .list: continue
                    default: throw Unsupported(reason: "IN with values that are not constants")
                    }
                }
                if kind == nil && !values.isEmpty { throw Unsupported(reason: "IN on external binary data") }
                var parts: [String] = []
                if hasNull { parts.append("\(sql) IS NULL") }
                if !values.isEmpty {
                    parts.append("\(lhs) IN \(inList(values.map { fold ? foldedConstant($0, options) : $0 }))")
                }
                return parts.isEmpty ? dialect.alwaysFalse : "(" + parts.joined(separator: " OR ") + ")"
            case .constant(.string(let haystack)):
                guard kind == .string else { return dialect.alwaysFalse }
                return stringFunction(.contains, bind(.string(haystack)), sql, options)
            case .scalar(let other, let otherKind):
                guard kind == .string, otherKind == .string else { return dialect.alwaysFalse }
                return stringFunction(.contains, other, sql, options)
            case .constant, .object, .objectConstant:
                return dialect.alwaysFalse
            case .collection:
                throw Unsupported(reason: "IN a collection key path")
            }
        case .contains, .beginsWith, .endsWith, .like:
            let stringOperator: PreparedStringPattern.Operator
            switch op {
            case .contains: stringOperator = .contains
            case .beginsWith: stringOperator = .beginsWith
            case .endsWith: stringOperator = .endsWith
            default: stringOperator = .like
            }
            guard kind == .string else { return dialect.alwaysFalse }
            switch right {
            case .constant(.string(let pattern)):
                return stringFunction(stringOperator, sql, bind(.string(pattern)), options)
            case .scalar(let other, let otherKind):
                guard otherKind == .string else { return dialect.alwaysFalse }
                return stringFunction(stringOperator, sql, other, options)
            case .constant, .object, .objectConstant, .list:
                return dialect.alwaysFalse
            case .collection:
                throw Unsupported(reason: "a collection on the right of \(op.symbol)")
            }
        case .matches:
            guard kind == .string else { return dialect.alwaysFalse }
            switch right {
            case .constant(.string(let pattern)):
                // Compile the pattern now: an invalid one is left to memory, which reports it.
                do {
                    let diacritics = options.intersection(.diacriticInsensitive)
                    _ = try PredicateRegexCache.shared.regex(
                        for: PredicateStringMatching.fold(pattern, diacritics),
                        caseInsensitive: options.contains(.caseInsensitive))
                } catch {
                    throw Unsupported(reason: "\(error)")
                }
                return "\(SQLStringFunctions.matches)(\(sql), \(bind(.string(pattern))), \(Self.flags(options)))"
            case .scalar(let other, let otherKind):
                guard otherKind == .string else { return dialect.alwaysFalse }
                return "\(SQLStringFunctions.matches)(\(sql), \(other), \(Self.flags(options)))"
            case .constant, .object, .objectConstant, .list:
                return dialect.alwaysFalse
            case .collection:
                throw Unsupported(reason: "a collection on the right of MATCHES")
            }
        }
    }

    private func foldedConstant(_ value: AttributeValue, _ options: QueryComparison.Options) -> AttributeValue {
        if case .string(let string) = value { return .string(PredicateStringMatching.comparisonKey(string, options)) }
        return value
    }

    /// `(?1, ?2, …)`, or for long lists of integers and strings one JSON parameter read by `json_each`, so
    /// that statements stay few and within SQLite's parameter limit.
    mutating func inList(_ values: [AttributeValue]) -> String {
        if let jsonList = dialect.jsonList, values.count > 16, let json = Self.jsonArray(values) {
            return jsonList(bind(.string(json)))
        }
        return "(" + values.map { bind($0) }.joined(separator: ", ") + ")"
    }

    /// The values as one JSON array (integers and strings only; nil for others), written directly as UTF-8 bytes:
    /// an import checks a page of keys at a time this way, and a JSON encoder per string cost more than the fetch
    /// (so did appending each string to a `String`: about 1,800 instructions a key, against about 150 now).
    static func jsonArray(_ values: [AttributeValue]) -> String? {
        var json: [UInt8] = []
        json.reserveCapacity(2 + values.count * 12)
        json.append(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .integer(let integer): json.append(contentsOf: String(integer).utf8)
            case .string(let string): appendJSONString(string, to: &json)
            default: return nil
            }
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    /// Appends a string as a JSON string literal: quotes, backslashes and control characters escaped, the rest
    /// as it is (JSON text is UTF-8).
    static func appendJSONString(_ string: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        func append(_ byte: UInt8) {
            switch byte {
            case UInt8(ascii: "\""): json.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): json.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): json.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): json.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): json.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                json.append(contentsOf: Array("\\u00".utf8))
                json.append(hex[Int(byte >> 4)])
                json.append(hex[Int(byte & 0xF)])
            default: json.append(byte)
            }
        }
        // A native string's bytes are read in place; another string's one by one.
        let read: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { append(byte) }
        }
        if read == nil {
            for byte in string.utf8 { append(byte) }
        }
        json.append(UInt8(ascii: "\""))
    }

    private func stringFunction(
        _ op: PreparedStringPattern.Operator, _ text: String, _ pattern: String, _ options: QueryComparison.Options
    ) -> String {
        "\(SQLStringFunctions.string)(\(op.rawValue), \(text), \(pattern), \(Self.flags(options)))"
    }

    private func primaryKey(of id: ObjectID, root: EntityDescription) -> Int64? {
        guard id.isStored(in: store), id.entity.rootEntity === root else { return nil }
        return id.primaryKey
    }

    private mutating func objectComparison(
        _ sql: String,
        _ root: EntityDescription,
        _ op: QueryComparison.Operator,
        _ right: Operand
    ) throws -> String {
        switch op {
        case .equalTo, .notEqualTo:
            let equal = op == .equalTo
            switch right {
            case .constant(.null):
                return equal ? "\(sql) IS NULL" : "\(sql) IS NOT NULL"
            case .constant, .list:
                return dialect.truth(!equal)
            case .objectConstant(let id):
                guard let key = primaryKey(of: id, root: root) else { return dialect.truth(!equal) }
                return equal ? "\(sql) = \(bind(.integer(key)))" : "\(sql) \(dialect.same(false)) \(bind(.integer(key)))"
            case .object(let other, let otherRoot, _) where otherRoot === root:
                return "\(sql) \(dialect.same(equal)) \(other)"
            default:
                throw Unsupported(reason: "a comparison of objects of this shape")
            }
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return dialect.alwaysFalse
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                throw Unsupported(reason: "BETWEEN without two bounds")
            }
            return dialect.alwaysFalse
        case .in:
            guard case .list(let elements) = right else {
                if right.isConstant { return dialect.alwaysFalse }
                throw Unsupported(reason: "IN with objects of this shape")
            }
            var hasNull = false
            var keys: [AttributeValue] = []
            for element in elements {
                switch element {
                case .constant(.null): hasNull = true
                case .objectConstant(let id): if let key = primaryKey(of: id, root: root) { keys.append(.integer(key)) }
                case .constant, .list: continue
                default: throw Unsupported(reason: "IN with values that are not constants")
                }
            }
            var parts: [String] = []
            if hasNull { parts.append("\(sql) IS NULL") }
            if !keys.isEmpty { parts.append("\(sql) IN \(inList(keys))") }
            return parts.isEmpty ? dialect.alwaysFalse : "(" + parts.joined(separator: " OR ") + ")"
        case .contains, .beginsWith, .endsWith, .like, .matches:
            return dialect.alwaysFalse
        }
    }

    // MARK: - Expressions

    package mutating func operand(_ expression: QueryExpression, _ environment: Environment) throws -> Operand {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .objectID(let id):
            return .objectConstant(id)
        case .array(let elements):
            return .list(try elements.map { try operand($0, environment) })
        case .evaluatedObject:
            return environment.selfValue
        case .variable(let name):
            guard let value = environment.variables[name] else {
                throw Unsupported(reason: "the unbound variable $\(name)")
            }
            return value
        case .keyPath(let keyPath):
            if let named = environment.names[keyPath] { return named }
            return try path(keyPath, from: environment.selfValue)
        case .member(let base, let keyPath):
            return try path(keyPath, from: try operand(base, environment))
        case .aggregate(let aggregate, let collection, let keyPath):
            return try self.aggregate(aggregate, collection, keyPath, environment)
        case .subquery:
            throw Unsupported(reason: "a SUBQUERY outside an aggregate")
        case .cast:
            throw Unsupported(reason: "a CAST of a value read from objects")
        case .function(let function, let arguments):
            return try self.function(function, arguments, environment)
        }
    }

    private mutating func path(_ keyPath: String, from base: Operand) throws -> Operand {
        guard case .object(_, _, let row?) = base else {
            throw Unsupported(reason: "the key path '\(keyPath)' from a value without a row")
        }
        return try resolve(QueryExpression.components(of: keyPath), from: row)
    }

    /// Follows key path components from a row: to-one steps are joined; the first to-many step makes the
    /// rest a collection.
    package mutating func resolve(_ components: [String], from start: Row) throws -> Operand {
        var row = start
        var prefixNull: String?
        guard !components.isEmpty else { throw Unsupported(reason: "an empty key path") }
        for (index, key) in components.enumerated() {
            let isLast = index == components.count - 1
            guard let property = row.entity.propertiesByName[key], !property.isTransient else {
                throw Unsupported(reason: "'\(key)' is not a persistent property of '\(row.entity.name)'")
            }
            if let attribute = property as? AttributeDescription {
                guard isLast else { throw Unsupported(reason: "a key path that continues after attribute '\(key)'") }
                return try attributeOperand(attribute, alias: row.alias)
            }
            if let composite = property as? CompositeAttributeDescription {
                // `address.city`: an element of a composite, a column of the row.
                guard let leaf = composite.leaf(forPath: components[(index + 1)...]) else {
                    throw Unsupported(reason: "'\(components.joined(separator: "."))' names no element of composite '\(key)'")
                }
                return try attributeOperand(leaf, alias: row.alias)
            }
            guard let relationship = property as? RelationshipDescription,
                let destination = relationship.resolvedDestination
            else { throw Unsupported(reason: "'\(key)' has no destination") }
            if relationship.isToMany {
                return .collection(
                    CollectionPath(start: row, prefixNull: prefixNull, components: Array(components[index...])))
            }
            guard let column = schema.foreignKeyColumn(of: relationship) else {
                throw Unsupported(reason: "'\(key)' has no column")
            }
            if isLast {
                return .object("\(row.alias).\(dialect.quote(column))", root: destination.rootEntity, row: nil)
            }
            guard let alias = row.scope.join(from: row.alias, through: relationship, schema: schema) else {
                throw Unsupported(reason: "'\(key)' cannot be joined")
            }
            row = Row(alias: alias, entity: destination, scope: row.scope)
            prefixNull = "\(alias).Z_PK IS NULL"
        }
        throw Unsupported(reason: "an empty key path")
    }

    private func attributeOperand(_ attribute: AttributeDescription, alias: String) throws -> Operand {
        guard let column = schema.column(of: attribute) else {
            throw Unsupported(reason: "attribute '\(attribute.name)' has no column")
        }
        let sql = "\(alias).\(dialect.quote(column))"
        if attribute.allowsExternalBinaryDataStorage { return .scalar(sql, nil) }
        // Exact decimal text (see SQLiteDecimal) compares as the number it names.
        if attribute.attributeType == .decimal { return .scalar(dialect.real(sql), .number) }
        return .scalar(sql, Kind(attribute.attributeType))
    }

    /// The FROM clause of a subquery that lists the elements of a collection path.
    package mutating func chain(_ path: CollectionPath) throws -> Chain {
        let scope = SQLQueryScope(counter: counter, dialect: dialect)
        var from = ""
        var conditions: [String] = []
        var row = path.start
        var afterToOne = false
        for (index, key) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            guard let property = row.entity.propertiesByName[key], !property.isTransient else {
                throw Unsupported(reason: "'\(key)' is not a persistent property of '\(row.entity.name)'")
            }
            if let attribute = property as? AttributeDescription {
                guard isLast else { throw Unsupported(reason: "a key path that continues after attribute '\(key)'") }
                return Chain(
                    from: from, conditions: conditions, element: try attributeOperand(attribute, alias: row.alias),
                    scope: scope)
            }
            if let composite = property as? CompositeAttributeDescription,
                let leaf = composite.leaf(forPath: path.components[(index + 1)...])
            {
                return Chain(from: from, conditions: conditions, element: try attributeOperand(leaf, alias: row.alias), scope: scope)
            }
            guard let relationship = property as? RelationshipDescription,
                let destination = relationship.resolvedDestination,
                let destinationTable = schema.table(for: destination)
            else { throw Unsupported(reason: "'\(key)' has no destination") }
            let table = dialect.quote(destinationTable.name)
            if relationship.isToMany {
                // A nil to-one step inside the collection would contribute a nil element in memory.
                guard !afterToOne else { throw Unsupported(reason: "a to-many step after a to-one step in a collection") }
                let alias = counter.make()
                if let key = schema.memberKey(for: relationship) {
                    let condition = "\(alias).\(dialect.quote(key.column)) = \(row.alias).Z_PK"
                    if from.isEmpty {
                        from = "\(table) \(alias)"
                        conditions.append(condition)
                    } else {
                        from += " JOIN \(table) \(alias) ON \(condition)"
                    }
                } else if let join = schema.joinTable(for: relationship) {
                    let forward = join.relationship === relationship
                    let source = dialect.quote(forward ? join.sourceColumn : join.destinationColumn)
                    let member = dialect.quote(forward ? join.destinationColumn : join.sourceColumn)
                    let link = counter.make()
                    let condition = "\(link).\(source) = \(row.alias).Z_PK"
                    let destinationJoin = "JOIN \(table) \(alias) ON \(alias).Z_PK = \(link).\(member)"
                    let rows = join.readSource(dialect.quote)
                    if from.isEmpty {
                        from = "\(rows) \(link) \(destinationJoin)"
                        conditions.append(condition)
                    } else {
                        from += " JOIN \(rows) \(link) ON \(condition) \(destinationJoin)"
                    }
                } else {
                    throw Unsupported(reason: "'\(key)' has no foreign key or join table")
                }
                row = Row(alias: alias, entity: destination, scope: scope)
                if isLast {
                    return Chain(
                        from: from, conditions: conditions,
                        element: .object("\(alias).Z_PK", root: destination.rootEntity, row: row), scope: scope)
                }
            } else {
                guard let foreignKey = schema.foreignKeyColumn(of: relationship) else {
                    throw Unsupported(reason: "'\(key)' has no column")
                }
                let sql = "\(row.alias).\(dialect.quote(foreignKey))"
                if isLast {
                    return Chain(
                        from: from, conditions: conditions,
                        element: .object(sql, root: destination.rootEntity, row: nil), scope: scope)
                }
                let alias = counter.make()
                from += " LEFT JOIN \(table) \(alias) ON \(alias).Z_PK = \(sql)"
                row = Row(alias: alias, entity: destination, scope: scope)
                afterToOne = true
            }
        }
        throw Unsupported(reason: "an empty key path")
    }

    // MARK: - Aggregates

    mutating func aggregate(
        _ aggregate: QueryExpression.Aggregate,
        _ collection: QueryExpression,
        _ keyPath: String?,
        _ environment: Environment
    ) throws -> Operand {
        let chain: Chain
        var condition: String?
        var element: Operand
        if case .subquery(let source, let variable, let predicate) = collection {
            guard case .collection(let path) = try operand(source, environment) else {
                throw Unsupported(reason: "a SUBQUERY over something other than a to-many key path")
            }
            chain = try self.chain(path)
            var inner = environment
            inner.selfValue = chain.element
            inner.variables[variable] = chain.element
            condition = try compile(predicate, inner)
            element = chain.element
            if let keyPath {
                guard case .object(_, _, let row?) = chain.element else {
                    throw Unsupported(reason: "a key path after a SUBQUERY of values")
                }
                element = try resolve(QueryExpression.components(of: keyPath), from: row)
            }
        } else {
            switch try operand(collection, environment) {
            case .collection(var path):
                if let keyPath { path.components += QueryExpression.components(of: keyPath) }
                chain = try self.chain(path)
                element = chain.element
            case .scalar(let sql, _) where aggregate == .count && keyPath == nil:
                return .scalar("(CASE WHEN \(sql) IS NULL THEN 0 ELSE 1 END)", .number)
            case .object(let sql, _, _) where aggregate == .count && keyPath == nil:
                return .scalar("(CASE WHEN \(sql) IS NULL THEN 0 ELSE 1 END)", .number)
            default:
                throw Unsupported(reason: "\(aggregate.keyPathOperator) over something other than a to-many key path")
            }
        }
        let function: String
        let kind: Kind?
        switch aggregate {
        case .count:
            function = "COUNT(*)"
            kind = .number
        case .sum, .avg:
            guard case .scalar(let sql, .number) = element else {
                throw Unsupported(reason: "\(aggregate.keyPathOperator) over values that are not numbers")
            }
            function = aggregate == .sum ? dialect.total(sql) : "AVG(\(sql))"
            kind = .number
        case .min, .max:
            guard case .scalar(let sql, let elementKind?) = element else {
                throw Unsupported(reason: "\(aggregate.keyPathOperator) over objects or external data")
            }
            function = (aggregate == .min ? "MIN(" : "MAX(") + sql + ")"
            kind = elementKind
        case .unionOfObjects, .distinctUnionOfObjects, .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            throw Unsupported(reason: "\(aggregate.keyPathOperator), evaluated in memory")
        }
        return .scalar("(\(chain.select(function, where: condition)))", kind)
    }
}
