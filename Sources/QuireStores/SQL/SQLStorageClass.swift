import QuireCore

/// The storage classes each attribute type is stored as, in Core Data's stores and Quire's: what the row
/// reader accepts and `quire verify` checks with `typeof()`. The codes are SQLite's (`SQLITE_INTEGER` … `SQLITE_NULL`,
/// fixed by its file format and API), written out so that the shared SQL layer and other engines' row sources
/// (``RowColumnSource``) use them without SQLite's C module; `SQLStorageClassTests` checks they agree.
@_spi(QuireEngine) public enum SQLStorageClass {
    /// An integer (`SQLITE_INTEGER`).
    @inlinable @_spi(QuireEngine) public static var integer: Int32 { 1 }
    /// A floating-point number (`SQLITE_FLOAT`).
    @inlinable @_spi(QuireEngine) public static var float: Int32 { 2 }
    /// Text (`SQLITE_TEXT`).
    @inlinable @_spi(QuireEngine) public static var text: Int32 { 3 }
    /// A blob (`SQLITE_BLOB`).
    @inlinable @_spi(QuireEngine) public static var blob: Int32 { 4 }
    /// NULL (`SQLITE_NULL`).
    @inlinable @_spi(QuireEngine) public static var null: Int32 { 5 }

    /// The classes a column of the type may hold, one bit per class (`1 << integer`, …); NULL is always
    /// allowed and not included.
    static func allowed(for type: AttributeType) -> Int32 {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return 1 << integer
        case .double, .float, .date: return 1 << integer | 1 << float
        case .decimal: return 1 << integer | 1 << float | 1 << text
        case .string, .uri: return 1 << text
        case .binaryData, .transformable, .uuid: return 1 << blob
        }
    }

    /// What `typeof()` answers for a class.
    static func name(_ storage: Int32) -> String {
        switch storage {
        case integer: return "integer"
        case float: return "real"
        case text: return "text"
        case blob: return "blob"
        default: return "null"
        }
    }

    /// The `typeof()` names of a set of classes.
    static func typeNames(_ classes: Int32) -> [String] {
        [integer, float, text, blob].filter { classes & (1 << $0) != 0 }.map(name)
    }

    /// The classes, in words (`integer or real`).
    static func names(_ classes: Int32) -> String {
        typeNames(classes).joined(separator: " or ")
    }
}
