import QuireCore
import QuireStores
import Foundation

/// The small keyed archives inside a mapping model: a property mapping's value expression (`valueExpressionData`,
/// an archived `NSExpression`) and the user info of entity and property mappings (`userInfoData`, an archived
/// `NSDictionary`).
enum XcodeMappingArchives {
    /// The text of an archived `NSExpression`, as Xcode's editor shows it (`$source.continent.numericISO3166Code`,
    /// `YES`, `FUNCTION($manager, "…", "CountryToCountry", $source.country)`), to be read by
    /// ``MappingExpression/init(format:)``.
    ///
    /// - Throws: ``CompiledModelError`` for an archive that is not an expression or holds one of a kind value
    ///   expressions cannot be (a subquery, a block, an aggregate of objects).
    static func expressionText(_ data: Data) throws -> String {
        let archive = try KeyedArchive(data: data)
        let resolver = ArchiveResolver(archive: archive)
        return try ExpressionText(resolver: resolver).text(of: try resolver.object(at: try archive.rootUID()), depth: 0)
    }

    /// An archived dictionary of user info, with every value as text (`modelVersion` → `"2"`).
    ///
    /// - Throws: ``CompiledModelError`` for an archive that is not a dictionary.
    static func userInfo(_ data: Data) throws -> [String: String] {
        let archive = try KeyedArchive(data: data)
        let resolver = ArchiveResolver(archive: archive)
        guard case .dictionary(let entries) = try resolver.resolve(uid: try archive.rootUID()) else {
            throw CompiledModelError.unexpectedClass(expected: "a dictionary", found: "another value", context: "user info")
        }
        var result: [String: String] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { continue }
            switch entry.value {
            case .string(let text): result[key] = text
            case .integer(let number): result[key] = String(number)
            case .real(let number): result[key] = String(number)
            case .boolean(let flag): result[key] = flag ? "YES" : "NO"
            case .date(let date): result[key] = ISO8601DateFormatter().string(from: date)
            default: continue
            }
        }
        return result
    }

    /// Renders archived expressions as format text.
    private struct ExpressionText {
        let resolver: ArchiveResolver

        func text(of expression: ArchivedObject, depth: Int) throws -> String {
            guard depth <= resolver.archive.limits.maximumDepth else {
                throw CompiledModelError.limitExceeded(what: "levels of nested expressions", limit: resolver.archive.limits.maximumDepth)
            }
            let type: Int64
            if case .integer(let number) = try resolver.value("NSExpressionType", of: expression) { type = number } else { type = -1 }
            func isKind(_ name: String, _ code: Int64) -> Bool { expression.isKind(of: name) || type == code }
            if isKind("NSConstantValueExpression", 0) {
                return try constant(try resolver.value("NSConstantValue", of: expression), depth: depth)
            }
            if isKind("NSSelfExpression", 1) { return "SELF" }
            if isKind("NSVariableExpression", 2) {
                guard let name = try resolver.value("NSVariable", of: expression).stringValue else {
                    throw CompiledModelError.missingKey(key: "NSVariable", className: expression.className)
                }
                return "$" + name
            }
            if isKind("NSKeyPathSpecifierExpression", 10) {
                guard let path = try resolver.value("NSKeyPath", of: expression).stringValue else {
                    throw CompiledModelError.missingKey(key: "NSKeyPath", className: expression.className)
                }
                return path
            }
            if isKind("NSKeyPathExpression", 3) {
                let path = try arguments(of: expression, depth: depth).joined(separator: ".")
                guard case .object(let operand) = try resolver.value("NSOperand", of: expression) else { return path }
                return joined(try text(of: operand, depth: depth + 1), path)
            }
            if isKind("NSFunctionExpression", 4) {
                let selector = try resolver.value("NSSelectorName", of: expression).stringValue ?? ""
                let arguments = try self.arguments(of: expression, depth: depth)
                let operand = try resolver.value("NSOperand", of: expression)
                // valueForKeyPath: and valueForKey: of an operand are key paths from it: $source.country.
                if selector == "valueForKeyPath:" || selector == "valueForKey:", case .object(let base) = operand {
                    return joined(try text(of: base, depth: depth + 1), arguments.joined(separator: "."))
                }
                // Built-in functions have a nil constant as operand (_NSPredicateUtilities): lowercase:(x).
                if case .object(let base) = operand, base.isKind(of: "NSConstantValueExpression"),
                    try resolver.value("NSConstantValue", of: base).isNull
                {
                    return "\(selector)(\(arguments.joined(separator: ", ")))"
                }
                guard case .object(let receiver) = operand else {
                    throw CompiledModelError.missingKey(key: "NSOperand", className: expression.className)
                }
                let quotedSelector = QueryExpression.constant(.string(selector)).expressionFormat
                return "FUNCTION(" + ([try text(of: receiver, depth: depth + 1), quotedSelector] + arguments).joined(separator: ", ") + ")"
            }
            if isKind("NSAggregateExpression", 14) {
                return try constant(try resolver.value("NSCollection", of: expression), depth: depth)
            }
            throw CompiledModelError.unexpectedClass(
                expected: "a value expression (constant, variable, key path or function)", found: expression.className,
                context: "a mapping's value expression")
        }

        private func arguments(of expression: ArchivedObject, depth: Int) throws -> [String] {
            let value = try resolver.value("NSArguments", of: expression)
            guard let elements = value.elements else { return [] }
            return try elements.map { element in
                if case .object(let argument) = element { return try text(of: argument, depth: depth + 1) }
                return try constant(element, depth: depth + 1)
            }
        }

        private func joined(_ base: String, _ path: String) -> String {
            if base == "SELF" || base.isEmpty { return path }
            return path.isEmpty ? base : base + "." + path
        }

        private func constant(_ value: ArchiveValue, depth: Int) throws -> String {
            switch value {
            case .null: return "nil"
            case .boolean(let flag): return flag ? "YES" : "NO"
            case .integer(let number): return String(number)
            case .real(let number): return QueryExpression.constant(.double(number)).expressionFormat
            case .string(let text): return QueryExpression.constant(.string(text)).expressionFormat
            case .date(let date): return QueryExpression.constant(.date(date)).expressionFormat
            case .array(let values), .set(let values):
                return "{" + (try values.map { element -> String in
                    if case .object(let inner) = element { return try text(of: inner, depth: depth + 1) }
                    return try constant(element, depth: depth + 1)
                }).joined(separator: ", ") + "}"
            case .object(let object):
                return try text(of: object, depth: depth + 1)
            case .data, .dictionary:
                throw CompiledModelError.unexpectedClass(
                    expected: "a constant a value expression can hold", found: value.kindName, context: "a mapping's value expression")
            }
        }
    }
}
