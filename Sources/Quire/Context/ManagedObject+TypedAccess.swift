import QuireCore
import Foundation

extension ManagedObject {
    /// An attribute's value read straight from its storage when `Value` is exactly the stored value's Swift
    /// type (an `Int64` property of an integer64 attribute, a `String` of a string attribute, …), without
    /// boxing it into `Any` and casting it back: what ``Managed`` properties read first. `nil` when the read
    /// needs the general path (another type, a relationship, a nil value, a transformable or narrow integer
    /// attribute, data kept outside the store), which gives the same values, only slower.
    @usableFromInline
    func storedValue<Value>(forKey key: String, as type: Value.Type) -> Value? {
        let hint = Int(nextKeyHint)
        guard let keyed = withEntity({ $0.keyedPropertyIndex(forKey: key, hint: hint) }), keyed.isPlainAttribute else { return nil }
        nextKeyHint = UInt8(truncatingIfNeeded: keyed.index &+ 1)
        switch attributeValue(at: keyed.index) {
        case .integer(let value):
            // One return per path: `??` on the generic `Value?` looked up `Optional<Value>`'s metadata on every
            // read (about 400 instructions, twice the rest of the read).
            if Value.self == Int64.self || Value.self == Int64?.self { return Self.exactly(value, as: Value.self) }
            return Self.integer(value, as: Value.self)
        case .double(let value): return Self.exactly(value, as: Value.self)
        case .string(let value): return Self.exactly(value, as: Value.self)
        case .boolean(let value): return Self.exactly(value, as: Value.self)
        case .date(let value): return Self.exactly(value, as: Value.self)
        case .data(let value): return Self.exactly(value, as: Value.self)
        case .float(let value): return Self.exactly(value, as: Value.self)
        default: return nil
        }
    }

    /// A ``Managed`` property's value through the general path: ``value(forKey:)`` converted by the value
    /// type (``ManagedPropertyValue/fromManagedValue(_:of:)``).
    @usableFromInline
    func convertedValue<Value: ManagedPropertyValue>(forKey key: String, as type: Value.Type) -> Value {
        Value.fromManagedValue(value(forKey: key), of: entity.property(named: key))
    }

    /// An integer as `Int`, `Int32` or `Int16` (or their optionals) when it fits exactly, as `NSNumber` converts;
    /// nil for other types and values (the general path then converts).
    @inline(__always)
    private static func integer<Value>(_ value: Int64, as: Value.Type) -> Value? {
        if Value.self == Int.self || Value.self == Int?.self { return exactly(Int(value), as: Value.self) }
        if Value.self == Int32.self || Value.self == Int32?.self { return Int32(exactly: value).flatMap { exactly($0, as: Value.self) } }
        if Value.self == Int16.self || Value.self == Int16?.self { return Int16(exactly: value).flatMap { exactly($0, as: Value.self) } }
        return nil
    }

    /// `value` as a `Value` when that is its own type or its optional, without a dynamic cast.
    @inline(__always)
    private static func exactly<Stored, Value>(_ value: Stored, as: Value.Type) -> Value? {
        if Stored.self == Value.self { return unsafeBitCast(value, to: Value.self) }
        if Optional<Stored>.self == Value.self { return unsafeBitCast(Optional(value), to: Value.self) }
        return nil
    }
}
