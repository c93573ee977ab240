import QuireSupport
import Foundation

/// Something a predicate can be evaluated against: a managed object, a dictionary, a plain value.
///
/// ```swift
/// struct Author: PredicateEvaluable {
///     var name: String
///     var books: [Book]
///     func predicateValue(forKey key: String) throws -> PredicateValue {
///         switch key {
///         case "name": return .value(.string(name))
///         case "books": return .collection(books.map { .object($0) })
///         default: throw QuireError(.predicateEvaluation, "Author has no key '\(key)'.")
///         }
///     }
///     var predicateObjectID: ObjectID? { nil }
/// }
/// ```
public protocol PredicateEvaluable {
    /// The value for one key (no dots): an attribute value, a related object, or a collection.
    ///
    /// - Parameter key: One key of a key path.
    /// - Returns: The value; ``PredicateValue/value(_:)`` of ``AttributeValue/null`` for a missing value.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key the object does not have.
    func predicateValue(forKey key: String) throws -> PredicateValue

    /// The object's identity when compared with `SELF == %@` (managed objects return their ``ObjectID``);
    /// nil for plain values.
    var predicateObjectID: ObjectID? { get }

    /// What `SELF` evaluates to. Objects are themselves (the default); a plain value such as an
    /// ``AttributeValue`` under validation is its value, so `SELF > 0` compares it.
    var predicateSelfValue: PredicateValue { get }

    /// Whether ``predicateSelfValue`` is the object itself (`.object(self)`), which lets the evaluator use the
    /// object without asking for it (and building a value) at every step of a key path. The default, `false`,
    /// always asks; a type whose `SELF` is itself may answer `true`.
    var predicateSelfIsObject: Bool { get }
}

extension PredicateEvaluable {
    /// The object itself.
    public var predicateSelfValue: PredicateValue { .object(self) }

    /// `false`: the evaluator asks ``predicateSelfValue``.
    public var predicateSelfIsObject: Bool { false }
}

/// A value met while evaluating a predicate: an attribute value, an object, or a collection.
///
/// Not `indirect`: no case holds a `PredicateValue` but through an array, so making one allocates nothing
/// (an indirect enum boxed every value on the heap, several a key path step).
public enum PredicateValue {
    /// An attribute value (``AttributeValue/null`` for nil).
    case value(AttributeValue)
    /// An object whose keys can be read in turn (a to-one relationship's destination).
    case object(any PredicateEvaluable)
    /// A collection (a to-many relationship's destinations, or the values of a key path through one).
    case collection([PredicateValue])

    /// Nil.
    public static var null: PredicateValue { .value(.null) }
}

extension PredicateValue: PredicateEvaluable {
    /// The value of a key: read from an object, and from each element of a collection.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` when the value is an attribute value, which has no keys.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        switch self {
        case .value(.null):
            return .null
        case .value(let value):
            throw QuireError(.predicateEvaluation, "The value \(value) has no key '\(key)'.", context: .init(key: key))
        case .object(let object):
            return try object.predicateValue(forKey: key)
        case .collection(let elements):
            return .collection(try elements.map { try $0.predicateValue(forKey: key) })
        }
    }

    /// The identity of the object, if the value is one.
    public var predicateObjectID: ObjectID? {
        if case .object(let object) = self { return object.predicateObjectID }
        return nil
    }

    /// The value itself.
    public var predicateSelfValue: PredicateValue { self }
}

extension AttributeValue: PredicateEvaluable {
    /// Throws: an attribute value has no keys (`nil` has every key, all nil).
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` unless the value is ``null``.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        try PredicateValue.value(self).predicateValue(forKey: key)
    }

    /// Nil: a plain value has no identity.
    public var predicateObjectID: ObjectID? { nil }

    /// The value itself, so `SELF > 0` compares it (as validation predicates do).
    public var predicateSelfValue: PredicateValue { .value(self) }
}
