import QuireCore
import Foundation

extension SQLPredicateCompiler {
    /// Compiles a function expression (``QueryExpression/Function``) into an SQL value that is exactly what the
    /// evaluator computes, or throws ``Unsupported`` so that the context evaluates it in memory.
    ///
    /// - Functions of constants (but `now`, `random`, `randomn:`) are evaluated now and bound.
    /// - `+`, `-`, `*`, `/` of numbers are SQL's own operators, whose integer and floating-point arithmetic is
    ///   the evaluator's (PostgreSQL divides by `NULLIF(b, 0)`, as SQLite's division by zero is NULL); a date
    ///   plus or minus seconds and the difference of two dates too. `now()` is the database's clock.
    /// - `sum:`, `count:`, `min:`, `max:` and `average:` of a to-many key path are the `@sum`… subqueries.
    /// - SQLite computes the other numeric and string functions with the evaluator's own Swift code
    ///   (``SQLiteExpressionFunction``); PostgreSQL computes `abs:`, `ceiling:`, `floor:` and `trunc:` itself
    ///   and leaves the rest (whose errors and Unicode case mappings differ) to memory.
    /// - `median:`, `mode:`, `stddev:`, the random functions, `castObject:toType:` and
    ///   `distanceToLocation:fromLocation:` are left to memory.
    mutating func function(
        _ function: QueryExpression.Function, _ arguments: [QueryExpression], _ environment: Environment
    ) throws -> Operand {
        let expression = QueryExpression.function(function, arguments)
        if Self.isConstant(expression) {
            do {
                let value = try PredicateEvaluator(substitutionVariables: [:]).value(of: expression, on: .null)
                return try Self.constantOperand(value)
            } catch let unsupported as Unsupported {
                throw unsupported
            } catch {
                throw Unsupported(reason: "\(error)")
            }
        }
        if let aggregate = function.aggregate {
            guard arguments.count == 1 else { throw Unsupported(reason: "\(function.name) with \(arguments.count) arguments") }
            return try self.aggregate(aggregate, arguments[0], nil, environment)
        }
        switch function {
        case .now:
            return .scalar(dialect.now, .date)
        case .noindex:
            guard arguments.count == 1 else { throw Unsupported(reason: "noindex: without one argument") }
            return try operand(arguments[0], environment)
        case .add, .subtract, .multiply, .divide:
            let (a, kindA) = try value(arguments, 0, environment)
            let (b, kindB) = try value(arguments, 1, environment)
            let kind: Kind
            switch (kindA, kindB, function) {
            case (.number, .number, _): kind = .number
            case (.date, .number, .add), (.date, .number, .subtract), (.number, .date, .add): kind = .date
            case (.date, .date, .subtract): kind = .number
            default: throw Unsupported(reason: "\(function.name) of values of these kinds")
            }
            switch function {
            case .add: return .scalar("(\(a) + \(b))", kind)
            case .subtract: return .scalar("(\(a) - \(b))", kind)
            case .multiply: return .scalar("(\(a) * \(b))", kind)
            default: return .scalar(dialect.divisionByZeroIsNull ? "(\(a) / \(b))" : "(\(a) / NULLIF(\(b), 0))", kind)
            }
        case .abs, .ceiling, .floor, .trunc, .sqrt, .log, .ln, .exp, .raise, .modulus, .bitwiseAnd, .bitwiseOr,
            .bitwiseXor, .leftshift, .rightshift, .onesComplement:
            var values: [String] = []
            for index in arguments.indices {
                let (sql, kind) = try value(arguments, index, environment)
                guard kind == .number else { throw Unsupported(reason: "\(function.name) of a value that is not a number") }
                values.append(sql)
            }
            if !dialect.callsSwiftFunctions {
                switch function {
                case .abs: return .scalar("abs(\(values[0]))", .number)
                case .ceiling: return .scalar("ceil(\(dialect.real(values[0])))", .number)
                case .floor: return .scalar("floor(\(dialect.real(values[0])))", .number)
                case .trunc: return .scalar("trunc(\(dialect.real(values[0])))", .number)
                default: throw Unsupported(reason: "\(function.name) in \(dialect.name)")
                }
            }
            return .scalar(try swiftCall(function, values), .number)
        case .lowercase, .uppercase, .length:
            let (sql, kind) = try value(arguments, 0, environment)
            guard kind == .string || (function == .length && kind == .data) else {
                throw Unsupported(reason: "\(function.name) of a value of this kind")
            }
            guard dialect.callsSwiftFunctions else { throw Unsupported(reason: "\(function.name) in \(dialect.name)") }
            return .scalar(try swiftCall(function, [sql]), function == .length ? .number : .string)
        default:
            throw Unsupported(reason: "the function \(function.name), evaluated in memory")
        }
    }

    private func swiftCall(_ function: QueryExpression.Function, _ arguments: [String]) throws -> String {
        guard let sql = dialect.swiftFunctionCall?(function, arguments) else {
            throw Unsupported(reason: "the function \(function.name)")
        }
        return sql
    }

    /// The SQL and kind of a function's argument: a value read from rows, or a bound constant.
    private mutating func value(
        _ arguments: [QueryExpression], _ index: Int, _ environment: Environment
    ) throws -> (String, Kind) {
        guard arguments.indices.contains(index) else { throw Unsupported(reason: "a function without its arguments") }
        switch try operand(arguments[index], environment) {
        case .scalar(let sql, let kind?):
            return (sql, kind)
        case .constant(let value):
            guard let kind = Kind(value) else { throw Unsupported(reason: "a function of nil") }
            if case .boolean(let flag) = value { return (bind(.integer(flag ? 1 : 0)), kind) }
            return (bind(value), kind)
        default:
            throw Unsupported(reason: "a function of an object, a collection or external binary data")
        }
    }

    /// Whether an expression is a constant, or a deterministic function of constants.
    private static func isConstant(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .constant: return true
        case .array(let elements): return elements.allSatisfy(isConstant)
        case .function(let function, let arguments): return function.isDeterministic && arguments.allSatisfy(isConstant)
        default: return false
        }
    }

    private static func constantOperand(_ value: PredicateValue) throws -> Operand {
        switch value {
        case .value(let value): return .constant(value)
        case .collection(let elements): return .list(try elements.map(constantOperand))
        case .object: throw Unsupported(reason: "a function whose value is an object")
        }
    }
}
