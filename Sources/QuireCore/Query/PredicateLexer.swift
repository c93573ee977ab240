import QuireSupport
import Foundation

/// Splits a predicate format string into tokens.
///
/// Offsets count Unicode scalars from the start of the string (for ASCII text, characters). The lexer never
/// traps: every malformed input throws ``QuireError/Code/predicateSyntax``.
package struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private let source: String
    private var position = 0

    /// Creates a lexer over a format string.
    package init(_ source: String) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
    }

    /// All tokens of the input, ending with ``PredicateToken/Kind/end``.
    ///
    /// - Throws: ``QuireError/Code/predicateSyntax`` for an unknown character, an unterminated string, a bad
    ///   escape, a malformed number or an unknown format specifier.
    package mutating func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    // MARK: - Scanning

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        let index = position + ahead
        return index < scalars.count ? scalars[index] : nil
    }

    private func text(from start: Int) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[start..<position])
        return String(result)
    }

    private func error(_ message: String, at offset: Int) -> QuireError {
        PredicateSyntaxError.make(message, offset: offset, source: source)
    }

    private mutating func next() throws -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { position += 1 }
        let start = position
        guard let scalar = peek() else { return PredicateToken(kind: .end, offset: start, text: "") }

        if Self.isIdentifierStart(scalar) {
            let name = scanIdentifier()
            if let keyword = PredicateKeyword(identifier: name) {
                return PredicateToken(kind: .keyword(keyword), offset: start, text: name)
            }
            return PredicateToken(kind: .identifier(name), offset: start, text: name)
        }
        if Self.isDigit(scalar) || (scalar == "-" && peek(1).map(Self.isDigit) == true) {
            return try scanNumber()
        }
        switch scalar {
        case "\"", "'":
            let value = try scanString()
            return PredicateToken(kind: .string(value), offset: start, text: text(from: start))
        case "$":
            position += 1
            guard let first = peek(), Self.isIdentifierContinue(first) else {
                throw error("Expected a variable name after '$'", at: start)
            }
            let name = scanIdentifier()
            return PredicateToken(kind: .variable(name), offset: start, text: "$" + name)
        case "@":
            position += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error("Expected a collection operator such as @count after '@'", at: start)
            }
            let name = scanIdentifier()
            return PredicateToken(kind: .collectionOperator(name), offset: start, text: "@" + name)
        case "#":
            return try scanEscapedKey()
        case "%":
            return try scanFormatSpecifier()
        default:
            return try scanSymbol()
        }
    }

    private mutating func scanIdentifier() -> String {
        let start = position
        while let scalar = peek(), Self.isIdentifierContinue(scalar) { position += 1 }
        return text(from: start)
    }

    private mutating func scanEscapedKey() throws -> PredicateToken {
        let start = position
        position += 1
        let key: String
        if let scalar = peek(), Self.isIdentifierContinue(scalar) {
            key = scanIdentifier()
        } else if peek() == "\"" || peek() == "'" {
            key = try scanString()
        } else {
            throw error("Expected a key name after '#'", at: start)
        }
        guard !key.isEmpty else { throw error("Expected a non-empty key name after '#'", at: start) }
        return PredicateToken(kind: .escapedKey(key), offset: start, text: text(from: start))
    }

    private mutating func scanSymbol() throws -> PredicateToken {
        let start = position
        guard let scalar = peek() else { return PredicateToken(kind: .end, offset: start, text: "") }
        position += 1
        let symbol: PredicateSymbol
        switch scalar {
        case "(": symbol = .openParen
        case ")": symbol = .closeParen
        case "{": symbol = .openBrace
        case "}": symbol = .closeBrace
        case "[": symbol = .openBracket
        case "]": symbol = .closeBracket
        case ",": symbol = .comma
        case ".": symbol = .dot
        case "+": symbol = .plus
        case "-": symbol = .minus
        case "/": symbol = .slash
        case ":": symbol = .colon
        case "*":
            if peek() == "*" {
                position += 1
                symbol = .power
            } else {
                symbol = .star
            }
        case "=":
            switch peek() {
            case "=":
                position += 1
                symbol = .equal
            case "<":
                position += 1
                symbol = .lessOrEqual
            case ">":
                position += 1
                symbol = .greaterOrEqual
            default: symbol = .equal
            }
        case "!":
            if peek() == "=" {
                position += 1
                symbol = .notEqual
            } else {
                symbol = .exclamation
            }
        case "<":
            switch peek() {
            case "=":
                position += 1
                symbol = .lessOrEqual
            case ">":
                position += 1
                symbol = .notEqual
            default: symbol = .less
            }
        case ">":
            if peek() == "=" {
                position += 1
                symbol = .greaterOrEqual
            } else {
                symbol = .greater
            }
        case "&" where peek() == "&":
            position += 1
            symbol = .doubleAmpersand
        case "|" where peek() == "|":
            position += 1
            symbol = .doublePipe
        default:
            throw error("Unexpected character '\(scalar.escaped(asASCII: false))'", at: start)
        }
        return PredicateToken(kind: .symbol(symbol), offset: start, text: text(from: start))
    }

    // MARK: - Format specifiers

    private mutating func scanFormatSpecifier() throws -> PredicateToken {
        let start = position
        position += 1
        // Length modifiers are accepted and ignored: Swift values carry their own width.
        for modifier in ["hh", "ll", "h", "l", "q", "z", "t", "j", "L"] {
            let modifierScalars = Array(modifier.unicodeScalars)
            if (0..<modifierScalars.count).allSatisfy({ peek($0) == modifierScalars[$0] }) {
                position += modifierScalars.count
                break
            }
        }
        guard let conversionScalar = peek() else {
            throw error("Expected a format specifier such as %@ after '%'", at: start)
        }
        position += 1
        let conversion: PredicateFormatConversion
        switch conversionScalar {
        case "@": conversion = .object
        case "K": conversion = .keyPath
        case "d", "i", "u", "o", "x", "X", "D", "U", "O": conversion = .integer
        case "f", "F", "e", "E", "g", "G", "a", "A": conversion = .double
        case "s", "S": conversion = .string
        default:
            throw error("Unknown format specifier '\(text(from: start))'", at: start)
        }
        return PredicateToken(kind: .format(conversion), offset: start, text: text(from: start))
    }

    // MARK: - Numbers

    private mutating func scanNumber() throws -> PredicateToken {
        let start = position
        var negative = false
        if peek() == "-" {
            negative = true
            position += 1
        }
        if peek() == "0", let marker = peek(1), let radix = Self.radix(marker) {
            position += 2
            let digitsStart = position
            while let scalar = peek(), Self.isHexDigit(scalar) { position += 1 }
            let digits = text(from: digitsStart)
            try rejectIdentifierAfterNumber(start: start)
            guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else {
                throw error("Malformed number '\(text(from: start))'", at: start)
            }
            let value: Int64?
            if negative {
                value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 }
            } else {
                value = Int64(exactly: magnitude)
            }
            guard let value else { throw error("Number '\(text(from: start))' is too large", at: start) }
            return PredicateToken(kind: .integer(value), offset: start, text: text(from: start))
        }
        var isInteger = true
        while let scalar = peek(), Self.isDigit(scalar) { position += 1 }
        if peek() == ".", let after = peek(1), Self.isDigit(after) {
            isInteger = false
            position += 1
            while let scalar = peek(), Self.isDigit(scalar) { position += 1 }
        }
        if peek() == "e" || peek() == "E" {
            let exponentStart = position
            position += 1
            if peek() == "+" || peek() == "-" { position += 1 }
            guard let scalar = peek(), Self.isDigit(scalar) else {
                throw error("Malformed exponent in number '\(text(from: start))'", at: exponentStart)
            }
            isInteger = false
            while let scalar = peek(), Self.isDigit(scalar) { position += 1 }
        }
        try rejectIdentifierAfterNumber(start: start)
        let literal = text(from: start)
        if isInteger, let value = Int64(literal) {
            return PredicateToken(kind: .integer(value), offset: start, text: literal)
        }
        guard let value = Double(literal) else { throw error("Malformed number '\(literal)'", at: start) }
        return PredicateToken(kind: .double(value), offset: start, text: literal)
    }

    private mutating func rejectIdentifierAfterNumber(start: Int) throws {
        guard let scalar = peek(), Self.isIdentifierContinue(scalar) else { return }
        while let scalar = peek(), Self.isIdentifierContinue(scalar) { position += 1 }
        throw error("Malformed number '\(text(from: start))'", at: start)
    }

    private static func radix(_ marker: Unicode.Scalar) -> Int? {
        switch marker {
        case "x", "X": return 16
        case "o", "O": return 8
        case "b", "B": return 2
        default: return nil
        }
    }

    // MARK: - Strings

    /// Scans a quoted string at the current position and returns its value with escapes resolved.
    private mutating func scanString() throws -> String {
        let start = position
        guard let quote = peek() else { throw error("Expected a string", at: start) }
        position += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error("Unterminated string starting", at: start)
            }
            position += 1
            if scalar == quote { return String(value) }
            if scalar == "\\" {
                value.append(try scanEscape(backslashAt: position - 1))
            } else {
                value.append(scalar)
            }
        }
    }

    private mutating func scanEscape(backslashAt offset: Int) throws -> Unicode.Scalar {
        guard let scalar = peek() else { throw error("Unterminated string escape", at: offset) }
        position += 1
        switch scalar {
        case "\\", "\"", "'": return scalar
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "a": return "\u{07}"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0"..."7":
            var code = scalar.value - 0x30
            for _ in 0..<2 {
                guard let digit = peek(), ("0"..."7").contains(digit) else { break }
                code = code * 8 + digit.value - 0x30
                position += 1
            }
            guard let result = Unicode.Scalar(code) else {
                throw error("Invalid escape sequence '\(text(from: offset))'", at: offset)
            }
            return result
        case "x":
            let code = try scanHex(count: 2, escapeAt: offset)
            guard let result = Unicode.Scalar(code) else {
                throw error("Invalid escape sequence '\(text(from: offset))'", at: offset)
            }
            return result
        case "u":
            let code = try scanHex(count: 4, escapeAt: offset)
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == "\\", peek(1) == "u" else {
                    throw error("Unpaired surrogate in escape sequence '\(text(from: offset))'", at: offset)
                }
                position += 2
                let low = try scanHex(count: 4, escapeAt: offset)
                guard (0xDC00...0xDFFF).contains(low),
                    let result = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                else {
                    throw error("Unpaired surrogate in escape sequence '\(text(from: offset))'", at: offset)
                }
                return result
            }
            guard let result = Unicode.Scalar(code) else {
                throw error("Unpaired surrogate in escape sequence '\(text(from: offset))'", at: offset)
            }
            return result
        default:
            throw error("Invalid escape sequence '\\\(scalar.escaped(asASCII: false))'", at: offset)
        }
    }

    private mutating func scanHex(count: Int, escapeAt offset: Int) throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<count {
            guard let digit = peek(), let value = Self.hexValue(digit) else {
                throw error("Invalid escape sequence '\(text(from: offset))'", at: offset)
            }
            code = code * 16 + value
            position += 1
        }
        return code
    }

    // MARK: - Character classes

    /// True for a scalar that can begin a key or identifier: a letter or `_`.
    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    /// True for a scalar that can continue a key or identifier: a letter, a combining mark, a digit or `_`.
    static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) || isDigit(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }

    /// True when a whole string lexes as one identifier (so a key can be printed bare).
    static func isIdentifier(_ string: String) -> Bool {
        var scalars = string.unicodeScalars.makeIterator()
        guard let first = scalars.next(), isIdentifierStart(first) else { return false }
        while let scalar = scalars.next() {
            guard isIdentifierContinue(scalar) else { return false }
        }
        return true
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        hexValue(scalar) != nil
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": return scalar.value - 0x30
        case "a"..."f": return scalar.value - 0x61 + 10
        case "A"..."F": return scalar.value - 0x41 + 10
        default: return nil
        }
    }
}

/// Builds the one-sentence syntax errors of the predicate parser.
enum PredicateSyntaxError {
    /// The longest stretch of the format string quoted in a message.
    static let quotedSourceLimit = 200

    /// An error `<message> at offset <n> in "<source>".`, with the offset in its context.
    static func make(_ message: String, offset: Int, source: String) -> QuireError {
        QuireError(
            .predicateSyntax,
            "\(message) at offset \(offset) in \(quoted(source)).",
            context: QuireError.Context(position: offset)
        )
    }

    /// The source in double quotes, shortened with an ellipsis when long.
    static func quoted(_ source: String) -> String {
        guard source.count > quotedSourceLimit else { return "\"\(source)\"" }
        return "\"\(source.prefix(quotedSourceLimit))…\""
    }
}
