import QuireSupport
import Foundation

/// Options for adding a store (Core Data's options dictionary, typed).
///
/// ```swift
/// var options = StoreOptions()
/// options.isReadOnly = true
/// options.sqlitePragmas["cache_size"] = "-8000"
/// ```
///
/// Core Data's option names are accepted through ``init(coreDataOptions:)``.
public struct StoreOptions: Sendable, Hashable {
    /// SQLite journal modes.
    public enum JournalMode: String, Sendable, Hashable {
        /// Write-ahead logging (Core Data's default since 2013).
        case wal = "WAL"
        /// A rollback journal deleted after each transaction.
        case delete = "DELETE"
        /// A rollback journal truncated after each transaction.
        case truncate = "TRUNCATE"
        /// A rollback journal kept and zeroed after each transaction.
        case persist = "PERSIST"
        /// A rollback journal in memory.
        case memory = "MEMORY"
    }

    /// Open the store for reading only; saves to it throw (`NSReadOnlyPersistentStoreOption`).
    public var isReadOnly = false
    /// The SQLite journal mode (WAL by default).
    public var journalMode: JournalMode = .wal
    /// Extra SQLite pragmas, name to value (`NSSQLitePragmasOption`). Names must be identifiers and values
    /// identifiers or numbers; anything else is refused when the store is added.
    public var sqlitePragmas: [String: String] = [:]
    /// The page cache, in bytes, a SQLite save that writes many rows (``largeSaveRowCount`` or more) uses
    /// for its transaction; 64 MiB by default, 0 to keep the usual cache. Inserting into a big table's indexes
    /// touches pages all over them: with SQLite's default 2 MB cache those pages are evicted and written again
    /// within one transaction, and each batch of an import costs more than the last. The cache goes back to its
    /// size (SQLite's default, or the `cache_size` pragma of ``sqlitePragmas``) once the save ends, so the
    /// memory is held only while the save runs; a larger `cache_size` of your own is never lowered.
    public var largeSaveCacheSize = 64 * 1_048_576
    /// How large, in bytes, a SQLite save that writes many rows (``largeSaveRowCount`` or more) lets the
    /// write-ahead log grow before its commit checkpoints it into the database; 64 MiB by default, 0 to
    /// checkpoint as usual (SQLite's `wal_autocheckpoint`, 1,000 pages, about 4 MB). Each save of an import into
    /// a big indexed table rewrites index pages all over the table; checkpointing at each such commit copies them
    /// into the database every time, and once the indexes outgrow one save that copy is most of each save's cost.
    /// A page rewritten by several saves before the next checkpoint is copied once. The log is still
    /// checkpointed when it passes this size, by the next save of fewer rows, and when the store is removed (which
    /// empties it); its file can reach this size meanwhile. A `wal_autocheckpoint` of your own that is larger, or
    /// 0 (no automatic checkpoints), is kept.
    public var largeSaveWALSize = 64 * 1_048_576
    /// How many rows (inserted, updated and deleted objects) a SQLite save writes before it gets
    /// ``largeSaveCacheSize``.
    public static let largeSaveRowCount = 1_000
    /// Migrate automatically when the store was written with another model version
    /// (`NSMigratePersistentStoresAutomaticallyOption`).
    public var migratesAutomatically = false
    /// Infer the mapping when migrating automatically (`NSInferMappingModelAutomaticallyOption`).
    public var infersMappingModel = false
    /// Values of attributes that allow external storage larger than this many bytes are kept in files
    /// beside the store (`.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>`); 1 MB by default, the value Core Data was
    /// observed to use.
    public var externalDataThreshold = 1_048_576
    /// Keep every binary value inside the XML or binary store's file, as Core Data's own XML store does, for
    /// files meant for Core Data on a Mac. Values already in files are read into the store when it is saved.
    public var storesExternalDataInline = false
    /// Record every save in the store's persistent history (`NSPersistentHistoryTrackingKey`): SQLite stores in
    /// Core Data's history tables (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`); XML, binary, custom atomic
    /// and in-memory stores, which Core Data gives no history, in their metadata (a Mac reads neither kind's
    /// history); read it with `PersistentHistoryChangeRequest`. Other store types ignore it.
    public var persistentHistoryTracking = false
    /// Where migrating automatically looks for the application's mapping models (Xcode's `.xcmappingmodel`
    /// folders), besides the folder of the coordinator's `.xcdatamodeld`: folders to search and mapping-model
    /// files. Core Data searches the application's bundles; a step with a mapping model uses it, the others are
    /// inferred when ``infersMappingModel`` allows it.
    public var mappingModelURLs: [URL] = []
    /// The staged migration (`NSPersistentStoreStagedMigrationManagerOptionKey`) a store written with an earlier
    /// model version runs when it is added: Quire's `StagedMigrationManager`. It takes the place of
    /// ``migratesAutomatically`` for such a store.
    public var stagedMigrationManager: (any StoreStagedMigration)? {
        get { stagedMigration?.manager }
        set { stagedMigration = newValue.map(StagedMigrationReference.init) }
    }
    private var stagedMigration: StagedMigrationReference?
    /// Post `PersistentStore.remoteChangeNotification` (Core Data's `NSPersistentStoreRemoteChange`)
    /// after every write to the store: this coordinator's saves and batch requests, and what other coordinators
    /// and other processes write to the same SQLite, XML or binary file or PostgreSQL database
    /// (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    public var postsRemoteChangeNotifications = false
    /// How long, in seconds, a SQLite store waits for another connection's lock (another coordinator or
    /// process writing the file) before a request fails with a busy error (`NSPersistentStoreTimeoutOption`,
    /// SQLite's busy timeout); 5 seconds by default (Core Data's default is 240). Other store types ignore it.
    public var timeout: TimeInterval = 5
    /// The keys of the Core Data options dictionary given to ``init(coreDataOptions:)`` that Quire does not
    /// know, sorted. They are ignored, as Core Data ignores options it does not know; the coordinator logs a
    /// note naming each when the store is added.
    public var ignoredCoreDataOptions: [String] = []
    /// The folder the store writes its external record files into (`NSExternalRecordsDirectoryOption`): one
    /// file per object of every entity with a property marked ``PropertyDescription/isIndexedBySpotlight``,
    /// holding the values of its properties marked ``PropertyDescription/isStoredInExternalRecord``, written
    /// and removed with the objects at each save, for desktop search (see <doc:SearchIndexing>). Set it with
    /// ``externalRecordExtension``; nil (the default) writes no records.
    public var externalRecordsDirectory: URL?
    /// The file name extension of external record files, without the dot (`NSExternalRecordExtensionOption`);
    /// needed with ``externalRecordsDirectory``.
    public var externalRecordExtension: String?
    /// The format of external record files (`NSExternalRecordsFileFormatOption`): an XML property list (the
    /// default, as in Core Data, and the one desktop indexers can read) or a binary one.
    public var externalRecordsFileFormat: ExternalRecordFormat = .xml

    /// The formats of external record files: property lists of the object's values, keyed by property name.
    public enum ExternalRecordFormat: String, Sendable, Hashable, CaseIterable {
        /// An XML property list (`NSXMLExternalRecordType`, Core Data's default).
        case xml = "NSXMLExternalRecordType"
        /// A binary property list (`NSBinaryExternalRecordType`).
        case binary = "NSBinaryExternalRecordType"
    }

    /// Creates default options.
    public init() {}

    /// Core Data's option keys.
    public enum CoreDataKey {
        /// `NSReadOnlyPersistentStoreOption`.
        public static let readOnly = "NSReadOnlyPersistentStoreOption"
        /// `NSSQLitePragmasOption`.
        public static let sqlitePragmas = "NSSQLitePragmasOption"
        /// `NSMigratePersistentStoresAutomaticallyOption`.
        public static let migrateAutomatically = "NSMigratePersistentStoresAutomaticallyOption"
        /// `NSInferMappingModelAutomaticallyOption`.
        public static let inferMappingModel = "NSInferMappingModelAutomaticallyOption"
        /// `NSPersistentHistoryTrackingKey`.
        public static let persistentHistoryTracking = "NSPersistentHistoryTrackingKey"
        /// `NSPersistentStoreStagedMigrationManagerOptionKey`.
        public static let stagedMigrationManager = "NSPersistentStoreStagedMigrationManagerOptionKey"
        /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
        public static let remoteChangeNotificationPost = "NSPersistentStoreRemoteChangeNotificationPostOptionKey"
        /// `NSPersistentStoreTimeoutOption`: seconds, as a number.
        public static let timeout = "NSPersistentStoreTimeoutOption"
        /// `NSExternalRecordsDirectoryOption`: a URL or a path.
        public static let externalRecordsDirectory = "NSExternalRecordsDirectoryOption"
        /// `NSExternalRecordExtensionOption`: a string.
        public static let externalRecordExtension = "NSExternalRecordExtensionOption"
        /// `NSExternalRecordsFileFormatOption`: an ``ExternalRecordFormat`` raw value (`NSXMLExternalRecordType`,
        /// `NSBinaryExternalRecordType`), or `XML` or `binary`.
        public static let externalRecordsFileFormat = "NSExternalRecordsFileFormatOption"
    }

    /// Creates options from a Core Data options dictionary.
    ///
    /// `NSSQLitePragmasOption`'s `journal_mode` sets ``journalMode``; other pragmas go to ``sqlitePragmas``. A key
    /// Quire does not know (such as iOS's `NSPersistentStoreFileProtectionKey`) is ignored, as Core Data ignores
    /// unknown options, and listed in ``ignoredCoreDataOptions``.
    ///
    /// ```swift
    /// let options = try StoreOptions(coreDataOptions: [
    ///     StoreOptions.CoreDataKey.persistentHistoryTracking: true,
    ///     StoreOptions.CoreDataKey.remoteChangeNotificationPost: true,
    ///     "NSPersistentStoreFileProtectionKey": "NSFileProtectionComplete",
    /// ])
    /// // options.ignoredCoreDataOptions == ["NSPersistentStoreFileProtectionKey"]
    /// ```
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` for a value of the wrong type under a key Quire knows.
    public init(coreDataOptions: [String: Any]) throws {
        for (key, value) in coreDataOptions {
            switch key {
            case CoreDataKey.readOnly: isReadOnly = try Self.bool(value, key)
            case CoreDataKey.migrateAutomatically: migratesAutomatically = try Self.bool(value, key)
            case CoreDataKey.inferMappingModel: infersMappingModel = try Self.bool(value, key)
            case CoreDataKey.persistentHistoryTracking: persistentHistoryTracking = try Self.bool(value, key)
            case CoreDataKey.stagedMigrationManager:
                guard let manager = value as? any StoreStagedMigration else {
                    throw QuireError(.invalidArgument, "The option \(key) must be a StagedMigrationManager.")
                }
                stagedMigrationManager = manager
            case CoreDataKey.remoteChangeNotificationPost: postsRemoteChangeNotifications = try Self.bool(value, key)
            case CoreDataKey.timeout:
                guard let seconds = Self.number(value), seconds >= 0 else {
                    throw QuireError(.invalidArgument, "The option \(key) must be a number of seconds, not '\(value)'.")
                }
                timeout = seconds
            case CoreDataKey.externalRecordsDirectory:
                if let url = value as? URL, url.isFileURL {
                    externalRecordsDirectory = url
                } else if let path = value as? String, !path.isEmpty {
                    externalRecordsDirectory = URL(fileURLWithPath: path, isDirectory: true)
                } else {
                    throw QuireError(.invalidArgument, "The option \(key) must be a file URL or a path.")
                }
            case CoreDataKey.externalRecordExtension:
                guard let text = value as? String else { throw QuireError(.invalidArgument, "The option \(key) must be a string.") }
                externalRecordExtension = text
            case CoreDataKey.externalRecordsFileFormat:
                guard let text = value as? String, let format = ExternalRecordFormat(optionValue: text) else {
                    throw QuireError(
                        .invalidArgument,
                        "The option \(key) must be NSXMLExternalRecordType or NSBinaryExternalRecordType, not '\(value)'.")
                }
                externalRecordsFileFormat = format
            case CoreDataKey.sqlitePragmas:
                guard let pragmas = value as? [String: Any] else {
                    throw QuireError(.invalidArgument, "The option \(key) must be a dictionary of pragma names to values.")
                }
                for (name, raw) in pragmas {
                    let text = "\(raw)"
                    if name.lowercased() == "journal_mode" {
                        guard let mode = JournalMode(rawValue: text.uppercased()) else {
                            throw QuireError(.invalidArgument, "The journal mode '\(text)' is not one SQLite knows.")
                        }
                        journalMode = mode
                    } else {
                        sqlitePragmas[name] = text
                    }
                }
            default:
                ignoredCoreDataOptions.append(key)
            }
        }
        ignoredCoreDataOptions.sort()
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let number as Double: return number
        case let number as Int: return Double(number)
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    /// Checks the external record options together, as Core Data asks: a directory and an extension, or
    /// neither; the extension one file name component without the dot.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` naming the option that is missing or malformed.
    package func checkExternalRecordOptions() throws {
        switch (externalRecordsDirectory, externalRecordExtension) {
        case (nil, nil): return
        case (nil, _?):
            throw QuireError(
                .invalidArgument, "The option \(CoreDataKey.externalRecordExtension) needs \(CoreDataKey.externalRecordsDirectory) too.")
        case (let directory?, nil):
            throw QuireError(
                .invalidArgument, "The option \(CoreDataKey.externalRecordsDirectory) needs \(CoreDataKey.externalRecordExtension) too.",
                context: .init(file: directory))
        case (let directory?, let fileExtension?):
            guard directory.isFileURL else {
                throw QuireError(
                    .invalidArgument, "The external records directory '\(directory)' is not a file URL.", context: .init(file: directory))
            }
            guard !fileExtension.isEmpty, fileExtension.utf8.count <= 64, !fileExtension.hasPrefix("."),
                !fileExtension.contains(where: { $0 == "/" || $0 == "\0" || $0.isNewline })
            else {
                throw QuireError(
                    .invalidArgument,
                    "The external record extension '\(fileExtension)' must be a file name extension without the dot "
                        + "(at most 64 bytes, no '/').")
            }
        }
    }

    private static func bool(_ value: Any, _ key: String) throws -> Bool {
        if let bool = value as? Bool { return bool }
        if let number = value as? Int { return number != 0 }
        throw QuireError(.invalidArgument, "The option \(key) must be a Boolean.")
    }
}

/// A staged migration a store runs when it was written with an earlier model version: the role Quire's
/// `StagedMigrationManager` plays in ``StoreOptions/stagedMigrationManager``.
public protocol StoreStagedMigration: AnyObject, Sendable {}

/// A staged migration in options, compared by identity.
private struct StagedMigrationReference: Hashable, Sendable {
    let manager: any StoreStagedMigration

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.manager === rhs.manager }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(manager)) }
}

extension StoreOptions.ExternalRecordFormat {
    /// The format an option value names: a raw value, or `XML` or `binary` in any case (Core Data does not
    /// document the strings behind its two constants).
    init?(optionValue text: String) {
        if let format = Self(rawValue: text) {
            self = format
            return
        }
        switch text.lowercased() {
        case "xml": self = .xml
        case "binary": self = .binary
        default: return nil
        }
    }
}
