import QuireSupport
import Foundation

extension PredicateEvaluator {
    /// Applies a function (``QueryExpression/Function``) to its evaluated arguments, with Core Data's
    /// semantics and SQLite's arithmetic (see ``QueryExpression/Function``). A result that is not a number
    /// (NaN) is nil, as SQLite stores it.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for the wrong number of arguments, an argument of a kind
    ///   the function cannot take (a string to `add:to:`, a collection to `abs:`), `randomn:` of a number below 1,
    ///   and `distanceToLocation:fromLocation:`.
    package static func apply(_ function: QueryExpression.Function, to arguments: [PredicateValue]) throws -> PredicateValue {
        guard arguments.count == function.arity else {
            throw functionError(function, "takes \(function.arity) argument(s), not \(arguments.count)")
        }
        switch function {
        case .sum, .count, .min, .max, .average:
            guard let aggregate = function.aggregate else { return .null }
            return try reduce(elements(of: normalized(arguments[0])), with: aggregate)
        case .median, .mode, .stddev:
            return try statistic(function, elements(of: normalized(arguments[0])))
        case .add, .subtract, .multiply, .divide, .modulus:
            return .value(try arithmetic(function, try scalar(arguments[0], function), try scalar(arguments[1], function)))
        case .sqrt, .log, .ln, .exp, .ceiling, .trunc, .floor:
            guard let x = try number(arguments[0], function) else { return .null }
            let value = x.doubleValue
            let result: Double
            switch function {
            case .sqrt: result = value.squareRoot()
            case .log: result = Foundation.log10(value)
            case .ln: result = Foundation.log(value)
            case .exp: result = Foundation.exp(value)
            case .ceiling: result = value.rounded(.up)
            case .trunc: result = value.rounded(.towardZero)
            default: result = value.rounded(.down)
            }
            return double(result)
        case .raise:
            guard let x = try number(arguments[0], function), let y = try number(arguments[1], function) else { return .null }
            return double(Foundation.pow(x.doubleValue, y.doubleValue))
        case .abs:
            guard let x = try number(arguments[0], function) else { return .null }
            if case .integer(let i) = x {
                return i == .min ? .value(.double(-Double(i))) : .value(.integer(Swift.abs(i)))
            }
            return double(Swift.abs(x.doubleValue))
        case .random:
            return .value(.double(Double.random(in: 0..<1)))
        case .randomn:
            guard let n = try integer(arguments[0], function) else { return .null }
            guard n > 0 else { throw functionError(function, "needs a number of at least 1, not \(n)") }
            return .value(.integer(Int64.random(in: 0..<n)))
        case .now:
            return .value(.date(Date()))
        case .uppercase, .lowercase:
            switch try scalar(arguments[0], function) {
            case .null: return .null
            case .string(let text): return .value(.string(function == .uppercase ? text.uppercased() : text.lowercased()))
            case let other: throw functionError(function, "needs a string, not \(other)")
            }
        case .length:
            switch try scalar(arguments[0], function) {
            case .null: return .null
            case .string(let text): return .value(.integer(Int64(text.utf16.count)))
            case .data(let data): return .value(.integer(Int64(data.count)))
            case let other: throw functionError(function, "needs a string or data, not \(other)")
            }
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftshift, .rightshift:
            guard let a = try integer(arguments[0], function), let b = try integer(arguments[1], function) else { return .null }
            switch function {
            case .bitwiseAnd: return .value(.integer(a & b))
            case .bitwiseOr: return .value(.integer(a | b))
            case .bitwiseXor: return .value(.integer(a ^ b))
            case .leftshift: return .value(.integer(a << b))
            default: return .value(.integer(a >> b))
            }
        case .onesComplement:
            guard let a = try integer(arguments[0], function) else { return .null }
            return .value(.integer(~a))
        case .noindex:
            return arguments[0]
        case .castObject:
            guard case .value(.string(let type)) = normalized(arguments[1]) else {
                throw functionError(function, "needs a type name such as \"NSNumber\" as its second argument")
            }
            return try cast(arguments[0], to: type)
        case .distanceToLocation:
            throw functionError(function, "needs Core Location, which Quire does not have")
        }
    }

    /// `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:` and `modulus:by:` of two values, as SQLite
    /// computes them: integers stay integers unless the result overflows, division and modulus by zero are nil.
    package static func arithmetic(
        _ function: QueryExpression.Function, _ a: AttributeValue, _ b: AttributeValue
    ) throws -> AttributeValue {
        if a.isNull || b.isNull { return .null }
        switch (a, b, function) {
        case (.date(let date), _, .add), (.date(let date), _, .subtract):
            if case .date(let other) = b, function == .subtract {
                return .double(date.timeIntervalSinceReferenceDate - other.timeIntervalSinceReferenceDate)
            }
            guard let seconds = PredicateNumber(b)?.doubleValue else { break }
            return .date(date.addingTimeInterval(function == .add ? seconds : -seconds))
        case (_, .date(let date), .add):
            guard let seconds = PredicateNumber(a)?.doubleValue else { break }
            return .date(date.addingTimeInterval(seconds))
        default:
            break
        }
        guard let x = PredicateNumber(a), let y = PredicateNumber(b) else {
            let culprit = PredicateNumber(a) == nil ? a : b
            throw functionError(function, "needs numbers, not \(culprit)")
        }
        if case .integer(let i) = x, case .integer(let j) = y {
            let result: (partialValue: Int64, overflow: Bool)
            switch function {
            case .add: result = i.addingReportingOverflow(j)
            case .subtract: result = i.subtractingReportingOverflow(j)
            case .multiply: result = i.multipliedReportingOverflow(by: j)
            case .divide:
                if j == 0 { return .null }
                result = i.dividedReportingOverflow(by: j)
            default:
                if j == 0 { return .null }
                result = i.remainderReportingOverflow(dividingBy: j)
                if result.overflow { return .integer(0) }
            }
            if !result.overflow { return .integer(result.partialValue) }
        }
        let p = x.doubleValue
        let q = y.doubleValue
        let result: Double
        switch function {
        case .add: result = p + q
        case .subtract: result = p - q
        case .multiply: result = p * q
        case .divide:
            if q == 0 { return .null }
            result = p / q
        default:
            if q == 0 { return .null }
            result = p.truncatingRemainder(dividingBy: q)
        }
        return result.isNaN ? .null : .double(result)
    }

    // MARK: - Statistics

    private static func statistic(_ function: QueryExpression.Function, _ elements: [PredicateValue]) throws -> PredicateValue {
        var values: [AttributeValue] = []
        for element in elements {
            let value = try scalar(element, function)
            if !value.isNull { values.append(value) }
        }
        if function == .mode {
            var counts: [AttributeValue: Int] = [:]
            var order: [AttributeValue] = []
            for value in values {
                let key = PredicateNumber(value).map { AttributeValue.double($0.doubleValue) } ?? value
                if counts[key] == nil { order.append(value) }
                counts[key, default: 0] += 1
            }
            let most = counts.values.max() ?? 0
            let modes = order.filter { value in
                counts[PredicateNumber(value).map { AttributeValue.double($0.doubleValue) } ?? value] == most
            }
            return .collection(modes.map { .value($0) })
        }
        let numbers = try values.map { value in
            guard let number = PredicateNumber(value) else { throw functionError(function, "needs numbers, not \(value)") }
            return number
        }
        guard !numbers.isEmpty else { return .null }
        if function == .median {
            let sorted = numbers.sorted { PredicateNumber.compare($0, $1) == .orderedAscending }
            let middle = sorted.count / 2
            if sorted.count % 2 == 1 {
                switch sorted[middle] {
                case .integer(let i): return .value(.integer(i))
                case .double(let d): return .value(.double(d))
                case .decimal(let d): return .value(.decimal(d))
                }
            }
            return double((sorted[middle - 1].doubleValue + sorted[middle].doubleValue) / 2)
        }
        let doubles = numbers.map(\.doubleValue)
        let mean = doubles.reduce(0, +) / Double(doubles.count)
        let variance = doubles.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(doubles.count)
        return double(variance.squareRoot())
    }

    // MARK: - Arguments

    private static func double(_ value: Double) -> PredicateValue {
        value.isNaN ? .null : .value(.double(value))
    }

    private static func functionError(_ function: QueryExpression.Function, _ message: String) -> QuireError {
        QuireError(.predicateEvaluation, "The function \(function.name) \(message).")
    }

    /// A single value argument (nil for nil); collections and objects are refused.
    private static func scalar(_ argument: PredicateValue, _ function: QueryExpression.Function) throws -> AttributeValue {
        guard case .value(let value) = normalized(argument) else {
            throw functionError(function, "needs a value, not an object or a collection")
        }
        return value
    }

    /// A number argument; nil for nil.
    private static func number(_ argument: PredicateValue, _ function: QueryExpression.Function) throws -> PredicateNumber? {
        let value = try scalar(argument, function)
        if value.isNull { return nil }
        guard let number = PredicateNumber(value) else { throw functionError(function, "needs a number, not \(value)") }
        return number
    }

    /// A number argument as a 64-bit integer (toward zero); nil for nil or a number beyond 64 bits.
    private static func integer(_ argument: PredicateValue, _ function: QueryExpression.Function) throws -> Int64? {
        guard let number = try number(argument, function) else { return nil }
        if case .integer(let i) = number { return i }
        let value = number.doubleValue.rounded(.towardZero)
        return Int64(exactly: value)
    }
}
