import Foundation
import Synchronization

/// What migration needs from a store type at the level of files, without a coordinator: read the metadata and
/// the embedded model of a closed store, rewrite its metadata, and know which companion files it keeps beside
/// itself while open.
///
/// Every store type that can be migrated registers one with ``StoreFileOperations/register(_:for:)``; SQLite's,
/// XML's and the binary store's are built in.
struct StoreFileOperations: Sendable {
    /// What a closed store file says about itself.
    struct Contents: Sendable {
        /// The store's metadata.
        var metadata: [String: PropertyListValue]
        /// The model the store embeds (its canonical serialized form), nil when it has none (a store written by
        /// Core Data).
        var model: Data?
    }

    /// Reads the metadata and the embedded model of a closed store file.
    var readContents: @Sendable (URL) throws -> Contents
    /// Replaces the metadata of a closed store file.
    var writeMetadata: @Sendable (URL, [String: PropertyListValue]) throws -> Void
    /// Suffixes of the files the store keeps beside its own while open (SQLite's `-wal` and `-shm`), which
    /// must be gone before the store file is replaced.
    var companionSuffixes: [String]
    /// Readies a closed store file to be replaced, proving nobody else has it open (SQLite: leaves write-ahead
    /// logging, which only the sole connection can do, so no other connection's log is left behind).
    var prepareForReplacement: @Sendable (URL) throws -> Void
    /// The options for writing a migration's new store, a private file nobody else opens until it replaces the
    /// old one (for SQLite: a rollback journal and no syncs, the whole file being synced once at the end).
    var destinationOptions: @Sendable (StoreOptions) -> StoreOptions

    /// The largest embedded model read, in bytes (real ones are a few hundred kilobytes at most).
    static let maximumModelSize = 64 * 1024 * 1024

    private static let registry = Mutex<[StoreType: StoreFileOperations]>([.sqlite: .sqlite, .xml: .xml, .binary: .binary])

    /// Registers the operations of a store type.
    static func register(_ operations: StoreFileOperations, for type: StoreType) {
        registry.withLock { $0[type] = operations }
    }

    /// The operations of a store type.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreInvalidType`` when the type registered none.
    static func operations(for type: StoreType) throws -> StoreFileOperations {
        guard let operations = registry.withLock({ $0[type] }) else {
            throw QuireError(
                .persistentStoreInvalidType, "Stores of type '\(type)' cannot be migrated: the type has no file operations.")
        }
        return operations
    }

    /// SQLite: metadata in `Z_METADATA`, the embedded model in `Z_QUIREMODEL`.
    static let sqlite = StoreFileOperations(
        readContents: { url in
            guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
                throw QuireError(
                    .persistentStoreIncompatibleSchema, "The file '\(url.path)' is not an SQLite store.", context: .init(file: url))
            }
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            defer { connection.close() }
            let metadata = try SQLiteStore.readMetadata(connection, url: url)
            guard try connection.tableNames().contains("Z_QUIREMODEL") else { return Contents(metadata: metadata, model: nil) }
            let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_QUIREMODEL WHERE Z_VERSION = 1")
            defer { statement.finalize() }
            guard try statement.step(), !statement.isNull(at: 0) else { return Contents(metadata: metadata, model: nil) }
            let model = statement.data(at: 0)
            guard model.count <= maximumModelSize else {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The model embedded in '\(url.path)' is \(model.count) bytes long, more than the \(maximumModelSize) allowed.",
                    context: .init(file: url))
            }
            return Contents(metadata: metadata, model: model)
        },
        writeMetadata: { url, metadata in
            let plist = try PropertyListValue.encode(metadata, format: .binary)
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
            defer { connection.close() }
            try connection.transaction {
                let statement = try connection.prepare("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1")
                defer { statement.finalize() }
                statement.bind(metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "", at: 1)
                statement.bind(plist, at: 2)
                try statement.run()
            }
        },
        companionSuffixes: ["-wal", "-shm", "-journal"],
        prepareForReplacement: { url in
            // Nothing to ready where no database is (a missing or empty file, or another type's store).
            guard (try? SQLiteFileCheck.check(url, readOnly: true)) == .database else { return }
            let inUse = QuireError(
                .migrationManagerDestinationStore,
                "The store '\(url.path)' is open elsewhere; close it before it is replaced by its migrated version.",
                context: .init(file: url))
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
            defer { connection.close() }
            try connection.execute("PRAGMA busy_timeout = 0")
            let statement = try connection.prepare("PRAGMA journal_mode = DELETE")
            defer { statement.finalize() }
            do {
                guard try statement.step(), statement.string(at: 0)?.lowercased() == "delete" else { throw inUse }
            } catch let error as QuireError where error.code != .migrationManagerDestinationStore {
                throw inUse
            }
        },
        destinationOptions: { options in
            var options = options
            options.isReadOnly = false
            options.journalMode = .delete
            options.sqlitePragmas["synchronous"] = "OFF"
            return options
        })
}
