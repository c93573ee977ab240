import QuireSupport
import Foundation

/// Renders archived `NSPredicate` and `NSExpression` objects as predicate-format text (`length >= 3`,
/// `authorAlias == $FETCH_SOURCE.alias`), the form Quire's `QueryPredicate(format:)` parses.
///
/// Covers what models use: comparison and compound predicates, constants, `SELF`, variables, key paths,
/// functions, aggregates, subqueries and ternaries. Anything else renders as `<ClassName>` with a warning.
extension DecodingContext {
    /// The predicate at a field, or nil when absent.
    func predicate(_ key: String, _ object: ArchivedObject, at location: String) throws -> String? {
        guard let predicate = try self.object(key, object) else { return nil }
        return try format(predicate: predicate, depth: 0, at: location)
    }

    func format(predicate: ArchivedObject, depth: Int, at location: String) throws -> String {
        try checkDepth(depth)
        return try formatted(predicate.uid) { try formatUncharged(predicate: predicate, depth: depth, at: location) }
    }

    /// The text of an archived predicate or expression, made once per object: a later reference shares it and
    /// charges the budget with its length again, so a predicate that refers twice to the next level at every
    /// level is refused once its text passes ``DecodingLimits/maximumExpandedSize``, after a few dozen levels
    /// made once each, instead of being rendered 2ⁿ times.
    private func formatted(_ uid: UInt64, _ make: () throws -> String) throws -> String {
        if let known = formattedTexts[uid] {
            try budget.charge(values: 1, bytes: known.utf8.count)
            return known
        }
        let text = try make()
        try checkLength(text.utf8.count)
        try budget.charge(values: 1, bytes: text.utf8.count)
        formattedTexts[uid] = text
        return text
    }

    /// Refuses a predicate or expression text longer than ``DecodingLimits/maximumPredicateLength``: a part is
    /// checked as it is made, so no text grows past twice the limit before it is refused.
    private func checkLength(_ length: Int) throws {
        guard length <= limits.maximumPredicateLength else {
            throw CompiledModelError.limitExceeded(what: "bytes in one predicate's text", limit: limits.maximumPredicateLength)
        }
    }

    private func formatUncharged(predicate: ArchivedObject, depth: Int, at location: String) throws -> String {
        switch predicate.className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        default: break
        }
        if predicate.isKind(of: "NSCompoundPredicate") {
            let type = try int("NSCompoundPredicateType", predicate)
            let parts = try elements("NSSubpredicates", predicate).map { element -> String in
                guard case .object(let sub) = element else {
                    throw CompiledModelError.invalidValue(key: "NSSubpredicates", className: predicate.className, expected: "predicates")
                }
                let text = try format(predicate: sub, depth: depth + 1, at: location)
                return sub.isKind(of: "NSCompoundPredicate") ? "(\(text))" : text
            }
            switch type {
            case 0: return parts.count == 1 ? "NOT \(parts[0])" : "NOT (\(parts.joined(separator: " AND ")))"
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default:
                warn(location, "unknown compound predicate type \(type)")
                return parts.joined(separator: " AND ")
            }
        }
        if predicate.isKind(of: "NSComparisonPredicate") {
            guard let left = try object("NSLeftExpression", predicate), let right = try object("NSRightExpression", predicate) else {
                throw CompiledModelError.missingKey(key: "NSLeftExpression", className: predicate.className)
            }
            let leftText = try format(expression: left, depth: depth + 1, at: location)
            let rightText = try format(expression: right, depth: depth + 1, at: location)
            let operatorText: String
            var modifier = 0
            if let op = try object("NSPredicateOperator", predicate) {
                operatorText = try format(operator: op, at: location)
                modifier = try int("NSModifier", op)
            } else {
                operatorText = "=="
            }
            let prefix = modifier == 1 ? "ANY " : modifier == 2 ? "ALL " : ""
            return "\(prefix)\(leftText) \(operatorText) \(rightText)"
        }
        warn(location, "predicate class \(predicate.className) is not rendered")
        return "<\(predicate.className)>"
    }

    /// The operator's text with its options: `==`, `CONTAINS[cd]`, `BETWEEN`.
    private func format(operator op: ArchivedObject, at location: String) throws -> String {
        let type = try int("NSOperatorType", op)
        let options = try int("NSOptions", op, default: try int("NSFlags", op))
        let negate = try bool("NSNegate", op)
        let name: String
        switch type {
        case 0: name = "<"
        case 1: name = "<="
        case 2: name = ">"
        case 3: name = ">="
        case 4: name = negate ? "!=" : "=="
        case 5: name = negate ? "==" : "!="
        case 6: name = "MATCHES"
        case 7: name = "LIKE"
        case 8: name = "BEGINSWITH"
        case 9: name = "ENDSWITH"
        case 10: name = "IN"
        case 11: name = try string("NSSelector", op) ?? "<custom>"
        case 99: name = "CONTAINS"
        case 100: name = "BETWEEN"
        default:
            warn(location, "unknown predicate operator type \(type)")
            name = "<operator \(type)>"
        }
        var flags = ""
        if options & 1 != 0 { flags += "c" }
        if options & 2 != 0 { flags += "d" }
        if options & 8 != 0 { flags += "n" }
        return flags.isEmpty ? name : "\(name)[\(flags)]"
    }

    func format(expression: ArchivedObject, depth: Int, at location: String) throws -> String {
        try checkDepth(depth)
        return try formatted(expression.uid) { try formatUncharged(expression: expression, depth: depth, at: location) }
    }

    private func formatUncharged(expression: ArchivedObject, depth: Int, at location: String) throws -> String {
        let type = try int("NSExpressionType", expression, default: -1)
        if expression.isKind(of: "NSSelfExpression") || type == 1 { return "SELF" }
        if expression.isKind(of: "NSVariableExpression") || type == 2 {
            return "$" + (try string("NSVariable", expression) ?? "")
        }
        if expression.isKind(of: "NSKeyPathSpecifierExpression") || type == 10 {
            return try string("NSKeyPath", expression) ?? ""
        }
        if expression.isKind(of: "NSConstantValueExpression") || type == 0 {
            return try formatConstant(try value("NSConstantValue", expression), depth: depth + 1, at: location)
        }
        if expression.isKind(of: "NSKeyPathExpression") || type == 3 {
            let path = try arguments(of: expression, depth: depth, at: location).joined(separator: ".")
            guard let operand = try object("NSOperand", expression) else { return path }
            let operandText = try format(expression: operand, depth: depth + 1, at: location)
            return operandText == "SELF" ? path : "\(operandText).\(path)"
        }
        if expression.isKind(of: "NSFunctionExpression") || type == 4 {
            let selector = try string("NSSelectorName", expression) ?? ""
            let arguments = try arguments(of: expression, depth: depth, at: location)
            let operand = try object("NSOperand", expression)
            // valueForKeyPath: on a variable or object is a key path with that operand.
            if selector == "valueForKeyPath:" || selector == "valueForKey:", let operand {
                let operandText = try format(expression: operand, depth: depth + 1, at: location)
                let path = arguments.joined(separator: ".")
                return operandText == "SELF" ? path : "\(operandText).\(path)"
            }
            // Built-in functions have _NSPredicateUtilities as operand: `count:(pages)`.
            if let operand, operand.isKind(of: "NSConstantValueExpression"), try value("NSConstantValue", operand).isNull {
                return "\(selector)(\(arguments.joined(separator: ", ")))"
            }
            let operandText = try operand.map { try format(expression: $0, depth: depth + 1, at: location) } ?? "nil"
            return "FUNCTION(\(([operandText, "'\(selector)'"] + arguments).joined(separator: ", ")))"
        }
        if expression.isKind(of: "NSAggregateExpression") || type == 14 {
            return try formatConstant(try value("NSCollection", expression), depth: depth + 1, at: location)
        }
        if expression.isKind(of: "NSSubqueryExpression") || type == 13 {
            let collection = try object("NSCollection", expression).map { try format(expression: $0, depth: depth + 1, at: location) } ?? "nil"
            let variable = try string("NSVariable", expression) ?? (try object("NSVariableExpression", expression).flatMap { try string("NSVariable", $0) }) ?? "x"
            let inner = try object("NSSubpredicate", expression).map { try format(predicate: $0, depth: depth + 1, at: location) } ?? "TRUEPREDICATE"
            return "SUBQUERY(\(collection), $\(variable), \(inner))"
        }
        if expression.isKind(of: "NSTernaryExpression") || type == 20 {
            let condition = try object("NSPredicate", expression).map { try format(predicate: $0, depth: depth + 1, at: location) } ?? "TRUEPREDICATE"
            let yes = try object("NSTrueExpression", expression).map { try format(expression: $0, depth: depth + 1, at: location) } ?? "nil"
            let no = try object("NSFalseExpression", expression).map { try format(expression: $0, depth: depth + 1, at: location) } ?? "nil"
            return "TERNARY(\(condition), \(yes), \(no))"
        }
        warn(location, "expression class \(expression.className) (type \(type)) is not rendered")
        return "<\(expression.className)>"
    }

    private func arguments(of expression: ArchivedObject, depth: Int, at location: String) throws -> [String] {
        try elements("NSArguments", expression).map { element in
            guard case .object(let argument) = element else {
                return try formatConstant(element, depth: depth + 1, at: location)
            }
            return try format(expression: argument, depth: depth + 1, at: location)
        }
    }

    /// A constant as predicate-format text.
    func formatConstant(_ value: ArchiveValue, depth: Int, at location: String) throws -> String {
        try checkDepth(depth)
        try budget.charge()
        switch value {
        case .null: return "nil"
        case .boolean(let flag): return flag ? "YES" : "NO"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .string(let text):
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        case .date(let date): return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let bytes):
            try checkLength(2 * bytes.count + 2)
            return "<\(bytes.map { String(format: "%02x", $0) }.joined())>"
        case .array(let values), .set(let values):
            return "{" + (try values.map { try formatConstant($0, depth: depth + 1, at: location) }).joined(separator: ", ") + "}"
        case .dictionary:
            warn(location, "a dictionary constant is not rendered")
            return "<NSDictionary>"
        case .object(let object):
            if object.isKind(of: "NSExpression") { return try format(expression: object, depth: depth + 1, at: location) }
            if case .string(let text)? = try modelValue(.object(object)).userInfoString.map(ModelValue.string) {
                return "\"\(text)\""
            }
            warn(location, "a constant of class \(object.className) is not rendered")
            return "<\(object.className)>"
        }
    }

    private func checkDepth(_ depth: Int) throws {
        guard depth <= limits.maximumDepth else {
            throw CompiledModelError.limitExceeded(what: "levels of predicate nesting", limit: limits.maximumDepth)
        }
    }
}
