import QuireSupport
import Foundation

/// Converts between the Swift values applications use and the ``AttributeValue``s Quire stores.
package enum ValueCoercion {
    /// Converts a Swift value for an attribute, checking that the type fits.
    ///
    /// Integers of any width fit the integer types (within range); any number fits double, float and decimal;
    /// strings fit strings; `Date`, `Data`, `UUID` and `URL` their types; transformable values go through
    /// the attribute's value transformer. With `keepingIntegersOutOfRange`, an integer outside an integer
    /// attribute's range is kept as it is (validation reports it at save, as Core Data does).
    package static func attributeValue(
        from value: Any?, for attribute: AttributeDescription, keepingIntegersOutOfRange: Bool = false
    ) throws -> AttributeValue {
        guard let value else { return .null }
        if attribute.attributeType == .transformable {
            if let stored = value as? AttributeValue { return stored }
            return .data(try ValueTransformerRegistry.transformer(for: attribute).transformedValue(value))
        }
        // Fast paths: the value already has the attribute's natural Swift type (an `NSNumber`, as `value(forKey:)`
        // gives numbers, is converted by its own type, without bridging casts).
        if AttributeValue.number(in: value) == nil {
            switch attribute.attributeType {
            case .string: if let string = value as? String { return .string(string) }
            case .integer64: if let integer = value as? Int64 { return .integer(integer) }
            case .double: if let double = value as? Double { return .double(double) }
            case .boolean: if let bool = value as? Bool { return .boolean(bool) }
            case .date: if let date = value as? Date { return .date(date) }
            case .binaryData: if let data = value as? Data { return .data(data) }
            default: break
            }
        }
        guard let converted = AttributeValue(converting: value) else {
            throw mismatch(value, attribute, "its type \(type(of: value)) is not an attribute value type")
        }
        return try coerce(converted, to: attribute, keepingIntegersOutOfRange: keepingIntegersOutOfRange)
    }

    /// Converts an attribute value to the attribute's own case (integers range-checked, unless
    /// `keepingIntegersOutOfRange`).
    package static func coerce(
        _ value: AttributeValue, to attribute: AttributeDescription, keepingIntegersOutOfRange: Bool = false
    ) throws -> AttributeValue {
        let type = attribute.attributeType
        switch (type, value) {
        case (_, .null): return .null
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            guard keepingIntegersOutOfRange || type.integerRange?.contains(v) == true else {
                throw mismatch(v, attribute, "it is out of the range of \(type.rawValue)")
            }
            return .integer(v)
        case (.integer16, .boolean(let b)), (.integer32, .boolean(let b)), (.integer64, .boolean(let b)):
            return .integer(b ? 1 : 0)
        case (.integer16, .double(let d)), (.integer32, .double(let d)), (.integer64, .double(let d)):
            guard let i = Int64(exactly: d), keepingIntegersOutOfRange || type.integerRange?.contains(i) == true else {
                throw mismatch(d, attribute, "it is not an integer in the range of \(type.rawValue)")
            }
            return .integer(i)
        case (.double, _):
            guard let d = value.doubleValue else { throw mismatch(value, attribute, "it is not a number") }
            return .double(d)
        case (.float, _):
            guard let d = value.doubleValue else { throw mismatch(value, attribute, "it is not a number") }
            return .float(Float(d))
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let i)): return .decimal(Decimal(i))
        case (.decimal, _):
            guard let d = value.doubleValue else { throw mismatch(value, attribute, "it is not a number") }
            return .decimal(Decimal(d))
        case (.boolean, .boolean): return value
        case (.boolean, .integer(let i)): return .boolean(i != 0)
        case (.string, .string), (.date, .date), (.binaryData, .data), (.uuid, .uuid), (.uri, .uri),
            (.transformable, .data), (.binaryData, .externalData), (.transformable, .externalData):
            return value
        case (.uri, .string(let s)):
            guard let url = URL(string: s) else { throw mismatch(s, attribute, "it is not a URI") }
            return .uri(url)
        default:
            throw mismatch(value, attribute, "an \(type.rawValue) attribute cannot hold it")
        }
    }

    /// The value an application sees for a stored value through `Any`, as Core Data gives it: numbers as `NSNumber`
    /// (integers by width, so `as? Int16` works as `as? Int` and `as? Int64` do), decimals as `NSDecimalNumber`,
    /// `String`, `Date`, `Data`, `UUID`, `URL`, or the reverse-transformed value of a transformable attribute.
    package static func publicValue(_ value: AttributeValue, for attribute: AttributeDescription) -> Any? {
        switch (attribute.attributeType, value) {
        case (_, .null): return nil
        // A value outside the type's range (stored by setValue, failing validation at save) reads as the
        // Int64 it is rather than a truncated one.
        case (.integer16, .integer(let v)): return Int16(exactly: v).map { NSNumber(value: $0) } ?? NSNumber(value: v)
        case (.integer32, .integer(let v)): return Int32(exactly: v).map { NSNumber(value: $0) } ?? NSNumber(value: v)
        case (.transformable, .data(let data)):
            return (try? ValueTransformerRegistry.transformer(for: attribute).reverseTransformedValue(data)) ?? data
        default: return value.bridgedValue
        }
    }

    private static func mismatch(_ value: Any, _ attribute: AttributeDescription, _ reason: String) -> QuireError {
        QuireError(
            .invalidValue,
            "Unacceptable value \(value) for attribute '\(attribute.name)' of entity "
                + "'\(attribute.entity?.name ?? "?")': \(reason).",
            context: .init(entity: attribute.entity?.name, key: attribute.name))
    }
}
