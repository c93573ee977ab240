import QuireSupport
import Foundation

/// A `[String: Any]` dictionary a predicate can be evaluated against, as `NSDictionary` is in Core Data.
///
/// Values convert as format arguments do (numbers, strings, dates, ``AttributeValue``, nil, …); nested
/// dictionaries and ``PredicateEvaluable`` values are objects; arrays and sets are collections. A missing key
/// reads as nil.
///
/// ```swift
/// let author = PredicateDictionary(["name": "Ann", "books": [["title": "Dune"]]])
/// try QueryPredicate(format: "ANY books.title == 'Dune'").evaluate(with: author)   // true
/// ```
public struct PredicateDictionary: PredicateEvaluable {
    /// The wrapped dictionary.
    public var values: [String: Any]
    /// The identity `SELF == %@` compares with, if any.
    public var predicateObjectID: ObjectID?

    /// Wraps a dictionary.
    ///
    /// - Parameters:
    ///   - values: The dictionary.
    ///   - objectID: The identity `SELF == %@` compares with; none by default.
    public init(_ values: [String: Any], objectID: ObjectID? = nil) {
        self.values = values
        self.predicateObjectID = objectID
    }

    /// The value for a key, converted; nil for a missing key.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a value of a type predicates cannot compare.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        guard let value = values[key] else { return .null }
        guard let converted = PredicateValueConverter.predicateValue(for: value) else {
            throw QuireError(
                .predicateEvaluation,
                "The value of key '\(key)' has the type '\(type(of: value))', which predicates cannot compare.",
                context: .init(key: key)
            )
        }
        return converted
    }
}

extension Dictionary: PredicateEvaluable where Key == String, Value == Any {
    /// The value for a key, converted as ``PredicateDictionary`` does; nil for a missing key.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a value of a type predicates cannot compare.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        try PredicateDictionary(self).predicateValue(forKey: key)
    }

    /// Nil: a dictionary has no identity.
    public var predicateObjectID: ObjectID? { nil }
}

/// Converts Swift values (dictionary values, substitution variables) into values met during evaluation.
enum PredicateValueConverter {
    /// The value a Swift value stands for, or nil when predicates cannot compare it.
    static func predicateValue(for value: Any?, depth: Int = 0) -> PredicateValue? {
        guard depth < PredicateParser.maximumDepth else { return nil }
        guard let value = PredicateConstantConverter.unwrapped(value) else { return .null }
        switch value {
        case let predicateValue as PredicateValue: return predicateValue
        case let attribute as AttributeValue: return .value(attribute)
        case is NSNull: return .null
        case let id as ObjectID: return .object(ObjectIDReference(id: id))
        default: break
        }
        if let attribute = AttributeValue(converting: value) { return .value(attribute) }
        if let dictionary = value as? [String: Any] { return .object(PredicateDictionary(dictionary)) }
        if let object = value as? any PredicateEvaluable { return .object(object) }
        if let convertible = value as? any QueryValueConvertible { return predicateValue(convertible.queryValue) }
        if let (elements, _) = PredicateConstantConverter.sequenceElements(of: value) {
            var converted: [PredicateValue] = []
            converted.reserveCapacity(elements.count)
            for element in elements {
                guard let value = predicateValue(for: element, depth: depth + 1) else { return nil }
                converted.append(value)
            }
            return .collection(converted)
        }
        return nil
    }

    /// The value a ``QueryValue`` stands for.
    static func predicateValue(_ value: QueryValue) -> PredicateValue {
        switch value {
        case .attribute(let attribute): return .value(attribute)
        case .objectID(let id): return .object(ObjectIDReference(id: id))
        case .array(let values): return .collection(values.map(predicateValue))
        }
    }
}

/// An object known only by its identifier: equal to objects with the same ``PredicateEvaluable/predicateObjectID``.
package struct ObjectIDReference: PredicateEvaluable {
    /// The identifier.
    package var id: ObjectID

    /// Wraps an identifier.
    package init(id: ObjectID) { self.id = id }

    package func predicateValue(forKey key: String) throws -> PredicateValue {
        throw QuireError(
            .predicateEvaluation,
            "The object ID \(id) cannot be read for key '\(key)' without its object.",
            context: .init(key: key)
        )
    }

    package var predicateObjectID: ObjectID? { id }
}

/// An object known only by the printed literal of its identifier, as `CAST("<literal>", "NSManagedObjectID")`
/// evaluates when ``ObjectID`` cannot read literals back: it equals objects whose identifier prints the same.
struct ObjectIDLiteralReference: PredicateEvaluable {
    /// The literal, such as an object ID's URI representation.
    var literal: String

    func predicateValue(forKey key: String) throws -> PredicateValue {
        throw QuireError(
            .predicateEvaluation,
            "The object ID \(literal) cannot be read for key '\(key)' without its object.",
            context: .init(key: key)
        )
    }

    var predicateObjectID: ObjectID? { nil }

    /// True when the other object's identifier prints as this literal.
    func matches(_ other: any PredicateEvaluable) -> Bool {
        if let reference = other as? ObjectIDLiteralReference { return reference.literal == literal }
        guard let id = other.predicateObjectID else { return false }
        return PredicateCast.objectIDLiteral(id) == literal
    }
}
