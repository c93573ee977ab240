import QuireSupport
import Foundation

/// The conversions of `CAST(value, "Type")`.
///
/// Core Data's type names: `NSDate` (from seconds since 2001-01-01, as a number or a numeric string),
/// `NSNumber`, `NSString`, `NSDecimalNumber`; and the names Quire prints for values that have no literal:
/// `NSData` (from Base64), `NSUUID`, `NSURL`, `Float`, `NSManagedObjectID` (see
/// ``PredicateObjectIDLiteralConvertible``).
enum PredicateCast {
    /// The type name of date casts.
    static let date = "NSDate"
    /// The type name of number casts.
    static let number = "NSNumber"
    /// The type name of string casts.
    package static let string = "NSString"
    /// The type name of decimal casts.
    package static let decimal = "NSDecimalNumber"
    /// The type name of data casts (Base64 text).
    static let data = "NSData"
    /// The type name of UUID casts.
    package static let uuid = "NSUUID"
    /// The type name of URL casts.
    static let url = "NSURL"
    /// The type name of single-precision number casts (Quire's own).
    static let float = "Float"
    /// The type name of object identifier casts.
    static let objectID = "NSManagedObjectID"

    /// `CAST(value, type)` as the parser keeps it: a constant when the value is a constant that converts,
    /// otherwise a ``QueryExpression/cast(_:type:)`` left for evaluation.
    static func fold(_ value: QueryExpression, to type: String) -> QueryExpression {
        guard case .constant(let constant) = value else { return .cast(value, type: type) }
        if type == objectID, case .string(let literal) = constant, let id = objectIDValue(literal) {
            return .objectID(id)
        }
        if let converted = convert(constant, to: type) { return .constant(converted) }
        return .cast(value, type: type)
    }

    /// The object identifier a literal stands for, when ``ObjectID`` can read literals.
    static func objectIDValue(_ literal: String) -> ObjectID? {
        guard let type = (ObjectID.self as Any.Type) as? any PredicateObjectIDLiteralConvertible.Type else {
            return nil
        }
        guard let id = type.init(predicateLiteral: literal) else { return nil }
        // Through `Any`: where `ObjectID` does not conform, the compiler knows a direct cast cannot succeed.
        let value: Any = id
        return value as? ObjectID
    }

    /// The literal an object identifier prints as: its ``PredicateObjectIDLiteralConvertible`` text, or a
    /// description that will not parse back when ``ObjectID`` lacks the conformance.
    static func objectIDLiteral(_ id: ObjectID) -> String {
        if let literal = (id as Any) as? any PredicateObjectIDLiteralConvertible { return literal.predicateLiteral }
        return String(describing: id)
    }

    /// Converts a value to a type name's type; nil when the conversion does not apply or fails.
    ///
    /// `nil` casts to `nil` for every type.
    static func convert(_ value: AttributeValue, to type: String) -> AttributeValue? {
        if value.isNull { return .null }
        switch type {
        case date:
            switch value {
            case .date: return value
            case .string(let text):
                return numberValue(of: text)?.doubleValue.map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            default:
                return value.doubleValue.map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            }
        case number:
            switch value {
            case .integer, .double, .float, .decimal, .boolean: return value
            case .string(let text): return numberValue(of: text)
            case .date(let date): return .double(date.timeIntervalSinceReferenceDate)
            default: return nil
            }
        case string:
            switch value {
            case .string: return value
            case .integer(let v): return .string(String(v))
            case .double(let v): return .string(String(v))
            case .float(let v): return .string(String(v))
            case .decimal(let v): return .string(v.description)
            case .boolean(let v): return .string(v ? "1" : "0")
            case .uuid(let v): return .string(v.uuidString)
            case .uri(let v): return .string(v.absoluteString)
            default: return nil
            }
        case decimal:
            switch value {
            case .decimal: return value
            case .integer(let v): return .decimal(Decimal(v))
            case .double(let v): return decimal(from: v).map { .decimal($0) }
            case .float(let v): return decimal(from: Double(v)).map { .decimal($0) }
            case .boolean(let v): return .decimal(v ? 1 : 0)
            case .string(let text): return decimalValue(of: text).map { .decimal($0) }
            default: return nil
            }
        case data:
            switch value {
            case .data: return value
            case .string(let text): return Data(base64Encoded: text).map { .data($0) }
            default: return nil
            }
        case uuid:
            switch value {
            case .uuid: return value
            case .string(let text): return UUID(uuidString: text).map { .uuid($0) }
            default: return nil
            }
        case url:
            switch value {
            case .uri: return value
            case .string(let text): return URL(string: text).map { .uri($0) }
            default: return nil
            }
        case float:
            switch value {
            case .float: return value
            case .string(let text): return Float(text).map { .float($0) }
            default: return value.doubleValue.map { .float(Float($0)) }
            }
        default:
            return nil
        }
    }

    /// A numeric string as an integer when it is one, otherwise as a double; nil when it is not a number.
    static func numberValue(of text: String) -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let integer = Int64(trimmed) { return .integer(integer) }
        if let double = Double(trimmed) { return .double(double) }
        return nil
    }

    /// A double as a decimal; nil for values a decimal cannot hold (Foundation would give NaN).
    package static func decimal(from value: Double) -> Decimal? {
        guard value.isFinite else { return nil }
        let result = Decimal(value)
        return result.isNaN ? nil : result
    }

    /// A decimal string as a `Decimal`, requiring the whole string to be a number.
    static func decimalValue(of text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let scanner = Scanner(string: trimmed)
        scanner.locale = Locale(identifier: "en_US_POSIX")
        guard let value = scanner.scanDecimal(), scanner.isAtEnd, !value.isNaN else { return nil }
        return value
    }
}
