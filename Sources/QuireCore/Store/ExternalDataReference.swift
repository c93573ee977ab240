import QuireSupport
import Foundation

/// A binary value kept in a file beside its store (`.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>`), as an
/// attribute that allows external storage holds it once saved.
///
/// Fetches hand out references, never the bytes: ``ManagedObject/value(forKey:)`` reads the file when the
/// value is asked for, and ``ManagedObject/dataValue(forKey:)`` does the same but throws when the
/// file is missing or truncated. The file is found through the store of the object holding the reference,
/// so a reference stays valid when the object's store moves (Save As links the files into the new store's
/// folder under the same names).
public struct ExternalDataReference: Sendable, Hashable, CustomStringConvertible {
    /// The file's name: a UUID in Core Data's upper-case 36-character form.
    public let uuid: String
    /// The number of bytes, when the store recorded it (files written by Quire); nil for files written by
    /// Core Data, whose length only the file knows.
    public let length: Int64?

    /// Creates a reference to a file name and length.
    ///
    /// - Parameters:
    ///   - uuid: The file's name, a UUID string.
    ///   - length: The number of bytes, if known.
    public init(uuid: String, length: Int64?) {
        self.uuid = uuid
        self.length = length
    }

    /// `<external data UUID, N bytes>`.
    public var description: String {
        "<external data \(uuid)\(length.map { ", \($0) bytes" } ?? "")>"
    }

    /// Whether a string is a UUID in the 36-character form, and so a safe file name.
    package static func isValidName(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
    }
}
