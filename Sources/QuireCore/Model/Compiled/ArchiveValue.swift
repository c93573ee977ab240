import QuireSupport
import Foundation

/// A value of a keyed archive with its references resolved: Foundation's value classes become plain values,
/// collections become arrays, sets and dictionaries, and any other class instance stays an
/// ``ArchivedObject`` whose own fields are resolved only when asked for.
package indirect enum ArchiveValue: Sendable, Hashable {
    /// `$null`, `NSNull`, or a missing key.
    case null
    /// A Boolean.
    case boolean(Bool)
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A string (`NSString`, `NSMutableString`).
    case string(String)
    /// Bytes (`NSData`, `NSMutableData`).
    case data(Data)
    /// A date (`NSDate`).
    case date(Date)
    /// An array (`NSArray`, `NSMutableArray`, `NSOrderedSet`).
    case array([ArchiveValue])
    /// A set (`NSSet`, `NSMutableSet`), in archived order.
    case set([ArchiveValue])
    /// A dictionary (`NSDictionary`, `NSMutableDictionary`, `NSKnownKeysDictionary1`), in archived order.
    case dictionary([ArchiveDictionaryEntry])
    /// Any other class instance.
    case object(ArchivedObject)

    /// The string, if this is a ``string(_:)``.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements of an ``array(_:)`` or a ``set(_:)``.
    package var elements: [ArchiveValue]? {
        switch self {
        case .array(let values), .set(let values): return values
        default: return nil
        }
    }

    /// The object, if this is an ``object(_:)``.
    var objectValue: ArchivedObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is ``null``.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for messages.
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .boolean: return "a Boolean"
        case .integer: return "an integer"
        case .real: return "a real"
        case .string: return "a string"
        case .data: return "data"
        case .date: return "a date"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        case .object(let object): return "an \(object.className)"
        }
    }
}

/// One entry of an archived dictionary (keys of `NSDictionary` need not be strings).
package struct ArchiveDictionaryEntry: Sendable, Hashable {
    /// The key.
    package var key: ArchiveValue
    /// The value.
    package var value: ArchiveValue

    /// Creates an entry.
    package init(key: ArchiveValue, value: ArchiveValue) {
        self.key = key
        self.value = value
    }
}
