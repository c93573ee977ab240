import QuireSupport
import Foundation

/// One kind of persistent store, described once: how a store of the kind is made, how its files are
/// recognised, how its metadata is read and written without a stack, and which files it keeps, so that it can
/// be snapshotted, moved, copied and removed with its external data.
///
/// The built-in kinds (SQLite, XML, binary, in-memory), the kinds of Quire's separate store modules (PostgreSQL,
/// in `QuirePostgres`, registered when its store type is first used) and the custom kinds users register
/// (`PersistentStoreCoordinator.registerStoreClass`) live in one registry, `StoreKinds` in `QuireStores`;
/// nothing above the stores names a store class.
package struct StoreKind: Sendable {
    /// What a closed store file says about itself.
    package struct FileContents: Sendable {
        /// The store's metadata.
        package var metadata: [String: PropertyListValue]
        /// The model the store embeds (its canonical serialized form), nil when it has none (a store written by
        /// Core Data, or a custom kind's).
        package var model: Data?

        /// Contents as read.
        package init(metadata: [String: PropertyListValue], model: Data?) {
            self.metadata = metadata
            self.model = model
        }
    }

    /// The kind's type, as stored in `NSStoreType`.
    package let type: StoreType
    /// Whether a store of the kind lives in a file (false for in-memory stores).
    package var needsFile: Bool
    /// Makes the backend that answers for a new store handle.
    package var makeBackend: @Sendable (PersistentStore) throws -> any PersistentStoreBackend
    /// Whether a file's first bytes are a store of this kind, if the kind can tell.
    package var recognizes: (@Sendable (Data) -> Bool)?
    /// Reads the metadata of a closed store file.
    package var readMetadata: @Sendable (URL, StoreOptions) throws -> [String: PropertyListValue]
    /// Reads the model a closed store file embeds (nil when it has none).
    package var readModel: @Sendable (URL) throws -> Data? = { _ in nil }
    /// Reads the compiled model Core Data caches in a closed store file (SQLite's `Z_MODELCACHE`; nil when
    /// it has none).
    package var readModelCache: @Sendable (URL) throws -> Data? = { _ in nil }
    /// Writes the metadata of a closed store file, merged with what it has (see `StoreMetadataKey.merged`).
    package var writeMetadata: @Sendable ([String: PropertyListValue], URL, StoreOptions) throws -> Void
    /// Writes the metadata of a closed store file that only a reader given its model can rewrite (custom atomic
    /// stores, whose coders encode the whole file): a migration finishing its new store uses this, when set,
    /// instead of ``writeMetadata``.
    package var writeMetadataWithModel: (@Sendable ([String: PropertyListValue], URL, ManagedObjectModel) throws -> Void)? = nil
    /// Suffixes of the files the store keeps beside its own while open (SQLite's `-wal`, `-shm` and
    /// `-journal`), which go with the store file wherever it goes.
    package var sideFileSuffixes: [String] = []
    /// Which of ``sideFileSuffixes`` hold no data of their own (SQLite's `-shm`, the index of the write-ahead log,
    /// rebuilt from the log): a store closed cleanly may leave one non-empty, so it says nothing about another
    /// connection having the store open, and a working copy of a document leaves them out.
    package var derivedSideFileSuffixes: [String] = []
    /// Whether the support folder beside a store (where its external data lives, see
    /// ``supportFolder(forStore:)``) is named without the store file's extension, as Core Data names SQLite's
    /// (`Photos.sqlite` → `.Photos_SUPPORT`); false: with the whole file name (`Photos.xml` → `.Photos.xml_SUPPORT`).
    package var supportFolderDropsExtension = false
    /// Whether a store of the kind is named by its URL: false for in-memory stores, which are given none (a URL a
    /// description carries is dropped), so no URL finds one already added.
    package var keepsURL = true
    /// Whether the kind's stores may carry no model version hashes in their metadata (Core Data's XML stores,
    /// whose metadata can be empty): a check notes the missing `NSStoreModelVersionHashes` instead of reporting it.
    package var versionHashesMayBeMissing = false
    /// The file name extensions of the kind's store files, in lower case, the one new files get first (SQLite:
    /// `sqlite`, `sqlite3`, `db`); empty for kinds whose stores are not files, or whose files have no usual name.
    package var fileExtensions: [String] = []
    /// Readies a closed store file to be replaced, proving nobody else has it open (SQLite: leaves write-ahead
    /// logging, which only the sole connection can do, so no other connection's log is left behind).
    package var prepareForReplacement: @Sendable (URL) throws -> Void = { _ in }
    /// Makes the store file whole on its own before it is copied (SQLite: checkpoints its write-ahead log).
    package var prepareForCopy: @Sendable (URL) throws -> Void = { _ in }
    /// The options for writing a migration's new store, a private file nobody else opens until it replaces the
    /// old one (for SQLite: a rollback journal and no syncs, the whole file being synced once at the end).
    package var destinationOptions: @Sendable (StoreOptions) -> StoreOptions = { options in
        var options = options
        options.isReadOnly = false
        return options
    }
    /// The problems the kind's own check of a closed store file finds (SQLite: `PRAGMA integrity_check`), one
    /// sentence each; empty when the file is sound or the kind has no such check.
    package var checkFile: @Sendable (URL) throws -> [String] = { _ in [] }
    /// The rows of a closed store file that its model cannot represent faithfully (SQLite: keys below 1,
    /// unknown entity numbers, values of the wrong storage class or out of range, keys that refer to no row),
    /// one sentence each naming the table, row and column; empty when the kind has no such check. `quire
    /// verify` reports them and conversions refuse a source that has any.
    package var checkContents: @Sendable (URL, ManagedObjectModel) throws -> [String] = { _, _ in [] }
    /// The problems of a closed store file's own bookkeeping, one sentence each (SQLite: a key counter of
    /// `Z_PRIMARYKEY` below the keys of its table, negative, or with no key left before `Int64.max`): `quire
    /// verify` reports them; conversions do not refuse them, since the new store counts its keys afresh.
    package var checkBookkeeping: @Sendable (URL, ManagedObjectModel) throws -> [String] = { _, _ in [] }
    /// Whether a closed store of the kind is copied by cloning its file (and linking its external data)
    /// rather than by reading its objects: true for single-file kinds whose file is the whole store.
    package var copiesByCloning: Bool = false
    /// Where Save As writes a new store of the kind before renaming it into place, for kinds whose stores are
    /// not files (PostgreSQL: a temporary schema beside the target's); nil: a hidden file beside the target.
    package var stagingURL: (@Sendable (URL) -> URL)? = nil
    /// Removes a store of a kind whose stores are not files (PostgreSQL: drops its schema); nil: its files and
    /// external data folder are removed.
    package var removeStore: (@Sendable (URL) throws -> Void)? = nil
    /// Where a migration builds the new version of a store of a kind whose stores are not files, beside the store,
    /// before it replaces the store (PostgreSQL: a new schema on the same server); each call names a new place. Nil:
    /// a private folder beside the store file, or, for a store that is no file, no migration.
    package var migrationStagingURL: (@Sendable (URL) -> URL)? = nil
    /// Replaces a store of a kind whose stores are not files by the finished store at a ``migrationStagingURL``, in
    /// one atomic step that leaves the replacement's place gone, or throws with both as they were; refuses when
    /// another connection has the store open (PostgreSQL: both schemas renamed and the old one dropped in one
    /// transaction). Nil: the file is renamed into place.
    package var replaceStore: (@Sendable (_ target: URL, _ replacement: URL) throws -> Void)? = nil
    /// The URL schemes of a kind whose stores are not files (PostgreSQL: `postgresql`, `postgres`): a URL with one
    /// of them names a store of this kind, so its type need not be given.
    package var urlSchemes: [String] = []
    /// How messages name the store at a URL of one of ``urlSchemes``, quoted (PostgreSQL: its schema and
    /// database, never a password); nil: its path, quoted.
    package var describeURL: (@Sendable (URL) -> String)? = nil
    /// A URL of one of ``urlSchemes`` as errors may carry it (PostgreSQL: without its password); nil: unchanged.
    package var safeURL: (@Sendable (URL) -> URL)? = nil

    /// Describes a kind.
    package init(
        type: StoreType, needsFile: Bool = true,
        makeBackend: @escaping @Sendable (PersistentStore) throws -> any PersistentStoreBackend,
        readMetadata: @escaping @Sendable (URL, StoreOptions) throws -> [String: PropertyListValue],
        writeMetadata: @escaping @Sendable ([String: PropertyListValue], URL, StoreOptions) throws -> Void
    ) {
        self.type = type
        self.needsFile = needsFile
        self.makeBackend = makeBackend
        self.readMetadata = readMetadata
        self.writeMetadata = writeMetadata
    }

    /// Reads the metadata and the embedded model of a closed store file.
    package func readContents(at url: URL, options: StoreOptions = StoreOptions()) throws -> FileContents {
        FileContents(metadata: try readMetadata(url, options), model: try readModel(url))
    }

    /// The largest embedded model read, in bytes (real ones are a few hundred kilobytes at most).
    package static let maximumModelSize = 64 * 1024 * 1024
}
