import QuireCore
import QuireStores
import Foundation

/// How a ``PersistentContainer`` adds one store (`NSPersistentStoreDescription`): its type, file,
/// configuration and options.
///
/// ```swift
/// let description = PersistentStoreDescription(url: storeURL)
/// description.type = .xml
/// description.isReadOnly = true
/// container.persistentStoreDescriptions = [description]
/// ```
///
/// A document's store is described with ``init(documentContents:)``: a store file or a package is opened in
/// place, an archive (zip or tar) in the private working copy ``DocumentContents`` extracted it into, which
/// the description keeps alive; to write an archive back, use ``PersistentDocument``.
///
/// `@unchecked Sendable`: every property is kept behind a lock, so a description may be read by the thread
/// that adds its store asynchronously while the application holds it.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    private struct State {
        var type: StoreType = .sqlite
        var url: URL?
        var configuration: String?
        var isReadOnly = false
        var shouldAddStoreAsynchronously = false
        var shouldMigrateStoreAutomatically = true
        var shouldInferMappingModelAutomatically = true
        var options: [String: Any] = [:]
    }

    private let lock = NSLock()
    private var storage = State()
    /// The properties, read or changed under the lock.
    private var state: LockedState { LockedState(owner: self) }
    private struct LockedState {
        let owner: PersistentStoreDescription
        func withLock<T>(_ body: (inout State) -> T) -> T {
            owner.lock.lock()
            defer { owner.lock.unlock() }
            return body(&owner.storage)
        }
    }

    /// The document whose store this describes, kept open (its archive's working copy) while the description
    /// lives.
    public let documentContents: DocumentContents?

    /// Creates a description of an SQLite store at a URL (`init(url:)`); without one, the container puts the
    /// store in its ``PersistentContainer/defaultDirectoryURL()``.
    public init(url: URL? = nil) {
        documentContents = nil
        state.withLock { $0.url = url }
    }

    /// Creates a description of a document's store: a store file, a package, or an archive's working copy,
    /// with the type read from the store (see ``DocumentContents``).
    ///
    /// ```swift
    /// let contents = try DocumentContents(contentsOf: URL(fileURLWithPath: "Notes.notebook"))
    /// container.persistentStoreDescriptions = [PersistentStoreDescription(documentContents: contents)]
    /// ```
    ///
    /// Saves write the store in place: into the store file or the package, or into the working copy of an
    /// archive (which ``DocumentContents/writeArchive(ofPackage:to:format:compression:progress:)`` or a ``PersistentDocument``
    /// writes back).
    public init(documentContents: DocumentContents) {
        self.documentContents = documentContents
        state.withLock {
            $0.url = documentContents.storeURL
            $0.type = documentContents.storeType
        }
    }

    /// The store type (``StoreType/sqlite`` by default).
    public var type: StoreType {
        get { state.withLock { $0.type } }
        set { state.withLock { $0.type = newValue } }
    }
    /// The store's file (ignored for in-memory stores).
    public var url: URL? {
        get { state.withLock { $0.url } }
        set { state.withLock { $0.url = newValue } }
    }
    /// The model configuration whose entities the store holds; nil for all.
    public var configuration: String? {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }
    /// Whether the store is opened read-only (`NSReadOnlyPersistentStoreOption`).
    public var isReadOnly: Bool {
        get { state.withLock { $0.isReadOnly } }
        set { state.withLock { $0.isReadOnly = newValue } }
    }
    /// Whether ``PersistentContainer/loadPersistentStores(completionHandler:)`` adds the store on a background
    /// queue and returns at once (false by default).
    public var shouldAddStoreAsynchronously: Bool {
        get { state.withLock { $0.shouldAddStoreAsynchronously } }
        set { state.withLock { $0.shouldAddStoreAsynchronously = newValue } }
    }
    /// Whether a store written with another version of the model is migrated when added (true by default,
    /// as in Core Data; `NSMigratePersistentStoresAutomaticallyOption`).
    public var shouldMigrateStoreAutomatically: Bool {
        get { state.withLock { $0.shouldMigrateStoreAutomatically } }
        set { state.withLock { $0.shouldMigrateStoreAutomatically = newValue } }
    }
    /// Whether that migration may infer its mapping model (true by default;
    /// `NSInferMappingModelAutomaticallyOption`).
    public var shouldInferMappingModelAutomatically: Bool {
        get { state.withLock { $0.shouldInferMappingModelAutomatically } }
        set { state.withLock { $0.shouldInferMappingModelAutomatically = newValue } }
    }
    /// Further store options under Core Data's keys (``StoreOptions/CoreDataKey``), such as
    /// `NSSQLitePragmasOption`; the properties above win over the same keys here.
    public var options: [String: Any] { state.withLock { $0.options } }

    /// Sets one option (`setOption(_:forKey:)`); nil removes it.
    ///
    /// - Parameters:
    ///   - option: The value, as Core Data takes it (a Boolean, a dictionary of pragmas, …).
    ///   - key: A Core Data option key.
    public func setOption(_ option: Any?, forKey key: String) {
        state.withLock { $0.options[key] = option }
    }

    /// How long, in seconds, the store waits for another connection's lock before a request fails
    /// (`timeout`, kept in ``options`` under `NSPersistentStoreTimeoutOption`); SQLite stores only. 5 seconds
    /// unless set (Core Data's default is 240).
    ///
    /// ```swift
    /// description.timeout = 30
    /// ```
    public var timeout: TimeInterval {
        get {
            switch options[StoreOptions.CoreDataKey.timeout] {
            case let seconds as Double: return seconds
            case let seconds as Int: return Double(seconds)
            case let number as NSNumber: return number.doubleValue
            default: return StoreOptions().timeout
            }
        }
        set { setOption(newValue, forKey: StoreOptions.CoreDataKey.timeout) }
    }

    /// The SQLite pragmas set on the store's connection when it is added (`sqlitePragmas`), by name: the
    /// dictionary under `NSSQLitePragmasOption` in ``options``.
    public var sqlitePragmas: [String: Any] {
        options[StoreOptions.CoreDataKey.sqlitePragmas] as? [String: Any] ?? [:]
    }

    /// Sets one SQLite pragma, or removes it with nil (`setValue(_:forPragmaNamed:)`); `journal_mode` chooses
    /// the journal (``StoreOptions/journalMode``). Names must be identifiers and values identifiers or numbers,
    /// or adding the store fails with ``QuireError/Code/invalidArgument``.
    ///
    /// ```swift
    /// description.setValue("DELETE", forPragmaNamed: "journal_mode")
    /// description.setValue(-8000, forPragmaNamed: "cache_size")
    /// ```
    ///
    /// - Parameters:
    ///   - value: The pragma's value: a string or a number; nil removes the pragma.
    ///   - name: The pragma's name.
    public func setValue(_ value: Any?, forPragmaNamed name: String) {
        state.withLock { state in
            var pragmas = state.options[StoreOptions.CoreDataKey.sqlitePragmas] as? [String: Any] ?? [:]
            pragmas[name] = value
            state.options[StoreOptions.CoreDataKey.sqlitePragmas] = pragmas.isEmpty ? nil : pragmas
        }
    }

    /// The options the coordinator gets: ``options`` read by ``StoreOptions/init(coreDataOptions:)``, then the
    /// read-only and migration properties.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` for a value Quire cannot use under a key it knows (keys it
    ///   does not know are ignored and listed in ``StoreOptions/ignoredCoreDataOptions``).
    public func storeOptions() throws -> StoreOptions {
        let state = state.withLock { $0 }
        var options = try StoreOptions(coreDataOptions: state.options)
        options.isReadOnly = state.isReadOnly || options.isReadOnly
        options.migratesAutomatically = state.shouldMigrateStoreAutomatically
        options.infersMappingModel = state.shouldInferMappingModelAutomatically
        return options
    }

    /// The type and the file.
    public var description: String {
        let state = state.withLock { $0 }
        return "<PersistentStoreDescription type: \(state.type), url: \(state.url?.path ?? "nil")"
            + "\(state.configuration.map { ", configuration: \($0)" } ?? "")\(state.isReadOnly ? ", read-only" : "")>"
    }
}
