import QuireCore
import QuireStores
import QuireSupport
import Foundation
import OrderedCollections

/// A typed property of a ``ManagedObject`` subclass, backed by the object's own storage so that faulting,
/// change tracking and inverse relationships work through it (Core Data's `@NSManaged`).
///
/// ```swift
/// final class Employee: ManagedObject {
///     @Managed("name") var name: String?
///     @Managed("salary") var salary: Int64
///     @Managed("department") var department: Department?
/// }
/// final class Department: ManagedObject {
///     @Managed("employees") var employees: Set<Employee>
/// }
/// ```
///
/// Register the class for its entity (``EntityDescription/managedObjectClass``) before the model is used.
@propertyWrapper
public struct Managed<Value: ManagedPropertyValue> {
    /// The property's key in the entity.
    public var key: String { storedKey.string }

    /// The key, kept without owning it (see ``ManagedKeyBits``): every instance of the class holds one per
    /// property, so a retained `String` here would cost a retain and a release on every read and a release per
    /// property when the object is freed.
    @usableFromInline let storedKey: ManagedKeyBits

    /// Declares a property backed by the entity's property `key`.
    ///
    /// Inlinable, so that a literal key (every instance of the class makes its wrappers again) is stored as two
    /// constant words, with no call. A key that is no literal (a string made at run time) is interned: one copy of
    /// each distinct such key is kept for the program's life, and making the wrapper takes a lock.
    @inlinable
    public init(_ key: String) { storedKey = ManagedKeyBits(key) }

    /// Not available: a managed property is reached through its object.
    @available(*, unavailable, message: "@Managed is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable: @Managed is used through its enclosing object") }
        set { fatalError("unreachable: @Managed is used through its enclosing object") }
    }

    /// Reads and writes the value through the enclosing object's key-value access.
    ///
    /// Inlinable, so that the application's module specializes it for each property: the key is then read
    /// straight from the property's storage rather than through a key path at run time.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let key = object[keyPath: storageKeyPath].storedKey
            if let stored = object.storedValue(forKey: key, as: Value.self) { return stored }
            return object.convertedValue(forKey: key.string, as: Value.self)
        }
        set { object.setValue(newValue.managedValue, forKey: object[keyPath: storageKeyPath].storedKey.string) }
    }
}

#if !_pointerBitWidth(_64)
#error("ManagedKeyBits reads a String as the two 64-bit words of a 64-bit platform's String")
#endif
/// A ``Managed`` property's key as the two words of a `String` that lives as long as the program: a string
/// literal (what `@Managed("name")` passes) is such a string already (the words of a short one are its bytes, a
/// long one points into the program's constant data); any other string is interned once, kept for good by
/// ``interned(_:)``, and its words point at that copy. The words are trivial to copy and to free, so a `@Managed`
/// property costs its object no release when freed, and a read no retain and release. (The words are a 64-bit
/// `String`'s, as `StringWords` in `QuireCore` reads them; `unsafeBitCast` checks the size.)
@usableFromInline
struct ManagedKeyBits: Sendable {
    @usableFromInline let words: (UInt64, UInt64)

    /// The string's words; a string that may be freed (not immortal) is interned first.
    @inlinable @inline(__always)
    init(_ key: String) {
        let words = unsafeBitCast(key, to: (UInt64, UInt64).self)
        // The top bit of a native `String`'s second word (its object's discriminator) is the standard library's
        // "immortal" flag: set for short strings held in the words themselves and for literals, which reference
        // counting skips; clear for a string in a buffer that is freed with its last reference. For a short
        // literal the compiler decides this test (the words are constants).
        self.words = words.1 >> 63 == 1 ? words : Self.interned(key)
    }

    /// The words of the interned copy of `key`, which lives as long as the program.
    @usableFromInline
    static func interned(_ key: String) -> (UInt64, UInt64) {
        let kept = internedKeys.withLock { $0.insert(key).memberAfterInsert }
        return unsafeBitCast(kept, to: (UInt64, UInt64).self)
    }

    /// The key, not retained: safe because the string it names is immortal or kept by ``interned(_:)`` for good.
    @inlinable @inline(__always)
    var string: String { unsafeBitCast(words, to: String.self) }

    /// Keys that were not immortal strings, kept alive for the program's life (one copy of each distinct key).
    private static let internedKeys = LockedValue<Set<String>>([])
}

/// A Swift type a ``Managed`` property can have: the attribute value types, optionals of them, related
/// managed objects, and sets of them.
public protocol ManagedPropertyValue {
    /// The value from what ``ManagedObject/value(forKey:)`` returned (nil becomes zero, empty or the
    /// reference date for non-optional types).
    static func fromManagedValue(_ value: Any?) -> Self
    /// The value from what ``ManagedObject/value(forKey:)`` returned for a property (what ``Managed`` calls):
    /// by default ``fromManagedValue(_:)``.
    static func fromManagedValue(_ value: Any?, of property: PropertyDescription?) -> Self
    /// The value to give ``ManagedObject/setValue(_:forKey:)-(Any?,String)``.
    var managedValue: Any? { get }
}

extension ManagedPropertyValue {
    /// ``fromManagedValue(_:)``: the property changes nothing for most types.
    public static func fromManagedValue(_ value: Any?, of property: PropertyDescription?) -> Self { fromManagedValue(value) }
}

extension Optional: ManagedPropertyValue where Wrapped: ManagedPropertyValue {
    /// `nil` stays `nil`; anything else converts as `Wrapped` does.
    public static func fromManagedValue(_ value: Any?) -> Self {
        guard let value else { return nil }
        return Wrapped.fromManagedValue(value)
    }
    /// The wrapped value's managed value, or nil.
    public var managedValue: Any? { self?.managedValue }
}

extension ManagedPropertyValue where Self: BinaryInteger {
    /// Converts any stored integer (clamping out-of-range values), or 0 for nil.
    public static func fromManagedValue(_ value: Any?) -> Self {
        guard case .integer(let v)? = AttributeValue(converting: value) else {
            if case .boolean(let b)? = AttributeValue(converting: value) { return b ? 1 : 0 }
            return 0
        }
        return Self(clamping: v)
    }
    /// The integer.
    public var managedValue: Any? { Int64(clamping: self) }
}

extension Int: ManagedPropertyValue {}
extension Int16: ManagedPropertyValue {}
extension Int32: ManagedPropertyValue {}
extension Int64: ManagedPropertyValue {}

extension Double: ManagedPropertyValue {
    /// The stored number, or 0 for nil.
    public static func fromManagedValue(_ value: Any?) -> Double { AttributeValue(converting: value)?.doubleValue ?? 0 }
    /// The number.
    public var managedValue: Any? { self }
}

extension Float: ManagedPropertyValue {
    /// The stored number, or 0 for nil.
    public static func fromManagedValue(_ value: Any?) -> Float { Float(AttributeValue(converting: value)?.doubleValue ?? 0) }
    /// The number.
    public var managedValue: Any? { self }
}

extension Bool: ManagedPropertyValue {
    /// The stored Boolean, or false for nil.
    public static func fromManagedValue(_ value: Any?) -> Bool {
        switch AttributeValue(converting: value) {
        case .boolean(let b)?: return b
        case .integer(let i)?: return i != 0
        default: return false
        }
    }
    /// The Boolean.
    public var managedValue: Any? { self }
}

extension Decimal: ManagedPropertyValue {
    /// The stored decimal, or 0 for nil.
    public static func fromManagedValue(_ value: Any?) -> Decimal { value as? Decimal ?? 0 }
    /// The decimal.
    public var managedValue: Any? { self }
}

extension String: ManagedPropertyValue {
    /// The stored string, or "" for nil.
    public static func fromManagedValue(_ value: Any?) -> String { value as? String ?? "" }
    /// The string.
    public var managedValue: Any? { self }
}

extension Date: ManagedPropertyValue {
    /// The stored date, or the reference date (2001-01-01) for nil.
    public static func fromManagedValue(_ value: Any?) -> Date { value as? Date ?? Date(timeIntervalSinceReferenceDate: 0) }
    /// The date.
    public var managedValue: Any? { self }
}

extension Data: ManagedPropertyValue {
    /// The stored bytes, or empty for nil.
    public static func fromManagedValue(_ value: Any?) -> Data { value as? Data ?? Data() }
    /// The bytes.
    public var managedValue: Any? { self }
}

extension UUID: ManagedPropertyValue {
    /// The stored UUID, or the all-zero UUID for nil.
    public static func fromManagedValue(_ value: Any?) -> UUID {
        value as? UUID ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
    /// The UUID.
    public var managedValue: Any? { self }
}

extension URL: ManagedPropertyValue {
    /// The stored URL, or the root file URL for nil.
    public static func fromManagedValue(_ value: Any?) -> URL { value as? URL ?? URL(fileURLWithPath: "/") }
    /// The URL.
    public var managedValue: Any? { self }
}

extension Set: ManagedPropertyValue where Element: ManagedObject {
    /// The related objects of a to-many relationship.
    ///
    /// Built in place: a member of exactly the element class is converted without the general dynamic cast (about
    /// 900 instructions an object; a `willSave()` recounting a to-many reads every member), others are cast.
    public static func fromManagedValue(_ value: Any?) -> Set<Element> {
        guard let set = value as? Set<ManagedObject> else { return [] }
        var result = Set<Element>(minimumCapacity: set.count)
        let exact = ObjectIdentifier(Element.self)
        for object in set {
            if ObjectIdentifier(type(of: object)) == exact {
                // Safe: the object's dynamic type is exactly `Element`, checked on the line above.
                result.insert(unsafeDowncast(object, to: Element.self))
            } else if let element = object as? Element {
                result.insert(element)
            }
        }
        return result
    }
    /// The objects.
    public var managedValue: Any? { Set<ManagedObject>(self.map { $0 as ManagedObject }) }
}

extension OrderedSet: ManagedPropertyValue where Element: ManagedObject {
    /// The related objects of an ordered to-many relationship.
    public static func fromManagedValue(_ value: Any?) -> OrderedSet<Element> {
        if let set = value as? OrderedSet<ManagedObject> { return OrderedSet(set.compactMap { $0 as? Element }) }
        return []
    }
    /// The objects, in order.
    public var managedValue: Any? { OrderedSet<ManagedObject>(self.map { $0 as ManagedObject }) }
}

extension ManagedObject: ManagedPropertyValue {
    /// The related object of a to-one relationship, for a non-optional `@Managed` to-one property.
    ///
    /// Such a property reading no object (a required relationship not set yet, or an object whose record is
    /// missing: a fault of a deleted row or of a removed store) gives a detached placeholder: a new object of
    /// the destination entity in no context (``ManagedObject/managedObjectContext`` is `nil`), whose values
    /// are the entity's defaults. It does not trap. Declare to-one properties optional (`Department?`) to see
    /// `nil`, or read them with ``ManagedObject/validatedValue(forKey:)``, which throws for a missing record.
    public static func fromManagedValue(_ value: Any?, of property: PropertyDescription?) -> Self {
        if let object = value as? Self { return object }
        if let relationship = property as? RelationshipDescription, let destination = relationship.resolvedDestination {
            if let placeholder = destination.managedObjectClass.init(entity: destination) as? Self {
                return placeholder
            }
            return Self(entity: destination)
        }
        return fromManagedValue(value)
    }

    /// The related object; called without its property (not through ``Managed``), a value that is no object of
    /// this class traps: that is a programmer's call, not input.
    public static func fromManagedValue(_ value: Any?) -> Self {
        guard let object = value as? Self else {
            preconditionFailure("A non-optional to-one property of type \(Self.self) found \(value.map { "\(type(of: $0))" } ?? "nil"); declare it optional.")
        }
        return object
    }
    /// The object.
    public var managedValue: Any? { self }
}
