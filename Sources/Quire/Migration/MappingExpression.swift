import QuireCore
import QuireStores
import Foundation

/// Where a destination property's value comes from (Core Data's property value expressions).
///
/// Xcode's mapping-model editor writes these as text; ``init(format:)`` reads that text and ``format`` writes it:
///
/// | Xcode writes | case |
/// |---|---|
/// | `$source.name` | ``sourceValue(_:)`` |
/// | `$source.country.continent`, `$source.moods.@count`, `lowercase:($source.name)` | ``expression(_:)`` |
/// | `"text"`, `42`, `YES`, `nil` | ``constant(_:)`` |
/// | `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CountryToCountry", $source.country)` | ``destinationInstances(entityMappingName:sourceInstances:)`` |
/// | `FUNCTION($manager, "sourceInstancesForEntityMappingNamed:destinationInstances:", "MoodToMood", $destination.moods)` | ``sourceInstances(entityMappingName:destinationInstances:)`` |
/// | `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "cars", $source.cars)` | ``destinationInstancesForSourceRelationship(relationshipName:sourceInstances:)`` |
/// | `FUNCTION($entityPolicy, "colorsFromData:", $source.colors)` | ``policyFunction(selector:arguments:)`` |
///
/// ```swift
/// let continent = try MappingExpression(format: "$source.continent.numericISO3166Code")
/// ```
public enum MappingExpression: Sendable {
    /// The source object's value for a key, Core Data's `$source.<key>`. For a relationship, the destination
    /// objects migrated from the source object's related objects (by whichever entity mapping made them).
    case sourceValue(String)
    /// A constant (attributes only).
    case constant(AttributeValue)
    /// An expression in the predicate language, evaluated with `$source` standing for the source object (and
    /// `SELF` too), and `$destination` for the destination object when relationships are made: a key path through
    /// relationships (`$source.country.continent`), a collection operator (`$source.countries.@count`), a function
    /// (`uppercase:($source.name)`). On a relationship mapping, objects it reaches are source objects: the
    /// destination gets the objects migrated from them.
    case expression(QueryExpression)
    /// Swift code computing the value from the source object (attributes only).
    case custom(@Sendable (MigrationSourceObject) throws -> AttributeValue)
    /// The destination objects an entity mapping made from the source objects an expression gives, Core Data's
    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", <objects>)`,
    /// the expression Xcode writes for relationships.
    case destinationInstances(entityMappingName: String, sourceInstances: QueryExpression)
    /// The source objects an entity mapping migrated into the destination objects an expression gives, Core
    /// Data's `FUNCTION($manager, "sourceInstancesForEntityMappingNamed:destinationInstances:", "<mapping>", <objects>)`.
    case sourceInstances(entityMappingName: String, destinationInstances: QueryExpression)
    /// The destination objects migrated from the objects an expression gives, which a relationship of the source
    /// entity holds: Core Data's
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<relationship>", <objects>)`,
    /// which Xcode writes for a relationship mapped from a source relationship (each object is found through the
    /// mapping of its own entity).
    case destinationInstancesForSourceRelationship(relationshipName: String, sourceInstances: QueryExpression)
    /// A function of the entity mapping's ``EntityMigrationPolicy``, Core Data's
    /// `FUNCTION($entityPolicy, "<selector>", <arguments>…)`: the policy answers it in
    /// ``EntityMigrationPolicy/evaluateFunction(_:arguments:manager:)``.
    case policyFunction(selector: String, arguments: [QueryExpression])

    /// The selector of ``destinationInstances(entityMappingName:sourceInstances:)``.
    public static let destinationInstancesSelector = "destinationInstancesForEntityMappingNamed:sourceInstances:"
    /// The selector of ``sourceInstances(entityMappingName:destinationInstances:)``.
    public static let sourceInstancesSelector = "sourceInstancesForEntityMappingNamed:destinationInstances:"
    /// The selector of ``destinationInstancesForSourceRelationship(relationshipName:sourceInstances:)``.
    public static let sourceRelationshipSelector = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"

    /// Reads a value expression as Xcode's mapping-model editor writes it (see the table above).
    ///
    /// ```swift
    /// let relationship = try MappingExpression(format: """
    ///     FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CountryToCountry", $source.country)
    ///     """)
    /// ```
    ///
    /// - Parameter format: The expression's text.
    /// - Throws: ``QuireError/Code/predicateSyntax`` for text that is not an expression, and for a `FUNCTION` on
    ///   another receiver than `$manager` and `$entityPolicy` or of a `$manager` method Quire does not evaluate,
    ///   naming it.
    public init(format: String) throws {
        let text = format.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let arguments = try Self.functionArguments(text) else {
            let expression = try QueryExpression(format: text)
            self = Self(simplifying: expression)
            return
        }
        guard arguments.count >= 2, let selector = Self.stringLiteral(arguments[1]) else {
            throw Self.syntaxError("FUNCTION needs a receiver and a quoted selector", in: text)
        }
        let rest = try arguments.dropFirst(2).map { try QueryExpression(format: $0) }
        switch arguments[0] {
        case "$entityPolicy":
            self = .policyFunction(selector: selector, arguments: rest)
        case "$manager":
            let selectors = [Self.destinationInstancesSelector, Self.sourceInstancesSelector, Self.sourceRelationshipSelector]
            guard selectors.contains(selector) else {
                throw Self.syntaxError("the migration manager's method '\(selector)' is not one Quire evaluates", in: text)
            }
            guard rest.count == 2, case .constant(.string(let name)) = rest[0] else {
                throw Self.syntaxError("'\(selector)' takes a name and an expression", in: text)
            }
            switch selector {
            case Self.destinationInstancesSelector: self = .destinationInstances(entityMappingName: name, sourceInstances: rest[1])
            case Self.sourceInstancesSelector: self = .sourceInstances(entityMappingName: name, destinationInstances: rest[1])
            default: self = .destinationInstancesForSourceRelationship(relationshipName: name, sourceInstances: rest[1])
            }
        default:
            throw Self.syntaxError(
                "FUNCTION calls a method of '\(arguments[0])'; Quire evaluates those of $manager and $entityPolicy", in: text)
        }
    }

    /// `$source.<key>` as ``sourceValue(_:)``, a constant as ``constant(_:)``, anything else as ``expression(_:)``.
    init(simplifying expression: QueryExpression) {
        switch expression {
        case .member(.variable("source"), let keyPath) where !keyPath.contains(".") && !keyPath.hasPrefix("@"):
            self = .sourceValue(keyPath)
        case .constant(let value):
            self = .constant(value)
        default:
            self = .expression(expression)
        }
    }

    /// The expression as Xcode writes it; nil for ``custom(_:)``, which has no text.
    public var format: String? {
        switch self {
        case .sourceValue(let key): return "$source.\(key)"
        case .constant(.boolean(let flag)): return flag ? "YES" : "NO"
        case .constant(let value): return QueryExpression.constant(value).expressionFormat
        case .expression(let expression): return expression.expressionFormat
        case .custom: return nil
        case .destinationInstances(let mapping, let instances):
            return "FUNCTION($manager, \"\(Self.destinationInstancesSelector)\", \(Self.quoted(mapping)), \(instances.expressionFormat))"
        case .sourceInstances(let mapping, let instances):
            return "FUNCTION($manager, \"\(Self.sourceInstancesSelector)\", \(Self.quoted(mapping)), \(instances.expressionFormat))"
        case .destinationInstancesForSourceRelationship(let relationship, let instances):
            return "FUNCTION($manager, \"\(Self.sourceRelationshipSelector)\", \(Self.quoted(relationship)), \(instances.expressionFormat))"
        case .policyFunction(let selector, let arguments):
            return "FUNCTION(" + (["$entityPolicy", Self.quoted(selector)] + arguments.map(\.expressionFormat)).joined(separator: ", ") + ")"
        }
    }

    // MARK: Reading FUNCTION(…)

    /// The arguments of `FUNCTION(a, b, …)` as text, split at the commas outside strings and brackets; nil when
    /// the text is not a `FUNCTION` call.
    private static func functionArguments(_ text: String) throws -> [String]? {
        let scalars = Array(text.unicodeScalars)
        let name = "FUNCTION"
        guard text.uppercased().hasPrefix(name) else { return nil }
        var index = name.unicodeScalars.count
        while index < scalars.count, scalars[index] == " " { index += 1 }
        guard index < scalars.count, scalars[index] == "(" else { return nil }
        index += 1
        var arguments: [String] = []
        var current = ""
        var depth = 0
        var quote: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if let open = quote {
                current.unicodeScalars.append(scalar)
                if scalar == "\\", index < scalars.count {
                    current.unicodeScalars.append(scalars[index])
                    index += 1
                } else if scalar == open {
                    quote = nil
                }
                continue
            }
            switch scalar {
            case "\"", "'":
                quote = scalar
                current.unicodeScalars.append(scalar)
            case "(", "{", "[":
                depth += 1
                current.unicodeScalars.append(scalar)
            case ")", "}", "]":
                if depth == 0 {
                    guard scalar == ")" else { throw syntaxError("'\(scalar)' closes nothing", in: text) }
                    arguments.append(current.trimmingCharacters(in: .whitespaces))
                    let trailing = String(String.UnicodeScalarView(scalars[index...])).trimmingCharacters(in: .whitespacesAndNewlines)
                    guard trailing.isEmpty else { throw syntaxError("text follows the FUNCTION call", in: text) }
                    return arguments
                }
                depth -= 1
                current.unicodeScalars.append(scalar)
            case ",":
                if depth == 0 {
                    arguments.append(current.trimmingCharacters(in: .whitespaces))
                    current = ""
                } else {
                    current.unicodeScalars.append(scalar)
                }
            default:
                current.unicodeScalars.append(scalar)
            }
        }
        throw syntaxError("the FUNCTION call is not closed", in: text)
    }

    /// The text of a quoted string literal, or nil.
    private static func stringLiteral(_ text: String) -> String? {
        guard let expression = try? QueryExpression(format: text), case .constant(.string(let value)) = expression else {
            return nil
        }
        return value
    }

    private static func quoted(_ text: String) -> String { QueryExpression.constant(.string(text)).expressionFormat }

    private static func syntaxError(_ reason: String, in text: String) -> QuireError {
        QuireError(.predicateSyntax, "The mapping expression '\(text)' cannot be read: \(reason).")
    }
}

extension MappingExpression: CustomStringConvertible {
    /// ``format``, or `<custom>` for Swift code.
    public var description: String { format ?? "<custom>" }
}
