import QuireSupport
import Foundation

/// A value of a decoded model (a default value, a `userInfo` entry), independent of the archive it came
/// from: property-list values, plus UUIDs, URLs and archived objects (a transformable attribute's default).
package indirect enum ModelValue: Sendable, Hashable {
    /// No value.
    case null
    /// A Boolean.
    case boolean(Bool)
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A string.
    case string(String)
    /// A decimal number (`NSDecimalNumber`).
    case decimal(Decimal)
    /// A date.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// A UUID (`NSUUID`).
    case uuid(UUID)
    /// A URL (`NSURL`), as its string.
    case url(String)
    /// An array (or a set, in archived order).
    case array([ModelValue])
    /// A dictionary with string keys.
    case dictionary([String: ModelValue])
    /// An instance of another class, with its archived fields (an application's transformable value).
    case archivedObject(className: String, fields: [String: ModelValue])

    /// The string, if this is a ``string(_:)``.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a string for Quire's `[String: String]` user-info dictionaries: strings as they are,
    /// numbers and Booleans as their text; nil for containers and objects.
    var userInfoString: String? {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .decimal(let value): return value.description
        case .boolean(let value): return value ? "YES" : "NO"
        case .uuid(let value): return value.uuidString
        case .url(let value): return value
        default: return nil
        }
    }
}

extension ModelValue {
    /// The value in words, for messages: `"default cover"`, `42`, `an archived MyApp.Cover`, `an array of 3
    /// values`; never Swift's debug form.
    var plainDescription: String {
        switch self {
        case .null: return "no value"
        case .boolean(let value): return value ? "YES" : "NO"
        case .integer(let value): return String(value)
        case .real(let value): return "\(value)"
        case .string(let value): return "\"\(value)\""
        case .decimal(let value): return value.description
        case .date(let value): return "the date \(value.timeIntervalSinceReferenceDate) (seconds since 2001)"
        case .data(let value): return "\(value.count) bytes of data"
        case .uuid(let value): return value.uuidString
        case .url(let value): return value
        case .array(let values): return "an array of \(values.count) value\(values.count == 1 ? "" : "s")"
        case .dictionary(let values): return "a dictionary of \(values.count) entr\(values.count == 1 ? "y" : "ies")"
        case .archivedObject(let className, _): return "an archived \(className)"
        }
    }
}
