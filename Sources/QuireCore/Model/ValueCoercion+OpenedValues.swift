import QuireSupport
import Foundation

extension ValueCoercion {
    /// What ``exactValue(_:type:)`` made of a value: the stored value, or the value itself (handed back without
    /// a copy) when it needs the general conversion.
    package enum ExactValue {
        /// The value already had the attribute type's natural Swift type (or was nil): its stored form.
        case stored(AttributeValue)
        /// The value has another type: convert it with ``ValueCoercion/attributeValue(from:for:keepingIntegersOutOfRange:)``.
        case needsConversion(Any)
    }

    /// The stored form of a value that has the attribute type's natural Swift type (`String` for a string
    /// attribute, `Int64` for an Integer 64, `Double`, `Bool`, `Date`, `Data`), or nil: `setValue(_:forKey:)`'s
    /// fast path.
    ///
    /// The value is taken (consumed), not copied, and its type is compared with the expected one by opening the
    /// existential: one comparison of type metadata instead of a dynamic cast, which costs several hundred
    /// instructions a value. Any other type is handed back for the general conversion.
    package static func exactValue(_ value: consuming Any?, type: AttributeType) -> ExactValue {
        guard let value = consume value else { return .stored(.null) }
        let stored: AttributeValue?
        switch type {
        case .string: stored = _openExistential(value, do: openedString)
        case .integer64: stored = _openExistential(value, do: openedInteger64)
        case .double: stored = _openExistential(value, do: openedDouble)
        case .boolean: stored = _openExistential(value, do: openedBoolean)
        case .date: stored = _openExistential(value, do: openedDate)
        case .binaryData: stored = _openExistential(value, do: openedData)
        default: stored = nil
        }
        if let stored { return .stored(stored) }
        return .needsConversion(value)
    }
}

// Each function below reinterprets its argument as the type it just compared `T` with: `T` *is* that type, so
// the bit pattern is a valid value of it (`unsafeBitCast` copies it, retaining a string's or data's storage as
// any copy does).

/// A `String` as a stored string, nil for any other type.
private func openedString<T>(_ value: T) -> AttributeValue? {
    T.self == String.self ? .string(unsafeBitCast(value, to: String.self)) : nil
}

/// An `Int64` as a stored integer, nil for any other type.
private func openedInteger64<T>(_ value: T) -> AttributeValue? {
    T.self == Int64.self ? .integer(unsafeBitCast(value, to: Int64.self)) : nil
}

/// A `Double` as a stored double, nil for any other type.
private func openedDouble<T>(_ value: T) -> AttributeValue? {
    T.self == Double.self ? .double(unsafeBitCast(value, to: Double.self)) : nil
}

/// A `Bool` as a stored Boolean, nil for any other type.
private func openedBoolean<T>(_ value: T) -> AttributeValue? {
    T.self == Bool.self ? .boolean(unsafeBitCast(value, to: Bool.self)) : nil
}

/// A `Date` as a stored date, nil for any other type.
private func openedDate<T>(_ value: T) -> AttributeValue? {
    T.self == Date.self ? .date(unsafeBitCast(value, to: Date.self)) : nil
}

/// A `Data` as stored data, nil for any other type.
private func openedData<T>(_ value: T) -> AttributeValue? {
    T.self == Data.self ? .data(unsafeBitCast(value, to: Data.self)) : nil
}
