import QuireCore
import Foundation

/// A property of a ``ManagedObject`` subclass backed by the object's own storage, so that faulting, change
/// tracking and inverse relationships work through it: Core Data's `@NSManaged`, under a name of its own (the
/// compiler keeps `@NSManaged` for Objective-C, and many Core Data apps declare a protocol `Managed` of their own).
///
/// Write it where Core Data code writes `@NSManaged`, in the class or in an extension (Xcode's generated code puts
/// properties in extensions):
///
/// ```swift
/// final class Country: ManagedObject {
///     @ManagedProperty var numberOfMoods: Int64
///     @ManagedProperty fileprivate(set) var moods: Set<Mood>
///     @ManagedProperty fileprivate var primitiveUpdatedAt: Date   // the primitive accessor of `updatedAt`
/// }
/// extension Country {
///     @ManagedProperty public var markedForDeletionDate: Date?
///     @ManagedProperty var continent: Continent?
/// }
/// ```
///
/// The property's name is the key, or give one: `@ManagedProperty("date") var when: Date`. A property named
/// `primitive` followed by a capitalized key (`primitiveUpdatedAt`) reads and writes that key's value as
/// ``ManagedObject/primitiveValue(forKey:)`` and ``ManagedObject/setPrimitiveValue(_:forKey:)`` do, as Core Data's
/// dynamic primitive accessors.
///
/// The type is any ``ManagedPropertyValue`` (the attribute value types, `Int` and the other integer widths, `Bool`,
/// optionals of them, related objects, `Set` and `OrderedSet` of them), read without boxing the value; any other
/// type (a transformable attribute's value type, `NSNumber`) reads through ``ManagedObject/value(forKey:)`` and
/// traps if the value is not of that type, as Core Data's accessors raise. A property stores nothing in the
/// object: reading it reads the object's values.
///
/// The macro is built with swift-syntax, which Quire depends on for it; ``Managed`` is the property-wrapper form
/// that needs the key and works only in the class body.
@attached(accessor)
public macro ManagedProperty() = #externalMacro(module: "QuireMacros", type: "ManagedPropertyMacro")

/// A ``ManagedProperty()`` property backed by the entity's property `key` rather than the property's own name.
@attached(accessor)
public macro ManagedProperty(_ key: String) = #externalMacro(module: "QuireMacros", type: "ManagedPropertyMacro")

extension ManagedObject {
    /// What a ``ManagedProperty()`` getter calls: the value of `key` as `Value`, read from the object's storage
    /// without boxing when `Value` is the stored value's own type. Not for direct use.
    @inlinable
    public func _managedValue<Value: ManagedPropertyValue>(forKey key: String) -> Value {
        if let stored = storedValue(forKey: ManagedKeyBits(key), as: Value.self) { return stored }
        return convertedValue(forKey: key, as: Value.self)
    }

    /// What a ``ManagedProperty()`` getter of another type calls: ``value(forKey:)`` as `Value` (nil for an
    /// optional `Value`). Not for direct use.
    @_disfavoredOverload
    public func _managedValue<Value>(forKey key: String) -> Value {
        Self.cast(value(forKey: key), to: Value.self, key: key, of: self)
    }

    /// What a ``ManagedProperty()`` setter calls. Not for direct use.
    @inlinable
    public func _setManagedValue<Value: ManagedPropertyValue>(_ value: Value, forKey key: String) {
        setValue(value.managedValue, forKey: key)
    }

    /// What a ``ManagedProperty()`` setter of another type calls. Not for direct use.
    @_disfavoredOverload
    public func _setManagedValue<Value>(_ value: Value, forKey key: String) {
        setValue(Self.flattened(value), forKey: key)
    }

    /// What a primitive ``ManagedProperty()`` getter (`primitiveUpdatedAt`) calls. Not for direct use.
    @inlinable
    public func _managedPrimitiveValue<Value: ManagedPropertyValue>(forKey key: String) -> Value {
        _managedValue(forKey: key)
    }

    /// What a primitive ``ManagedProperty()`` getter of another type calls. Not for direct use.
    @_disfavoredOverload
    public func _managedPrimitiveValue<Value>(forKey key: String) -> Value {
        Self.cast(primitiveValue(forKey: key), to: Value.self, key: key, of: self)
    }

    /// What a primitive ``ManagedProperty()`` setter calls. Not for direct use.
    @inlinable
    public func _setManagedPrimitiveValue<Value: ManagedPropertyValue>(_ value: Value, forKey key: String) {
        setPrimitiveValue(value.managedValue, forKey: key)
    }

    /// What a primitive ``ManagedProperty()`` setter of another type calls. Not for direct use.
    @_disfavoredOverload
    public func _setManagedPrimitiveValue<Value>(_ value: Value, forKey key: String) {
        setPrimitiveValue(Self.flattened(value), forKey: key)
    }

    /// `value` as `Value`: nil for an optional `Value` when there is none; anything else that is no `Value` traps
    /// (a property declared with a type its attribute cannot have is the program's error, as in Core Data).
    private static func cast<Value>(_ value: Any?, to: Value.Type, key: String, of object: ManagedObject) -> Value {
        if let value, let typed = value as? Value { return typed }
        if let none = Optional<Any>.none as? Value, value == nil { return none }
        preconditionFailure(
            "The @ManagedProperty '\(key)' of \(type(of: object)) is declared \(Value.self), but its value is "
                + "\(value.map { "of type \(Swift.type(of: $0))" } ?? "nil").")
    }

    /// A value given as `Any`, with an optional's nil made the `nil` ``setValue(_:forKey:)-(Any?,String)`` takes.
    private static func flattened<Value>(_ value: Value) -> Any? {
        if let optional = value as? any AnyOptionalValue { return optional.wrappedAnyValue }
        return value
    }
}

/// `Optional`, seen through `Any`: lets a value of a generic type that is an optional hand over its wrapped value.
private protocol AnyOptionalValue {
    var wrappedAnyValue: Any? { get }
}

extension Optional: AnyOptionalValue {
    fileprivate var wrappedAnyValue: Any? { self.map { $0 } }
}
