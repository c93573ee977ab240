import QuireCore
import Foundation

/// Where external record files and their support files live in a records directory
/// (`StoreOptions.externalRecordsDirectory`), the one place that names them:
///
/// ```
/// <directory>/<store UUID>/<Entity>/p<primary key>.<extension>   one object's record
/// <directory>/<store UUID>/.saving-<UUID>/                       a save's records, before the store commits
/// <directory>/.support/<store UUID>/store.plist                  the store's path and type
/// <directory>/.support/<store UUID>/model.json                   the store's model (Quire's canonical form)
/// <directory>/.<store UUID>.rebuild-<UUID>/                      a store's records while they are rebuilt
/// ```
///
/// The first line is Core Data's layout (`$StoreID/$Entity/$fileName`, as Apple's Spotlight guide gives it); a
/// record is named by the last component of the object's URI (`p12`), so the URI can be read back from the
/// path alone. Everything else is hidden (a dot name), so desktop indexers skip it.
enum ExternalRecordLayout {
    /// The hidden folder of support files (Core Data keeps its `model.mom` in `.support`).
    static let supportFolderName = ".support"
    /// The support file naming the store (`NSStorePath`, `NSStoreType`, `NSStoreUUID`).
    static let storeInfoName = "store.plist"
    /// The support file holding the model.
    static let modelName = "model.json"
    /// What a save's staging folder's name starts with.
    static let savingPrefix = ".saving-"
    /// The keys of `store.plist`.
    static let storePathKey = "NSStorePath"
    static let storeTypeKey = "NSStoreType"
    static let storeUUIDKey = "NSStoreUUID"

    /// The folder of a store's records.
    static func storeFolder(in directory: URL, identifier: String) -> URL {
        directory.appendingPathComponent(identifier, isDirectory: true)
    }

    /// The folder of a store's support files.
    static func supportFolder(in directory: URL, identifier: String) -> URL {
        directory.appendingPathComponent(supportFolderName, isDirectory: true).appendingPathComponent(identifier, isDirectory: true)
    }

    /// The name of an object's record file.
    static func fileName(primaryKey: Int64, extension fileExtension: String) -> String {
        "p\(primaryKey).\(fileExtension)"
    }

    /// A hidden folder beside the store's records for rebuilding them.
    static func rebuildFolder(in directory: URL, identifier: String) -> URL {
        directory.appendingPathComponent(".\(identifier).rebuild-\(UUID().uuidString)", isDirectory: true)
    }

    /// Whether a name is a folder name a rebuild of the store left (`.<UUID>.rebuild-…`).
    static func isRebuildLeftover(_ name: String, identifier: String) -> Bool {
        name.hasPrefix(".\(identifier).rebuild-")
    }

    /// Whether a string can be one component of a path inside the records directory: not empty, no `/` or NUL,
    /// not starting with a dot (hidden names are the layout's own), at most 255 bytes.
    static func isSafeComponent(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && !text.hasPrefix(".") && !text.utf8.contains(UInt8(ascii: "/"))
            && !text.utf8.contains(0)
    }
}
