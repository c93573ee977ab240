import QuireCore
import Foundation

extension ManagedObject {
    /// An attribute's value read straight from its storage when `Value` is exactly the stored value's Swift
    /// type (an `Int64` property of an integer64 attribute, a `String` of a string attribute, …), without
    /// boxing it into `Any` and casting it back: what ``Managed`` and ``ManagedProperty()`` properties read
    /// first. `nil` when the read needs the general path (another type, a relationship, a nil value, a
    /// transformable or narrow integer attribute, data kept outside the store), which gives the same values, only
    /// slower.
    ///
    /// Inlinable, so that the application's module specializes it for each property's type: every test of
    /// `Value` below is then decided by the compiler, and the read is one call of the reader of that type
    /// (`storedInteger(forKey:)`, …), which decodes the value from the packed row without an `AttributeValue`.
    ///
    /// The key comes as its string's words (``ManagedKeyBits``), so that the application's module retains nothing
    /// to pass it (a `String` made from the words that a `@Managed` property keeps would be retained around the
    /// call).
    @inlinable
    func storedValue<Value>(forKey key: ManagedKeyBits, as type: Value.Type) -> Value? {
        // One return per path: `??` on the generic `Value?` looked up `Optional<Value>`'s metadata on every read.
        if Value.self == Int64.self || Value.self == Int64?.self {
            guard let value = storedInteger(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Int.self || Value.self == Int?.self {
            guard let value = storedInteger(forKey: key) else { return nil }
            return Self.exactly(Int(value), as: Value.self)
        }
        if Value.self == Double.self || Value.self == Double?.self {
            guard let value = storedDouble(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == String.self || Value.self == String?.self {
            guard let value = storedString(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Bool.self || Value.self == Bool?.self {
            guard let value = storedBoolean(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Date.self || Value.self == Date?.self {
            guard let value = storedDate(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Data.self || Value.self == Data?.self {
            guard let value = storedData(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Float.self || Value.self == Float?.self {
            guard let value = storedFloat(forKey: key) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Int32.self || Value.self == Int32?.self {
            guard let value = storedInteger(forKey: key).flatMap({ Int32(exactly: $0) }) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        if Value.self == Int16.self || Value.self == Int16?.self {
            guard let value = storedInteger(forKey: key).flatMap({ Int16(exactly: $0) }) else { return nil }
            return Self.exactly(value, as: Value.self)
        }
        return nil
    }

    /// A ``Managed`` property's value through the general path: ``value(forKey:)`` converted by the value
    /// type (``ManagedPropertyValue/fromManagedValue(_:of:)``).
    @usableFromInline
    func convertedValue<Value: ManagedPropertyValue>(forKey key: String, as type: Value.Type) -> Value {
        Value.fromManagedValue(value(forKey: key), of: entity.property(named: key))
    }

    /// `value` as a `Value` when that is its own type or its optional, without a dynamic cast.
    @inlinable @inline(__always)
    static func exactly<Stored, Value>(_ value: Stored, as: Value.Type) -> Value? {
        if Stored.self == Value.self { return unsafeBitCast(value, to: Value.self) }
        if Optional<Stored>.self == Value.self { return unsafeBitCast(Optional(value), to: Value.self) }
        return nil
    }

    // MARK: The readers of each type

    /// The integer a plain attribute `key` holds (integer 64, or the integer a Boolean attribute does not hold:
    /// nil), or nil when it holds another value or `key` is no plain attribute.
    @usableFromInline
    func storedInteger(forKey key: ManagedKeyBits) -> Int64? {
        storedPlainValue(forKey: key, { $0.integer(at: $1) }) {
            if case .integer(let value) = $0 { return value }
            return nil
        }
    }

    /// The double a plain attribute `key` holds, or nil (see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedDouble(forKey key: ManagedKeyBits) -> Double? {
        storedPlainValue(forKey: key, { $0.double(at: $1) }) {
            if case .double(let value) = $0 { return value }
            return nil
        }
    }

    /// The float a plain attribute `key` holds, or nil (see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedFloat(forKey key: ManagedKeyBits) -> Float? {
        storedPlainValue(forKey: key, { $0.float(at: $1) }) {
            if case .float(let value) = $0 { return value }
            return nil
        }
    }

    /// The Boolean a plain attribute `key` holds, or nil (see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedBoolean(forKey key: ManagedKeyBits) -> Bool? {
        storedPlainValue(forKey: key, { $0.boolean(at: $1) }) {
            if case .boolean(let value) = $0 { return value }
            return nil
        }
    }

    /// The string a plain attribute `key` holds, or nil (see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedString(forKey key: ManagedKeyBits) -> String? {
        storedPlainValue(forKey: key, { $0.string(at: $1) }) {
            if case .string(let value) = $0 { return value }
            return nil
        }
    }

    /// The date a plain attribute `key` holds, or nil (see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedDate(forKey key: ManagedKeyBits) -> Date? {
        storedPlainValue(forKey: key, { $0.date(at: $1) }) {
            if case .date(let value) = $0 { return value }
            return nil
        }
    }

    /// The bytes a plain attribute `key` holds in the store, or nil (data kept outside the store reads through
    /// the general path; see ``storedInteger(forKey:)``).
    @usableFromInline
    func storedData(forKey key: ManagedKeyBits) -> Data? {
        storedPlainValue(forKey: key, { $0.data(at: $1) }) {
            if case .data(let value) = $0 { return value }
            return nil
        }
    }

    /// The value of plain attribute `key` as one type: read by `packed` from the row that holds the object's
    /// values (or a fault's row, when its context is gone), or by `unpacked` from its unpacked values, after
    /// firing the fault; nil when `key` is no plain attribute. What `attributeValue(at:)` reads, without making
    /// the `AttributeValue`.
    @inline(__always)
    private func storedPlainValue<Value>(
        forKey key: ManagedKeyBits, _ packed: (PackedRow, Int) -> Value?, _ unpacked: (AttributeValue) -> Value?
    ) -> Value? {
        let hint = Int(nextKeyHint)
        guard let keyed = withEntity({ $0.keyedPropertyIndex(forKeyWords: key.words, hint: hint) }), keyed.isPlainAttribute
        else { return nil }
        let slot = keyed.index
        nextKeyHint = UInt8(truncatingIfNeeded: slot &+ 1)
        if faultFlag { fireFaultIfNeeded() }
        if let row = withExtendedLifetime(heldRow, { $0.map { Unmanaged.passUnretained($0) } }) {
            // Safe: the object holds the row strongly and is alive for the call (`self` is guaranteed), and the
            // row's readers never touch the object, so nothing can release the row while `packed` runs. Skips a
            // retain and a release per value read.
            return row._withUnsafeGuaranteedRef { packed($0, slot) }
        }
        return slot < storedAttributes.count ? unpacked(storedAttributes[slot]) : nil
    }
}
