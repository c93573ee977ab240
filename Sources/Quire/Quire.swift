import CArchive
// `import Quire` is the one import an application writes: the model, queries, errors and store types of the
// layers below come with it.
@_exported import QuireCore
@_exported import QuireStores
@_exported import QuireSQLite
// As `import CoreData` brings Foundation, so does `import Quire`: ported code uses `Date`, `URL`, `NSNull`, … as it is.
@_exported import Foundation

/// Versions of the system libraries Quire was built against and runs with.
public enum QuireLibraries {
    /// The SQLite library version in use, such as `3.40.1`.
    public static var sqliteVersion: String { SQLiteConnection.libraryVersion }

    /// The libarchive version in use, such as `libarchive 3.6.2`.
    public static var libarchiveVersion: String { String(cString: archive_version_string()) }
}
