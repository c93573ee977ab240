import QuireSupport
/// The type of an attribute, with Core Data's names (`NSAttributeType` without the prefix and suffix).
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A 16-bit integer (`Int16`).
    case integer16
    /// A 32-bit integer (`Int32`).
    case integer32
    /// A 64-bit integer (`Int64`).
    case integer64
    /// A decimal number (`Decimal`).
    case decimal
    /// A double-precision number (`Double`).
    case double
    /// A single-precision number (`Float`).
    case float
    /// A string (`String`).
    case string
    /// A Boolean (`Bool`).
    case boolean
    /// A date (`Date`), stored as seconds since 2001-01-01.
    case date
    /// Bytes (`Data`), optionally stored outside the store when large.
    case binaryData
    /// A UUID (`UUID`), stored as 16 bytes.
    case uuid
    /// A URI (`URL`), stored as its absolute string.
    case uri
    /// Any value, stored as the bytes a named value transformer makes of it.
    case transformable

    /// True for the integer, decimal, double and float types.
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: return true
        default: return false
        }
    }

    /// True for the integer types.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: return true
        default: return false
        }
    }

    /// The range of values an integer type holds.
    package var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// The column type Core Data declares for this attribute type in an SQLite store.
    package var sqliteColumnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .string, .uri: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binaryData, .uuid, .transformable: return "BLOB"
        }
    }

    /// Core Data's `NSAttributeType` value.
    package var coreDataCode: Int {
        switch self {
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binaryData: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        }
    }
}
