import QuireSupport
import Foundation

extension QueryPredicate: CustomStringConvertible {
    /// The predicate in canonical format syntax; parsing it gives back an equal predicate.
    ///
    /// ```swift
    /// try QueryPredicate(format: "name = 'Ann' && NOT age<30").predicateFormat
    /// // name == "Ann" AND NOT age < 30
    /// ```
    ///
    /// Constants print as literals: strings in double quotes with escapes, numbers, `TRUE`/`FALSE`, `nil`;
    /// values without a literal print as casts: `CAST(<seconds since 2001>, "NSDate")`,
    /// `CAST("<Base64>", "NSData")`, `CAST("<UUID>", "NSUUID")`, `CAST("<URL>", "NSURL")`,
    /// `CAST("<decimal>", "NSDecimalNumber")`, `CAST("<float>", "Float")` and
    /// `CAST("<literal>", "NSManagedObjectID")`. Keys that are reserved words print with `#` (`#size`), and
    /// keys that are not identifiers as `#"any text"`. An `AND` or `OR` of fewer than two operands prints as
    /// the predicate it is equivalent to.
    public var predicateFormat: String {
        var printer = PredicatePrinter()
        printer.write(self)
        return printer.output
    }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
}

extension QueryExpression: CustomStringConvertible {
    /// The expression in canonical format syntax, as it prints inside a predicate.
    public var expressionFormat: String {
        var printer = PredicatePrinter()
        printer.write(self)
        return printer.output
    }

    /// The same as ``expressionFormat``.
    public var description: String { expressionFormat }
}

/// Writes predicates and expressions in canonical format syntax.
struct PredicatePrinter {
    /// The text written so far.
    package private(set) var output = ""

    /// Writes a predicate.
    mutating func write(_ predicate: QueryPredicate) {
        switch predicate {
        case .true:
            output += "TRUEPREDICATE"
        case .false:
            output += "FALSEPREDICATE"
        case .comparison(let comparison):
            write(comparison)
        case .and(let operands):
            writeCompound(operands, separator: " AND ", empty: "TRUEPREDICATE")
        case .or(let operands):
            writeCompound(operands, separator: " OR ", empty: "FALSEPREDICATE")
        case .not(let operand):
            output += "NOT "
            writeOperand(operand)
        }
    }

    private mutating func writeCompound(_ operands: [QueryPredicate], separator: String, empty: String) {
        switch operands.count {
        case 0:
            output += empty
        case 1:
            write(operands[0])
        default:
            for (index, operand) in operands.enumerated() {
                if index > 0 { output += separator }
                writeOperand(operand)
            }
        }
    }

    /// Writes an operand of `AND`, `OR` or `NOT`, in parentheses when it is itself a compound.
    private mutating func writeOperand(_ predicate: QueryPredicate) {
        switch predicate {
        case .and(let operands) where operands.count > 1, .or(let operands) where operands.count > 1:
            output += "("
            write(predicate)
            output += ")"
        default:
            write(predicate)
        }
    }

    private mutating func write(_ comparison: QueryComparison) {
        switch comparison.modifier {
        case .direct: break
        case .any: output += "ANY "
        case .all: output += "ALL "
        case .none: output += "NONE "
        }
        write(comparison.left)
        output += " " + comparison.operator.symbol
        let letters = comparison.options.letters
        if !letters.isEmpty { output += "[" + letters + "]" }
        output += " "
        write(comparison.right)
    }

    /// Writes an expression.
    mutating func write(_ expression: QueryExpression) {
        switch expression {
        case .constant(let value):
            write(value)
        case .objectID(let id):
            writeCast(literal: PredicateCast.objectIDLiteral(id), type: PredicateCast.objectID)
        case .evaluatedObject:
            output += "SELF"
        case .keyPath(let keyPath):
            writeKeyPath(keyPath)
        case .member(let base, let keyPath):
            write(base)
            output += "."
            writeKeyPath(keyPath)
        case .variable(let name):
            output += "$" + name
        case .aggregate(let aggregate, let collection, let keyPath):
            if collection != .evaluatedObject {
                write(collection)
                output += "."
            }
            output += aggregate.keyPathOperator
            if let keyPath {
                output += "."
                writeKeyPath(keyPath)
            }
        case .subquery(let collection, let variable, let predicate):
            output += "SUBQUERY("
            write(collection)
            output += ", $" + variable + ", "
            write(predicate)
            output += ")"
        case .array(let elements):
            output += "{"
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                write(element)
            }
            output += "}"
        case .cast(let value, let type):
            output += "CAST("
            write(value)
            output += ", "
            writeString(type)
            output += ")"
        case .function(let function, let arguments):
            writeFunction(function, arguments)
        }
    }

    /// Writes a function: arithmetic infix (`a + b`, operands that are themselves infix in parentheses),
    /// `now()` and `random()`, others as Core Data prints them (`lowercase:(name)`, `add:to:` never).
    private mutating func writeFunction(_ function: QueryExpression.Function, _ arguments: [QueryExpression]) {
        if let symbol = function.infixOperator, arguments.count == 2 {
            for (index, argument) in arguments.enumerated() {
                if index > 0 { output += " \(symbol) " }
                if case .function(let inner, let innerArguments) = argument, inner.infixOperator != nil,
                    innerArguments.count == 2
                {
                    output += "("
                    write(argument)
                    output += ")"
                } else {
                    write(argument)
                }
            }
            return
        }
        output += function.name
        output += "("
        for (index, argument) in arguments.enumerated() {
            if index > 0 { output += ", " }
            write(argument)
        }
        output += ")"
    }

    private mutating func writeKeyPath(_ keyPath: String) {
        for (index, key) in QueryExpression.components(of: keyPath).enumerated() {
            if index > 0 { output += "." }
            writeKey(key)
        }
    }

    /// Writes one key: bare when it is an identifier, `#key` when it is a reserved word, `#"key"` otherwise.
    private mutating func writeKey(_ key: String) {
        if PredicateLexer.isIdentifier(key) {
            if PredicateKeyword(identifier: key) != nil { output += "#" }
            output += key
        } else {
            output += "#"
            writeString(key)
        }
    }

    private mutating func write(_ value: AttributeValue) {
        switch value {
        case .null:
            output += "nil"
        case .integer(let v):
            output += String(v)
        case .double(let v):
            if v.isFinite {
                output += String(v)
            } else {
                writeCast(literal: String(v), type: PredicateCast.number)
            }
        case .float(let v):
            writeCast(literal: String(v), type: PredicateCast.float)
        case .decimal(let v):
            writeCast(literal: v.description, type: PredicateCast.decimal)
        case .string(let v):
            writeString(v)
        case .boolean(let v):
            output += v ? "TRUE" : "FALSE"
        case .date(let v):
            output += "CAST(" + String(v.timeIntervalSinceReferenceDate) + ", "
            writeString(PredicateCast.date)
            output += ")"
        case .data(let v):
            writeCast(literal: v.base64EncodedString(), type: PredicateCast.data)
        case .uuid(let v):
            writeCast(literal: v.uuidString, type: PredicateCast.uuid)
        case .uri(let v):
            writeCast(literal: v.absoluteString, type: PredicateCast.url)
        case .externalData(let v):
            writeString(v.uuid)
        }
    }

    private mutating func writeCast(literal: String, type: String) {
        output += "CAST("
        writeString(literal)
        output += ", "
        writeString(type)
        output += ")"
    }

    /// Writes a string literal in double quotes, escaping quotes, backslashes and control characters.
    private mutating func writeString(_ string: String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.isNoncharacterCodePoint
                    || scalar.properties.generalCategory == .format
                {
                    output += Self.unicodeEscape(scalar)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    /// `\uXXXX`, or a surrogate pair of them beyond the Basic Multilingual Plane.
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        func hex4(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
        }
        guard scalar.value > 0xFFFF else { return hex4(scalar.value) }
        let offset = scalar.value - 0x10000
        return hex4(0xD800 + (offset >> 10)) + hex4(0xDC00 + (offset & 0x3FF))
    }
}
