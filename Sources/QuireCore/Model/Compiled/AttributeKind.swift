import QuireSupport
/// The type of an attribute (`NSAttributeType`), with Core Data's numbers as raw values.
package enum AttributeKind: Sendable, Hashable, CustomStringConvertible {
    /// `NSUndefinedAttributeType` (0), transient attributes of any type.
    case undefined
    /// `NSInteger16AttributeType` (100).
    case integer16
    /// `NSInteger32AttributeType` (200).
    case integer32
    /// `NSInteger64AttributeType` (300).
    case integer64
    /// `NSDecimalAttributeType` (400).
    case decimal
    /// `NSDoubleAttributeType` (500).
    case double
    /// `NSFloatAttributeType` (600).
    case float
    /// `NSStringAttributeType` (700).
    case string
    /// `NSBooleanAttributeType` (800).
    case boolean
    /// `NSDateAttributeType` (900).
    case date
    /// `NSBinaryDataAttributeType` (1000).
    case binaryData
    /// `NSUUIDAttributeType` (1100).
    case uuid
    /// `NSURIAttributeType` (1200).
    case uri
    /// `NSTransformableAttributeType` (1800).
    case transformable
    /// `NSObjectIDAttributeType` (2000).
    case objectID
    /// `NSCompositeAttributeType` (2100).
    case composite
    /// A number Core Data did not define when this was written.
    case unknown(Int)

    /// The kind for an `NSAttributeType` number.
    package init(rawValue: Int) {
        switch rawValue {
        case 0: self = .undefined
        case 100: self = .integer16
        case 200: self = .integer32
        case 300: self = .integer64
        case 400: self = .decimal
        case 500: self = .double
        case 600: self = .float
        case 700: self = .string
        case 800: self = .boolean
        case 900: self = .date
        case 1000: self = .binaryData
        case 1100: self = .uuid
        case 1200: self = .uri
        case 1800: self = .transformable
        case 2000: self = .objectID
        case 2100: self = .composite
        default: self = .unknown(rawValue)
        }
    }

    /// The `NSAttributeType` number.
    package var rawValue: Int {
        switch self {
        case .undefined: return 0
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
        case .objectID: return 2000
        case .composite: return 2100
        case .unknown(let value): return value
        }
    }

    /// Xcode's name of the type (`"Integer 16"`, `"String"`, …), as in `.xcdatamodel` files.
    package var description: String {
        switch self {
        case .undefined: return "Undefined"
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .objectID: return "ObjectID"
        case .composite: return "Composite"
        case .unknown(let value): return "Unknown(\(value))"
        }
    }
}
