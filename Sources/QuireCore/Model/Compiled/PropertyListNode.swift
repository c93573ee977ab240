import QuireSupport
import Foundation

/// One value of a binary property list, as ``BinaryPropertyList`` reads it: the plain property-list types
/// plus ``uid(_:)``, the `CF$UID` references keyed archives are made of.
package indirect enum PropertyListNode: Sendable, Hashable {
    /// The binary format's null object (marker `0x00`); keyed archives use the string `"$null"` instead.
    case null
    /// A Boolean.
    case boolean(Bool)
    /// An integer (binary property lists store up to 64 significant bits).
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A date, as seconds since 2001-01-01 in the file.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// A string.
    case string(String)
    /// A `CF$UID` reference: an index into a keyed archive's `$objects`.
    case uid(UInt64)
    /// An array (sets and ordered sets of the binary format read as arrays too).
    case array([PropertyListNode])
    /// A dictionary with string keys.
    case dictionary([String: PropertyListNode])

    /// The string, if this is a ``string(_:)``.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The reference, if this is a ``uid(_:)``.
    package var uidValue: UInt64? {
        if case .uid(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an ``array(_:)``.
    package var arrayValue: [PropertyListNode]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, if this is a ``dictionary(_:)``.
    package var dictionaryValue: [String: PropertyListNode]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// A short name of the node's kind, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .boolean: return "a Boolean"
        case .integer: return "an integer"
        case .real: return "a real"
        case .date: return "a date"
        case .data: return "data"
        case .string: return "a string"
        case .uid: return "a CF$UID"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }
}
