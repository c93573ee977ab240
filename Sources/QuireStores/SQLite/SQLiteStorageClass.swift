import CSQLite
import QuireCore

/// The SQLite storage classes each attribute type is stored as, in Core Data's stores and Quire's: what the row
/// reader accepts and `quire verify` checks with `typeof()`.
package enum SQLiteStorageClass {
    /// SQLite's storage-class codes, for row sources of other engines (``RowColumnSource``) that report their
    /// values in them without importing SQLite's C module.
    package static let integer = SQLITE_INTEGER
    /// See ``integer``.
    package static let float = SQLITE_FLOAT
    /// See ``integer``.
    package static let text = SQLITE_TEXT
    /// See ``integer``.
    package static let blob = SQLITE_BLOB
    /// See ``integer``.
    package static let null = SQLITE_NULL

    /// The classes a column of the type may hold, one bit per class (`1 << SQLITE_INTEGER`, …); NULL is always
    /// allowed and not included.
    static func allowed(for type: AttributeType) -> Int32 {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return 1 << SQLITE_INTEGER
        case .double, .float, .date: return 1 << SQLITE_INTEGER | 1 << SQLITE_FLOAT
        case .decimal: return 1 << SQLITE_INTEGER | 1 << SQLITE_FLOAT | 1 << SQLITE_TEXT
        case .string, .uri: return 1 << SQLITE_TEXT
        case .binaryData, .transformable, .uuid: return 1 << SQLITE_BLOB
        }
    }

    /// What `typeof()` answers for a class.
    static func name(_ storage: Int32) -> String {
        switch storage {
        case SQLITE_INTEGER: return "integer"
        case SQLITE_FLOAT: return "real"
        case SQLITE_TEXT: return "text"
        case SQLITE_BLOB: return "blob"
        default: return "null"
        }
    }

    /// The `typeof()` names of a set of classes.
    static func typeNames(_ classes: Int32) -> [String] {
        [SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB].filter { classes & (1 << $0) != 0 }.map(name)
    }

    /// The classes, in words (`integer or real`).
    static func names(_ classes: Int32) -> String {
        typeNames(classes).joined(separator: " or ")
    }
}
