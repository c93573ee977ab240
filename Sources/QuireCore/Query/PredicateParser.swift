import QuireSupport
import Foundation

/// A recursive-descent parser for Core Data's predicate format syntax.
///
/// Grammar, loosest binding first (keywords are case-insensitive):
///
/// ```
/// predicate   := and ( (OR | ||) and )*
/// and         := not ( (AND | &&) not )*
/// not         := (NOT | !) not | primary
/// primary     := TRUEPREDICATE | FALSEPREDICATE | '(' predicate ')' | comparison
/// comparison  := [ANY | SOME | ALL | NONE] expression operator ['[' options ']'] expression
/// expression  := product ( ('+' | '-') product )*
/// product     := power ( ('*' | '/') power )*
/// power       := unary [ '**' power ]
/// unary       := '-' unary | path
/// path        := term ( '.' key | '.' @operator )*      @operator := @count | @sum | @avg | @min | @max
///                                                       | @unionOfObjects | @distinctUnionOfObjects | …
/// term        := key | #key | SELF | $variable | @operator | string | number | TRUE | FALSE | YES | NO
///              | NIL | NULL | %@ | %K | %d | %f | %s … | '{' [expression (',' expression)*] '}'
///              | SUBQUERY '(' expression ',' $variable ',' predicate ')' | CAST '(' expression ',' string ')'
///              | '(' expression ')' | name '(' [expression (',' expression)*] ')'
/// name        := word | (word ':')+                     (now, lowercase, lowercase:, add:to:, …)
/// ```
///
/// A parenthesis where a predicate may start is read as a parenthesized predicate first, and as the start of
/// an expression (`(a + b) * 2 > c`) when that fails.
///
/// Nesting (parentheses, `NOT`, expressions inside arrays, subqueries and casts) is capped at
/// ``maximumDepth`` levels, so no input can exhaust the stack.
struct PredicateParser {
    /// The deepest nesting the parser accepts.
    static let maximumDepth = 256

    private let source: String
    private let tokens: [PredicateToken]
    private let arguments: [Any]
    private var index = 0
    private var argumentIndex = 0
    private var depth = 0
    /// What reading a parenthesized predicate at a token gave, by the token's index: `parsePrimary` reads a
    /// parenthesis as a predicate first and as an expression when that fails, and the expression may hold a
    /// subquery whose predicate starts with parentheses again, so without this the same tokens could be read
    /// once per path to them, twice more for every level of such nesting (a fuzzed input of 331 bytes ran for
    /// minutes).
    private var parenthesizedPredicates: [Int: ParenthesizedPredicateAttempt] = [:]

    /// Tokenizes a format string and prepares to parse it.
    ///
    /// - Throws: ``QuireError/Code/predicateSyntax`` when the string does not tokenize.
    init(format: String, arguments: [Any]) throws {
        try self.init(format: format, entry: PredicateTokenCache.entry(for: format), arguments: arguments)
    }

    /// Prepares to parse a format string whose tokens were read before.
    init(format: String, entry: PredicateTokenCache.Entry, arguments: [Any]) {
        self.tokens = entry.tokens
        self.source = format
        self.arguments = arguments
    }

    /// Parses the whole input as one predicate.
    mutating func parsePredicateToEnd() throws -> QueryPredicate {
        if current.kind == .end { throw expected("a predicate") }
        let predicate = try parseOr()
        guard current.kind == .end else { throw expected("AND, OR or the end of the predicate") }
        return predicate
    }

    /// Parses the whole input as one expression.
    mutating func parseExpressionToEnd() throws -> QueryExpression {
        let expression = try parseOperand()
        guard current.kind == .end else { throw expected("the end of the expression") }
        return expression
    }

    // MARK: - Tokens and errors

    private var current: PredicateToken {
        tokens[Swift.min(index, tokens.count - 1)]
    }

    private var nextToken: PredicateToken {
        tokens[Swift.min(index + 1, tokens.count - 1)]
    }

    private mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    private func error(_ message: String, at offset: Int) -> QuireError {
        PredicateSyntaxError.make(message, offset: offset, source: source)
    }

    /// `Expected <what> after '<previous token>' at offset <n> in "<source>".`
    private func expected(_ what: String) -> QuireError {
        var message = "Expected \(what)"
        if index > 0 { message += " after '\(tokens[index - 1].text)'" }
        return error(message, at: current.offset)
    }

    private mutating func expect(_ symbol: PredicateSymbol, _ description: String) throws {
        guard current.kind == .symbol(symbol) else { throw expected(description) }
        advance()
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("Nesting deeper than \(Self.maximumDepth) levels", at: current.offset)
        }
    }

    // MARK: - Predicates

    private mutating func parseOr() throws -> QueryPredicate {
        var operands = [try parseAnd()]
        while isOr(current.kind) {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws -> QueryPredicate {
        var operands = [try parseNot()]
        while isAnd(current.kind) {
            advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws -> QueryPredicate {
        guard isNot(current.kind) else { return try parsePrimary() }
        try enter()
        defer { depth -= 1 }
        advance()
        return .not(try parseNot())
    }

    private mutating func parsePrimary() throws -> QueryPredicate {
        switch current.kind {
        case .keyword(.truePredicate):
            advance()
            return .true
        case .keyword(.falsePredicate):
            advance()
            return .false
        case .symbol(.openParen):
            // A parenthesized predicate, or a comparison whose left side starts with a parenthesized
            // expression (`(salary + bonus) * 12 > 100000`): the predicate is tried first.
            let saved = (index, argumentIndex, depth)
            do {
                return try parseParenthesizedPredicateOnce()
            } catch let original {
                (index, argumentIndex, depth) = saved
                do {
                    return try parseComparison()
                } catch {
                    throw original
                }
            }
        default:
            return try parseComparison()
        }
    }

    /// ``parseParenthesizedPredicate()``, answered from ``parenthesizedPredicates`` when the same tokens were read so
    /// before: where the index is the same, so is everything but the depth (the arguments are taken in order), and
    /// the depth can only make a deeper attempt fail. A success is reused at the same or a shallower depth, a
    /// failure at the same or a deeper one; otherwise the tokens are read again.
    private mutating func parseParenthesizedPredicateOnce() throws -> QueryPredicate {
        let start = index
        switch parenthesizedPredicates[start] {
        case .parsed(let predicate, let end, let endArgument, let atDepth) where depth <= atDepth:
            (index, argumentIndex) = (end, endArgument)
            return predicate
        case .failed(let failure, let atDepth) where depth >= atDepth:
            throw failure
        default:
            break
        }
        let atDepth = depth
        do {
            let predicate = try parseParenthesizedPredicate()
            parenthesizedPredicates[start] = .parsed(predicate, end: index, endArgument: argumentIndex, depth: atDepth)
            return predicate
        } catch {
            parenthesizedPredicates[start] = .failed(error, depth: atDepth)
            throw error
        }
    }

    private mutating func parseParenthesizedPredicate() throws -> QueryPredicate {
        try enter()
        defer { depth -= 1 }
        advance()
        let predicate = try parseOr()
        try expect(.closeParen, "')'")
        return predicate
    }

    private mutating func parseComparison() throws -> QueryPredicate {
        var modifier = QueryComparison.Modifier.direct
        switch current.kind {
        case .keyword(.any), .keyword(.some): modifier = .any
        case .keyword(.all): modifier = .all
        case .keyword(.none): modifier = .none
        default: break
        }
        if modifier != .direct { advance() }
        let left = try parseOperand(expecting: modifier == .direct ? "a predicate" : "an expression")
        guard let op = Self.comparisonOperator(current.kind) else { throw expected("a comparison operator") }
        advance()
        var options: QueryComparison.Options = []
        if current.kind == .symbol(.openBracket) {
            advance()
            switch current.kind {
            case .identifier, .keyword:
                for letter in current.text {
                    guard let option = QueryComparison.Options(letter: letter) else {
                        throw error("Unknown comparison option '\(letter)'; expected c, d, n or l", at: current.offset)
                    }
                    options.insert(option)
                }
                advance()
            default:
                throw expected("comparison options such as c, d or cd")
            }
            try expect(.closeBracket, "']'")
        }
        let rightToken = current
        let right = try parseOperand()
        if op == .between, case .array(let bounds) = right, bounds.count != 2 {
            throw error("BETWEEN needs an array of two values such as {1, 10}", at: rightToken.offset)
        }
        return .comparison(QueryComparison(left, op, right, modifier: modifier, options: options))
    }

    private func isOr(_ kind: PredicateToken.Kind) -> Bool {
        kind == .keyword(.or) || kind == .symbol(.doublePipe)
    }

    private func isAnd(_ kind: PredicateToken.Kind) -> Bool {
        kind == .keyword(.and) || kind == .symbol(.doubleAmpersand)
    }

    private func isNot(_ kind: PredicateToken.Kind) -> Bool {
        kind == .keyword(.not) || kind == .symbol(.exclamation)
    }

    /// The comparison operator a token spells, if any.
    static func comparisonOperator(_ kind: PredicateToken.Kind) -> QueryComparison.Operator? {
        switch kind {
        case .symbol(.equal): return .equalTo
        case .symbol(.notEqual): return .notEqualTo
        case .symbol(.less): return .lessThan
        case .symbol(.lessOrEqual): return .lessThanOrEqualTo
        case .symbol(.greater): return .greaterThan
        case .symbol(.greaterOrEqual): return .greaterThanOrEqualTo
        case .keyword(.matches): return .matches
        case .keyword(.like): return .like
        case .keyword(.beginsWith): return .beginsWith
        case .keyword(.endsWith): return .endsWith
        case .keyword(.in): return .in
        case .keyword(.contains): return .contains
        case .keyword(.between): return .between
        default: return nil
        }
    }

    // MARK: - Expressions

    /// Parses an expression, or throws naming `what` was expected (or the reserved word found instead).
    private mutating func parseOperand(expecting what: String = "an expression") throws -> QueryExpression {
        guard canStartExpression(current.kind) else {
            if case .keyword = current.kind {
                let word = current.text
                throw error("'\(word)' is a reserved word; write #\(word) to use it as a key", at: current.offset)
            }
            throw expected(what)
        }
        return try parseAdditive()
    }

    // MARK: - Arithmetic

    /// `term (('+' | '-') term)*`, a negative number literal after a term counting as a subtraction (`age-1`).
    private mutating func parseAdditive() throws -> QueryExpression {
        var left = try parseMultiplicative()
        while true {
            if current.kind == .symbol(.plus) || current.kind == .symbol(.minus) {
                let function: QueryExpression.Function = current.kind == .symbol(.plus) ? .add : .subtract
                advance()
                left = .function(function, [left, try parseMultiplicativeOperand()])
            } else if current.text.hasPrefix("-"), let magnitude = negatedLiteral(current.kind) {
                // `age-1` lexes as `age` and `-1` (the most negative integer has no magnitude: it is added).
                var function = QueryExpression.Function.subtract
                if case .integer(let value) = current.kind, value == .min { function = .add }
                advance()
                left = .function(function, [left, try continueMultiplicative(magnitude)])
            } else {
                return left
            }
        }
    }

    /// The value of a negative number token with its sign removed.
    private func negatedLiteral(_ kind: PredicateToken.Kind) -> QueryExpression? {
        switch kind {
        case .integer(let value): return value == .min ? .constant(.integer(value)) : .constant(.integer(-value))
        case .double(let value): return .constant(.double(-value))
        default: return nil
        }
    }

    private mutating func parseMultiplicativeOperand() throws -> QueryExpression {
        guard canStartExpression(current.kind) else { throw expected("an expression") }
        return try parseMultiplicative()
    }

    /// `factor (('*' | '/') factor)*`.
    private mutating func parseMultiplicative() throws -> QueryExpression {
        try continueMultiplicative(try parsePower())
    }

    private mutating func continueMultiplicative(_ first: QueryExpression) throws -> QueryExpression {
        var left = first
        while current.kind == .symbol(.star) || current.kind == .symbol(.slash) {
            let function: QueryExpression.Function = current.kind == .symbol(.star) ? .multiply : .divide
            advance()
            guard canStartExpression(current.kind) else { throw expected("an expression") }
            left = .function(function, [left, try parsePower()])
        }
        return left
    }

    /// `unary ('**' power)?`: right-associative.
    private mutating func parsePower() throws -> QueryExpression {
        let base = try parseUnary()
        guard current.kind == .symbol(.power) else { return base }
        try enter()
        defer { depth -= 1 }
        advance()
        guard canStartExpression(current.kind) else { throw expected("an expression") }
        return .function(.raise, [base, try parsePower()])
    }

    /// `'-' unary | expression`: a negation is `0 - operand`.
    private mutating func parseUnary() throws -> QueryExpression {
        guard current.kind == .symbol(.minus) else { return try parseExpression() }
        try enter()
        defer { depth -= 1 }
        advance()
        guard canStartExpression(current.kind) else { throw expected("an expression") }
        return .function(.subtract, [.constant(.integer(0)), try parseUnary()])
    }

    /// `name '(' [expression (',' expression)*] ')'`, the name a selector such as `add:to:` or a word such as
    /// `now` or `lowercase`.
    private mutating func parseFunctionCall() throws -> QueryExpression {
        let start = current
        var name = ""
        while case .identifier(let part) = current.kind {
            name += part
            advance()
            guard current.kind == .symbol(.colon) else { break }
            name += ":"
            advance()
        }
        guard current.kind == .symbol(.openParen) else { throw expected("'(' after the function name '\(name)'") }
        advance()
        var arguments: [QueryExpression] = []
        if current.kind != .symbol(.closeParen) {
            while true {
                arguments.append(try parseOperand())
                guard current.kind == .symbol(.comma) else { break }
                advance()
            }
        }
        try expect(.closeParen, "',' or ')'")
        guard let function = QueryExpression.Function(formatName: name) else {
            if name.uppercased() == "FUNCTION" {
                throw error(
                    "FUNCTION(receiver, 'selector', …) calls an Objective-C method, which Quire cannot; "
                        + "use a function such as lowercase:(x) or an operator", at: start.offset)
            }
            throw error("Unknown function '\(name)'", at: start.offset)
        }
        guard arguments.count == function.arity else {
            throw error(
                "The function '\(function.name)' takes \(function.arity) argument(s), not \(arguments.count),",
                at: start.offset)
        }
        if function == .castObject, case .constant(.string(let type)) = arguments[1] {
            return PredicateCast.fold(arguments[0], to: type)
        }
        return .function(function, arguments)
    }

    private func canStartExpression(_ kind: PredicateToken.Kind) -> Bool {
        switch kind {
        case .identifier, .escapedKey, .variable, .collectionOperator, .string, .integer, .double, .format:
            return true
        case .symbol(let symbol):
            return symbol == .openBrace || symbol == .openParen || symbol == .minus
        case .keyword(let keyword):
            switch keyword {
            case .self, .true, .yes, .false, .no, .nil, .null, .subquery, .cast: return true
            default: return false
            }
        case .end:
            return false
        }
    }

    private mutating func parseExpression() throws -> QueryExpression {
        try enter()
        defer { depth -= 1 }
        let token = current
        var base: QueryExpression
        var pending: [String] = []
        var leadingOperator = false
        switch token.kind {
        case .identifier where nextToken.kind == .symbol(.openParen) || nextToken.kind == .symbol(.colon):
            base = try parseFunctionCall()
        case .symbol(.openParen):
            advance()
            base = try parseAdditive()
            try expect(.closeParen, "')'")
        case .identifier(let name), .escapedKey(let name):
            advance()
            base = .evaluatedObject
            pending = [name]
        case .keyword(.self):
            advance()
            base = .evaluatedObject
        case .variable(let name):
            advance()
            base = .variable(name)
        case .collectionOperator:
            base = .evaluatedObject
            leadingOperator = true
        case .string(let value):
            advance()
            base = .constant(.string(value))
        case .integer(let value):
            advance()
            base = .constant(.integer(value))
        case .double(let value):
            advance()
            base = .constant(.double(value))
        case .keyword(.true), .keyword(.yes):
            advance()
            base = .constant(.boolean(true))
        case .keyword(.false), .keyword(.no):
            advance()
            base = .constant(.boolean(false))
        case .keyword(.nil), .keyword(.null):
            advance()
            base = .constant(.null)
        case .format(let conversion):
            advance()
            base = try formatArgument(conversion, token: token)
        case .symbol(.openBrace):
            base = try parseArrayLiteral()
        case .keyword(.subquery):
            base = try parseSubquery()
        case .keyword(.cast):
            base = try parseCast()
        default:
            throw expected("an expression")
        }

        while true {
            if leadingOperator {
                leadingOperator = false
                base = try parseAggregate(applyingTo: Self.keyPath(base, pending))
                pending = []
                continue
            }
            guard current.kind == .symbol(.dot) else { break }
            advance()
            if case .collectionOperator = current.kind {
                base = try parseAggregate(applyingTo: Self.keyPath(base, pending))
                pending = []
            } else if let key = keyName(current) {
                advance()
                pending.append(key)
            } else if current.kind == .format(.keyPath) {
                let token = current
                advance()
                let value = try nextArgument(token: token)
                guard let keyPath = Self.keyPathString(value) else {
                    throw unsupportedArgument(value, token: token, "a key path string")
                }
                base = try keyPathExpression(keyPath, token: token, base: base, pending: pending)
                pending = []
            } else {
                throw expected("a key or a collection operator such as @count")
            }
        }
        return Self.keyPath(base, pending)
    }

    /// The key a token names after a dot: an identifier, an escaped key, or a reserved word used as a key.
    private func keyName(_ token: PredicateToken) -> String? {
        switch token.kind {
        case .identifier(let name), .escapedKey(let name): return name
        case .keyword: return token.text
        default: return nil
        }
    }

    /// Parses `@operator[.key.key…]` at the current token, applied to `collection`.
    private mutating func parseAggregate(applyingTo collection: QueryExpression) throws -> QueryExpression {
        let token = current
        guard case .collectionOperator(let name) = token.kind else {
            throw expected("a collection operator such as @count")
        }
        guard let aggregate = QueryExpression.Aggregate(operatorName: name) else {
            throw error(
                "Unknown collection operator '@\(name)'; expected @count, @sum, @avg, @min or @max",
                at: token.offset
            )
        }
        advance()
        var keys: [String] = []
        while current.kind == .symbol(.dot), let key = keyName(nextToken) {
            advance()
            advance()
            keys.append(key)
        }
        return .aggregate(aggregate, collection, keyPath: keys.isEmpty ? nil : keys.joined(separator: "."))
    }

    /// Applies pending key components to a base expression: a key path from `SELF`, or a member of another value.
    static func keyPath(_ base: QueryExpression, _ keys: [String]) -> QueryExpression {
        guard !keys.isEmpty else { return base }
        let path = keys.joined(separator: ".")
        switch base {
        case .evaluatedObject: return .keyPath(path)
        case .keyPath(let prefix): return .keyPath(prefix + "." + path)
        case .member(let inner, let prefix): return .member(inner, keyPath: prefix + "." + path)
        default: return .member(base, keyPath: path)
        }
    }

    private mutating func parseArrayLiteral() throws -> QueryExpression {
        advance()
        var elements: [QueryExpression] = []
        if current.kind == .symbol(.closeBrace) {
            advance()
            return .array(elements)
        }
        while true {
            elements.append(try parseOperand())
            if current.kind == .symbol(.comma) {
                advance()
            } else if current.kind == .symbol(.closeBrace) {
                advance()
                return .array(elements)
            } else {
                throw expected("',' or '}'")
            }
        }
    }

    private mutating func parseSubquery() throws -> QueryExpression {
        advance()
        try expect(.openParen, "'('")
        let collection = try parseOperand()
        try expect(.comma, "','")
        guard case .variable(let variable) = current.kind else { throw expected("a variable such as $x") }
        advance()
        try expect(.comma, "','")
        if current.kind == .end || current.kind == .symbol(.closeParen) { throw expected("a predicate") }
        let predicate = try parseOr()
        try expect(.closeParen, "')'")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    private mutating func parseCast() throws -> QueryExpression {
        advance()
        try expect(.openParen, "'('")
        let value = try parseOperand()
        try expect(.comma, "','")
        let typeToken = current
        let typeExpression = try parseOperand(expecting: "a type name such as \"NSDate\"")
        guard case .constant(.string(let type)) = typeExpression else {
            throw error("Expected a type name such as \"NSDate\" in CAST", at: typeToken.offset)
        }
        try expect(.closeParen, "')'")
        return PredicateCast.fold(value, to: type)
    }

    // MARK: - Format arguments

    private mutating func formatArgument(
        _ conversion: PredicateFormatConversion,
        token: PredicateToken
    ) throws -> QueryExpression {
        let value = try nextArgument(token: token)
        func unsupported(_ what: String) -> QuireError { unsupportedArgument(value, token: token, what) }
        switch conversion {
        case .object:
            guard let expression = PredicateConstantConverter.expression(for: value) else {
                throw unsupported("a supported value")
            }
            return expression
        case .keyPath:
            guard let keyPath = Self.keyPathString(value) else { throw unsupported("a key path string") }
            return try keyPathExpression(keyPath, token: token)
        case .integer:
            guard let attribute = AttributeValue(converting: value), let integer = Self.integerValue(attribute) else {
                throw unsupported("an integer")
            }
            return .constant(.integer(integer))
        case .double:
            guard let attribute = AttributeValue(converting: value), let double = attribute.doubleValue else {
                throw unsupported("a number")
            }
            return .constant(.double(double))
        case .string:
            switch value {
            case let string as String: return .constant(.string(string))
            case let string as Substring: return .constant(.string(String(string)))
            case let attribute as AttributeValue:
                guard case .string = attribute else { throw unsupported("a string") }
                return .constant(attribute)
            default: throw unsupported("a string")
            }
        }
    }

    /// Takes the next format argument, unwrapped from any optional.
    private mutating func nextArgument(token: PredicateToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw error("Missing format argument for '\(token.text)'", at: token.offset)
        }
        let value = PredicateConstantConverter.unwrapped(arguments[argumentIndex])
        argumentIndex += 1
        return value
    }

    /// `Format argument <n> of type '<T>' for '<specifier>' is not <what>`, for the argument just taken.
    private func unsupportedArgument(_ value: Any?, token: PredicateToken, _ what: String) -> QuireError {
        let type = value.map { String(describing: Swift.type(of: $0)) } ?? "nil"
        return error(
            "Format argument \(argumentIndex) of type '\(type)' for '\(token.text)' is not \(what)",
            at: token.offset
        )
    }

    /// The key path string of a `%K` argument, if it is a string.
    private static func keyPathString(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let string as Substring: return String(string)
        case .string(let string) as AttributeValue: return string
        default: return nil
        }
    }

    private static func integerValue(_ value: AttributeValue) -> Int64? {
        switch value {
        case .integer(let v): return v
        case .boolean(let v): return v ? 1 : 0
        case .double(let v): return Int64(exactly: v)
        case .float(let v): return Int64(exactly: v)
        case .decimal(let v): return Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        default: return nil
        }
    }

    /// The expression for a `%K` argument: dotted keys, with `@count`-style operators where they appear.
    private func keyPathExpression(
        _ keyPath: String,
        token: PredicateToken,
        base: QueryExpression = .evaluatedObject,
        pending: [String] = []
    ) throws -> QueryExpression {
        let components = QueryExpression.components(of: keyPath)
        var base = base
        var pending = pending
        var index = 0
        while index < components.count {
            let component = components[index]
            guard !component.isEmpty else {
                throw error("The key path '\(keyPath)' for '\(token.text)' has an empty key", at: token.offset)
            }
            index += 1
            guard component.hasPrefix("@") else {
                pending.append(component)
                continue
            }
            guard let aggregate = QueryExpression.Aggregate(operatorName: String(component.dropFirst())) else {
                throw error(
                    "Unknown collection operator '\(component)' in the key path '\(keyPath)'",
                    at: token.offset
                )
            }
            var keys: [String] = []
            while index < components.count, !components[index].hasPrefix("@"), !components[index].isEmpty {
                keys.append(components[index])
                index += 1
            }
            base = .aggregate(
                aggregate,
                Self.keyPath(base, pending),
                keyPath: keys.isEmpty ? nil : keys.joined(separator: ".")
            )
            pending = []
        }
        return Self.keyPath(base, pending)
    }
}

/// One reading of a parenthesized predicate (``PredicateParser``'s memo): the predicate with where reading it ended,
/// or the error, each with the depth it was read at.
private enum ParenthesizedPredicateAttempt {
    case parsed(QueryPredicate, end: Int, endArgument: Int, depth: Int)
    case failed(any Error, depth: Int)
}
