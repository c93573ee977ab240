import QuireCore
import Foundation

// `setValue(_:forKey:)` for values whose type is known where they are set. Swift picks these overloads for a
// `String`, `Int64`, `Double`, `Bool`, `Date` or `Data` argument (an integer literal still goes to the `Any?`
// version, as `Int`), so such a value is stored without being boxed into an `Any` and opened again. Each does
// exactly what `setValue(_ value: Any?, forKey:)` does with the same value: an attribute of the value's own type
// takes it as it is; any other key or type goes through the general path, with its conversions and traps.
extension ManagedObject {
    /// Sets a `String` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: String, forKey key: String) {
        setValue(value, ofType: .string, as: AttributeValue.string, forKey: key)
    }

    /// Sets an `Int64` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: Int64, forKey key: String) {
        setValue(value, ofType: .integer64, as: AttributeValue.integer, forKey: key)
    }

    /// Sets a `Double` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: Double, forKey key: String) {
        setValue(value, ofType: .double, as: AttributeValue.double, forKey: key)
    }

    /// Sets a `Bool` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: Bool, forKey key: String) {
        setValue(value, ofType: .boolean, as: AttributeValue.boolean, forKey: key)
    }

    /// Sets a `Date` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: Date, forKey key: String) {
        setValue(value, ofType: .date, as: AttributeValue.date, forKey: key)
    }

    /// Sets a `Data` value, as ``setValue(_:forKey:)-(Any?,String)`` does, without boxing it.
    public func setValue(_ value: Data, forKey key: String) {
        setValue(value, ofType: .binaryData, as: AttributeValue.data, forKey: key)
    }

    /// Stores `value` (as `stored(value)`) when `key` names a settable attribute of type `type`; otherwise sets it
    /// through the `Any?` version.
    @inline(__always)
    private func setValue<Value>(_ value: Value, ofType type: AttributeType, as stored: (Value) -> AttributeValue, forKey key: String) {
        if let slot = slotOfAttribute(key, ofType: type) { return setAttributeValue(stored(value), at: slot) }
        setValue(Optional<Any>.some(value), forKey: key)
    }

    /// The slot of attribute `key` when it has type `type` and `setValue` may store into it directly (see
    /// `EntityDescription.settableAttributeSlot(forKey:hint:)`), trying the attribute after the one set last
    /// first; nil otherwise.
    @inline(__always)
    private func slotOfAttribute(_ key: String, ofType type: AttributeType) -> Int? {
        let hint = Int(nextKeyHint)
        guard let (slot, found) = withEntity({ $0.settableAttributeSlot(forKey: key, hint: hint) }), found == type else {
            return nil
        }
        nextKeyHint = UInt8(truncatingIfNeeded: slot &+ 1)
        return slot
    }
}
