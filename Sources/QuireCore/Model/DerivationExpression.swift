import Foundation

/// The expression of a derived attribute (``AttributeDescription/derivationExpression``), in the forms Core Data
/// allows (`NSDerivedAttributeDescription`): a key path (through to-one relationships), an aggregate of a to-many
/// relationship, `now()`, or a string function of a key path.
///
/// Both spellings are read: what Xcode writes (`pages.@count`, `items.@sum.price`) and the function form Core Data
/// stores in compiled models (`count:(pages)`, `sum:(items.price)`).
package enum DerivationExpression: Hashable, Sendable {
    /// An aggregate function of a to-many relationship.
    package enum Aggregate: String, Sendable {
        case count, sum, average, min, max
    }

    /// A string function.
    package enum StringFunction: String, Sendable {
        /// Lower case, diacritics removed (Core Data's `canonical:`, for search).
        case canonical
        case lowercase
        case uppercase
    }

    /// The value at a key path (`name`, `author.name`).
    case keyPath(String)
    /// An aggregate over the members of a to-many relationship; `keyPath` is the members' value (nil for count).
    case aggregate(Aggregate, relationship: String, keyPath: String?)
    /// The date of the save.
    case now
    /// A string function of the value at a key path.
    case string(StringFunction, keyPath: String)

    /// Parses a derivation; nil for forms Quire does not compute.
    package init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text == "now()" {
            self = .now
            return
        }
        if let colon = text.firstIndex(of: ":"), text.hasSuffix(")"), text[text.index(after: colon)...].hasPrefix("(") {
            let name = String(text[..<colon])
            let argument = String(text[text.index(colon, offsetBy: 2)..<text.index(before: text.endIndex)])
                .trimmingCharacters(in: .whitespaces)
            guard Self.isKeyPath(argument) else { return nil }
            if let function = StringFunction(rawValue: name) {
                self = .string(function, keyPath: argument)
                return
            }
            let aggregate: Aggregate? = name == "avg" ? .average : Aggregate(rawValue: name)
            guard let aggregate else { return nil }
            let parts = argument.split(separator: ".", maxSplits: 1).map(String.init)
            guard aggregate == .count || parts.count == 2 else { return nil }
            self = .aggregate(aggregate, relationship: parts[0], keyPath: parts.count == 2 ? parts[1] : nil)
            return
        }
        let parts = text.split(separator: ".").map(String.init)
        if let position = parts.firstIndex(where: { $0.hasPrefix("@") }) {
            let operation = parts[position].dropFirst()
            let aggregate: Aggregate? = operation == "avg" ? .average : Aggregate(rawValue: String(operation))
            let relationship = parts[..<position].joined(separator: ".")
            let keyPath = parts[(position + 1)...].joined(separator: ".")
            guard let aggregate, position == 1, Self.isKeyPath(relationship), keyPath.isEmpty || Self.isKeyPath(keyPath),
                aggregate == .count || !keyPath.isEmpty
            else { return nil }
            self = .aggregate(aggregate, relationship: relationship, keyPath: keyPath.isEmpty ? nil : keyPath)
            return
        }
        guard Self.isKeyPath(text) else { return nil }
        self = .keyPath(text)
    }

    /// Whether a text is a dotted key path of identifiers.
    private static func isKeyPath(_ text: String) -> Bool {
        !text.isEmpty && text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.first, first.isLetter || first == "_" else { return false }
            return part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
    }

    /// The expression as `NSExpression.predicateFormat` prints it once Core Data has compiled it, which is what the
    /// version hash covers: `count:(pages)` (verified on a Core Data store), and by the same rule `sum:(items.price)`,
    /// `now()`, `canonical:(name)`, or the key path itself (not verified).
    package var predicateFormat: String {
        switch self {
        case .keyPath(let keyPath): return keyPath
        case .aggregate(let aggregate, let relationship, let keyPath):
            return "\(aggregate.rawValue):(\(relationship)\(keyPath.map { "." + $0 } ?? ""))"
        case .now: return "now()"
        case .string(let function, let keyPath): return "\(function.rawValue):(\(keyPath))"
        }
    }
}
