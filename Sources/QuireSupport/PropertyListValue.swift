import Foundation

/// A property-list value: what store metadata holds.
///
/// Store metadata (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, and the application's own keys)
/// is a dictionary of these values. The SQLite store keeps it as a binary property list in `Z_METADATA.Z_PLIST`;
/// the XML store keeps it as an XML property list inside `<metadata>`.
///
/// Literals build values directly:
///
/// ```swift
/// let metadata: [String: PropertyListValue] = [
///     "NSStoreType": "SQLite",
///     "NSStoreModelVersionHashes": ["Item": .data(itemHash)],
///     "reviewed": true,
///     "revision": 3,
/// ]
/// let bytes = try PropertyListValue.encode(metadata, format: .binary)
/// let again = try PropertyListValue.decodeDictionary(from: bytes)
/// ```
///
/// Booleans and integers stay distinct through encoding and decoding: `true` decodes as ``boolean(_:)``,
/// never as `integer(1)`. XML property lists keep dates to the whole second; binary ones keep them exactly.
public enum PropertyListValue: Sendable, Hashable {
    /// A string (`<string>`).
    case string(String)
    /// A signed 64-bit integer (`<integer>`).
    case integer(Int64)
    /// A double-precision number (`<real>`).
    case real(Double)
    /// A Boolean (`<true/>` or `<false/>`).
    case boolean(Bool)
    /// A date (`<date>`).
    case date(Date)
    /// Bytes (`<data>`).
    case data(Data)
    /// An ordered list of values (`<array>`).
    case array([PropertyListValue])
    /// Values by string key (`<dict>`).
    case dictionary([String: PropertyListValue])

    /// The deepest nesting of arrays and dictionaries that is encoded or decoded (Foundation's binary reader
    /// refuses deeper lists).
    public static let maximumDepth = 500

    /// The default bound on the size of an encoded property list that ``decodeDictionary(from:maximumSize:)``
    /// accepts: 16 MiB.
    public static let defaultMaximumSize = 16 * 1024 * 1024
}

// MARK: - Accessors

extension PropertyListValue {
    /// The string, if this is a ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an ``integer(_:)``.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number, if this is a ``real(_:)`` or an ``integer(_:)``.
    public var realValue: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    /// The Boolean, if this is a ``boolean(_:)``.
    public var booleanValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The date, if this is a ``date(_:)``.
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a ``data(_:)``.
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an ``array(_:)``.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, if this is a ``dictionary(_:)``.
    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }
}

// MARK: - Literals

extension PropertyListValue: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)`` from a string literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)`` from an integer literal.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// Creates a ``real(_:)`` from a floating-point literal.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// Creates a ``boolean(_:)`` from `true` or `false`.
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// Creates an ``array(_:)`` from an array literal.
    public init(arrayLiteral elements: PropertyListValue...) {
        self = .array(elements)
    }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// Creates a ``dictionary(_:)`` from a dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Foundation property-list objects

extension PropertyListValue {
    /// Creates a value from a Foundation property-list object, as `PropertyListSerialization` returns them.
    ///
    /// Accepts Swift and Foundation types alike: `String`/`NSString`, `Bool`, the integer types, `Double`,
    /// `Float`, `NSNumber`, `Date`/`NSDate`, `Data`/`NSData`, arrays and `NSArray`, dictionaries and
    /// `NSDictionary` with string keys, and `PropertyListValue` itself. A Boolean `NSNumber` (Core Foundation's
    /// `kCFBooleanTrue`/`kCFBooleanFalse`) becomes ``boolean(_:)``; any other `NSNumber` becomes ``integer(_:)``
    /// or ``real(_:)`` by its type.
    ///
    /// ```swift
    /// PropertyListValue(propertyListObject: ["a": [1, true]] as [String: Any])
    /// // .dictionary(["a": .array([.integer(1), .boolean(true)])])
    /// ```
    ///
    /// - Parameter propertyListObject: The object to convert.
    /// - Returns: `nil` if the object, or anything inside it, is not a property-list type; if a dictionary has
    ///   a key that is not a string; if an unsigned integer exceeds `Int64.max`; or if arrays and dictionaries
    ///   nest deeper than ``maximumDepth``.
    public init?(propertyListObject: Any) {
        guard let value = Self.convert(propertyListObject, depth: 0) else { return nil }
        self = value
    }

    /// The value as a Foundation property-list object, ready for `PropertyListSerialization`.
    ///
    /// The result is made of Swift types: `String`, `Int64`, `Double`, `Bool`, `Date`, `Data`, `[Any]` and
    /// `[String: Any]`.
    public var propertyListObject: Any {
        switch self {
        case .string(let value): return value
        case .integer(let value): return value
        case .real(let value): return value
        case .boolean(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .array(let elements): return elements.map(\.propertyListObject) as [Any]
        case .dictionary(let entries): return entries.mapValues(\.propertyListObject) as [String: Any]
        }
    }

    /// The depth of nested arrays and dictionaries: 0 for a scalar, 1 for a flat array or dictionary.
    public var nestingDepth: Int {
        switch self {
        case .array(let elements): return 1 + (elements.map(\.nestingDepth).max() ?? 0)
        case .dictionary(let entries): return 1 + (entries.values.map(\.nestingDepth).max() ?? 0)
        default: return 0
        }
    }

    /// The class of the Boolean `NSNumber` singletons (`__NSCFBoolean` on Linux and on Apple platforms).
    private static let booleanNumberClass: AnyClass = type(of: NSNumber(value: true))

    /// Converts one Foundation object, refusing nesting deeper than ``maximumDepth``.
    private static func convert(_ object: Any, depth: Int) -> PropertyListValue? {
        // A native Bool first: bridged to NSNumber it would be indistinguishable from an integer's NSNumber
        // once `as? Bool` (which also accepts NSNumber 0 and 1) is involved.
        if type(of: object) == Bool.self, let value = object as? Bool {
            return .boolean(value)
        }
        if let value = object as? PropertyListValue {
            return depth + value.nestingDepth > maximumDepth ? nil : value
        }
        if let value = object as? String {
            return .string(value)
        }
        if let value = object as? Date {
            return .date(value)
        }
        if let value = object as? Data {
            return .data(value)
        }
        // Decoded integers and reals arrive as NSNumber (decoded Booleans as Bool, handled above, or as the
        // NSNumber Boolean singletons); native Swift numbers bridge to NSNumber here too.
        if let number = object as? NSNumber {
            return convert(number)
        }
        guard depth < maximumDepth else { return nil }
        if let elements = object as? [Any] {
            var values = [PropertyListValue]()
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = convert(element, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .array(values)
        }
        if let entries = object as? [AnyHashable: Any] {
            var values = [String: PropertyListValue](minimumCapacity: entries.count)
            for (key, element) in entries {
                guard let key = key.base as? String, let value = convert(element, depth: depth + 1) else {
                    return nil
                }
                values[key] = value
            }
            return .dictionary(values)
        }
        return nil
    }

    /// Classifies an `NSNumber` as a Boolean, an integer or a real.
    private static func convert(_ number: NSNumber) -> PropertyListValue? {
        if ObjectIdentifier(type(of: number)) == ObjectIdentifier(booleanNumberClass) {
            return .boolean(number.boolValue)
        }
        switch String(cString: number.objCType) {
        case "f", "d":
            return .real(number.doubleValue)
        case "Q", "L", "I":
            let value = number.uint64Value
            return value <= UInt64(Int64.max) ? .integer(Int64(value)) : nil
        default:
            return .integer(number.int64Value)
        }
    }
}

// MARK: - Encoding and decoding

extension PropertyListValue {
    /// Encodes a dictionary as a property list with Foundation's `PropertyListSerialization`.
    ///
    /// ```swift
    /// let plist = try PropertyListValue.encode(["NSStoreType": "SQLite"], format: .binary)
    /// ```
    ///
    /// - Parameters:
    ///   - dict: The dictionary to encode, such as a store's metadata.
    ///   - format: `.binary` (the SQLite store's `Z_PLIST`) or `.xml` (the XML store's `<metadata>`).
    /// - Returns: The encoded property list.
    /// - Throws: `QuireError` with code `invalidValue` if the dictionary nests deeper than ``maximumDepth``, or
    ///   if Foundation cannot write it in `format` (it cannot write `.openStep`).
    public static func encode(
        _ dict: [String: PropertyListValue],
        format: PropertyListSerialization.PropertyListFormat
    ) throws -> Data {
        let root = PropertyListValue.dictionary(dict)
        guard root.nestingDepth <= maximumDepth else {
            throw QuireError(
                .invalidValue,
                "The property list could not be encoded: it nests arrays and dictionaries deeper than "
                    + "\(maximumDepth) levels."
            )
        }
        guard format == .binary || format == .xml else {
            throw QuireError(
                .invalidValue,
                "The property list could not be encoded: only the binary and XML formats can be written."
            )
        }
        do {
            return try PropertyListSerialization.data(
                fromPropertyList: root.propertyListObject,
                format: format,
                options: 0
            )
        } catch {
            throw QuireError(
                .invalidValue,
                "The property list could not be encoded in the \(formatName(format)) format.",
                underlying: SendableErrorDescription(error)
            )
        }
    }

    /// Decodes a property list whose root is a dictionary, such as a store's metadata.
    ///
    /// Binary and XML property lists are accepted; Foundation detects which one `data` holds.
    ///
    /// ```swift
    /// let metadata = try PropertyListValue.decodeDictionary(from: plistBytes)
    /// let storeType = metadata["NSStoreType"]?.stringValue
    /// ```
    ///
    /// - Parameters:
    ///   - data: The encoded property list.
    ///   - maximumSize: The largest input accepted, in bytes; 16 MiB unless given.
    /// - Returns: The root dictionary.
    /// - Throws: `QuireError` with code `fileReadCorruptFile` if `data` is larger than `maximumSize`, is not a
    ///   binary or XML property list, has a root that is not a dictionary, or holds a dictionary key that is not
    ///   a string.
    public static func decodeDictionary(
        from data: Data,
        maximumSize: Int = defaultMaximumSize
    ) throws -> [String: PropertyListValue] {
        guard data.count <= maximumSize else {
            throw QuireError(
                .fileReadCorruptFile,
                "The property list is \(data.count) bytes long, more than the \(maximumSize) bytes allowed."
            )
        }
        guard !binaryListHoldsSetOrBadOffsets(data) else {
            throw QuireError(
                .fileReadCorruptFile, "The binary property list holds a set, or its object table points outside it.")
        }
        let object: Any
        var format = PropertyListSerialization.PropertyListFormat.binary
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw QuireError(
                .fileReadCorruptFile,
                "The data is not a valid property list.",
                underlying: SendableErrorDescription(error)
            )
        }
        guard format == .binary || format == .xml else {
            throw QuireError(.fileReadCorruptFile, "The data is not a binary or XML property list.")
        }
        guard let value = PropertyListValue(propertyListObject: object) else {
            throw QuireError(.fileReadCorruptFile, "The property list holds a value that is not a property-list type.")
        }
        guard case .dictionary(let dictionary) = value else {
            throw QuireError(.fileReadCorruptFile, "The property list's root is not a dictionary.")
        }
        return dictionary
    }

    /// The format's name for messages.
    private static func formatName(_ format: PropertyListSerialization.PropertyListFormat) -> String {
        switch format {
        case .binary: return "binary"
        case .xml: return "XML"
        case .openStep: return "OpenStep"
        @unknown default: return "requested"
        }
    }
}

/// A Foundation error reduced to its description, so it can travel as a Sendable underlying cause.
private struct SendableErrorDescription: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        description = String(describing: error)
    }
}
