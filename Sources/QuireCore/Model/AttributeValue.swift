import QuireSupport
import Foundation

/// A value of an attribute, as Quire stores, compares and binds it.
///
/// Every attribute type of the model maps onto one case: the integer types onto ``integer(_:)``, `double`
/// onto ``double(_:)`` and so on; a transformable attribute's value is stored as the ``data(_:)`` its value
/// transformer produced. `AttributeValue` is the currency between contexts, the coordinator's row cache and
/// the stores, so it is `Sendable` and `Hashable`.
public enum AttributeValue: Sendable, Hashable {
    /// No value (SQL `NULL`, Core Data's `nil`).
    case null
    /// An integer of any width (integer16, integer32, integer64).
    case integer(Int64)
    /// A double-precision number.
    case double(Double)
    /// A single-precision number.
    case float(Float)
    /// A decimal number.
    case decimal(Decimal)
    /// A string.
    case string(String)
    /// A Boolean.
    case boolean(Bool)
    /// A date.
    case date(Date)
    /// Bytes (binary data, and the stored form of transformable values).
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URI.
    case uri(URL)
    /// Bytes kept in a file beside the store, not read yet (an attribute that allows external storage, as
    /// fetched). ``ManagedObject/value(forKey:)`` reads the file and gives `Data`.
    ///
    /// Boxed (`indirect`): the reference is larger than the other cases' values, and keeping it inline would
    /// make every value of every object 32 bytes instead of 24.
    indirect case externalData(ExternalDataReference)

    /// Whether the value's case holds no reference (nil, integers, floating-point numbers, Booleans, dates):
    /// such a value is copied completely by copying its bytes.
    package var holdsNoReference: Bool {
        switch self {
        case .null, .integer, .double, .float, .boolean, .date: return true
        case .decimal, .string, .data, .uuid, .uri, .externalData: return false
        }
    }

    /// True for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as Swift's natural type for the case (`Int64`, `Double`, `String`, …), or `nil` for ``null``.
    /// Inlinable: every keyed read (`value(forKey:)`) boxes its value through it.
    @inlinable public var anyValue: Any? {
        switch self {
        case .null: return nil
        case .integer(let v): return v
        case .double(let v): return v
        case .float(let v): return v
        case .decimal(let v): return v
        case .string(let v): return v
        case .boolean(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .uri(let v): return v
        case .externalData(let v): return v
        }
    }

    /// The value as Core Data's API gives it through `Any`: numbers (integers of every width, doubles, floats,
    /// Booleans) as `NSNumber` and decimals as `NSDecimalNumber`, so that `as? Int`, `as? Int64`, `as? Double`,
    /// `as? Bool` and `as? NSNumber` give the value as on the Mac (Foundation bridges `NSNumber` to every numeric
    /// type it fits exactly); other cases as ``anyValue``. What `value(forKey:)`, `changedValues()` and the other
    /// `Any`-valued reads return.
    public var bridgedValue: Any? {
        switch self {
        case .integer(let v): return NumberBoxes.integer(v)
        case .double(let v): return NSNumber(value: v)
        case .float(let v): return NSNumber(value: v)
        case .boolean(let v): return NumberBoxes.boolean(v)
        case .decimal(let v): return NSDecimalNumber(decimal: v)
        default: return anyValue
        }
    }

    /// The `NSNumber` (or `NSDecimalNumber`) an `Any` holds, found by its class alone: a Swift number in an `Any`
    /// is not one (asking `as? NSNumber` would bridge it, at the cost of an allocation).
    package static func number(in value: Any) -> NSNumber? {
        guard type(of: value) is NSNumber.Type else { return nil }
        return unsafeDowncast(value as AnyObject, to: NSNumber.self)
    }

    /// A number's value by the type it was made with: Booleans as ``boolean(_:)``, integers as ``integer(_:)``
    /// (nil beyond `Int64`), doubles and floats, decimals as ``decimal(_:)``.
    package init?(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = .decimal(decimal.decimalValue)
            return
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "B"):
            // Booleans are `CFBoolean`s, whose type is that of a char; an Int8 number is a char too.
            self = String(describing: type(of: number)).hasSuffix("Boolean") ? .boolean(number.boolValue) : .integer(number.int64Value)
        case UInt8(ascii: "d"): self = .double(number.doubleValue)
        case UInt8(ascii: "f"): self = .float(number.floatValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            guard let value = Int64(exactly: number.uint64Value) else { return nil }
            self = .integer(value)
        default: self = .integer(number.int64Value)
        }
    }

    /// The value as a double, for numeric cases (integers, doubles, floats, decimals, Booleans).
    public var doubleValue: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .float(let v): return Double(v)
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        case .boolean(let v): return v ? 1 : 0
        default: return nil
        }
    }

    /// Converts a Swift value (any integer, floating-point number, `Bool`, `String`, `Date`, `Data`, `UUID`,
    /// `URL`, `Decimal`, or an `AttributeValue`) to an attribute value; `nil` for other types.
    public init?(converting value: Any?) {
        guard let value else {
            self = .null
            return
        }
        if let number = Self.number(in: value) {
            guard let converted = AttributeValue(number: number) else { return nil }
            self = converted
            return
        }
        switch value {
        case let v as AttributeValue: self = v
        case let v as Int64: self = .integer(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as UInt:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as Bool: self = .boolean(v)
        case let v as Double: self = .double(v)
        case let v as Float: self = .float(v)
        case let v as Decimal: self = .decimal(v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .uri(v)
        default: return nil
        }
    }
}

extension AttributeValue: CustomStringConvertible {
    /// A short human-readable form, such as `42`, `"text"` or `2001-01-01T00:00:00Z`.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .float(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .string(let v): return "\"\(v)\""
        case .boolean(let v): return v ? "true" : "false"
        case .date(let v): return v.ISO8601Format()
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .externalData(let v): return v.description
        }
    }
}
