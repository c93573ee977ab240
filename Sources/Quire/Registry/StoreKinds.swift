import Foundation
import QuireCore
import QuireStores
import QuireSQLite

/// The one registry of store kinds: the built-in ones, those of Quire's separate store modules and those users
/// register, by type.
///
/// Adding a store kind means describing it once (a ``StoreKind``) and registering it here; the coordinator,
/// migration, documents and tools ask this registry and never name a store class.
package enum StoreKinds {
    /// The built-in kinds, in the order file detection tries them.
    package static let builtIn: [StoreKind] = [.sqlite, .binary, .xml, .inMemory]

    /// A store kind Quire ships in a module of its own, which an application links only when it uses it (so that
    /// the others never link its client library). The module registers the kind when its store type is first
    /// used; until then, this is all the registry knows of it: enough to say which module a type or URL needs.
    struct SeparateModule: Sendable {
        /// The kind's store type, as stored in `NSStoreType`.
        let type: StoreType
        /// The URL schemes its store URLs use.
        let urlSchemes: [String]
        /// The library product and module that holds it.
        let module: String
        /// How the module names the store type (using it registers the kind).
        let typeName: String
    }

    /// Quire's separate store modules: PostgreSQL in `QuirePostgres` (libpq).
    static let separateModules: [SeparateModule] = [
        SeparateModule(
            type: StoreType(rawValue: "PostgreSQL"), urlSchemes: ["postgresql", "postgres"], module: "QuirePostgres",
            typeName: "StoreType.postgres")
    ]

    private static let registered = LockedValue<[StoreType: StoreKind]>(
        Dictionary(uniqueKeysWithValues: builtIn.map { ($0.type, $0) }))

    /// Whether a type is one of Quire's own built-in kinds.
    package static func isBuiltIn(_ type: StoreType) -> Bool { builtIn.contains { $0.type == type } }

    /// The separate module of a type, if it is one of theirs.
    static func separateModule(of type: StoreType) -> SeparateModule? { separateModules.first { $0.type == type } }

    /// The error for using a separate module's store type or URL without the module registered.
    static func missingModule(_ module: SeparateModule, url: URL?) -> QuireError {
        QuireError(
            .persistentStoreInvalidType,
            "The store type '\(module.type)' is in the module \(module.module), which is not registered: add the product "
                + "\(module.module) to the target's dependencies, `import \(module.module)` and use \(module.typeName) "
                + "(using it registers the store type).",
            // Not the URL of a store that is no file: it may hold a password, and nothing here can remove it.
            context: .init(file: url?.isFileURL == true ? url : nil))
    }

    /// The kind of a store type.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreInvalidType`` for a type nobody registered.
    package static func kind(for type: StoreType, url: URL? = nil) throws -> StoreKind {
        guard let kind = registered.withLock({ $0[type] }) else {
            if let module = separateModule(of: type) { throw missingModule(module, url: url) }
            throw QuireError(
                .persistentStoreInvalidType, "The store type '\(type)' is not one Quire knows.", context: .init(file: url))
        }
        return kind
    }

    /// Registers a custom kind. Replacing a built-in kind, or taking the type of one of Quire's separate store
    /// modules, is a programmer error.
    package static func register(_ kind: StoreKind) {
        precondition(
            !isBuiltIn(kind.type) && separateModule(of: kind.type) == nil,
            "The store type \(kind.type) is Quire's own and cannot be replaced.")
        registered.withLock { $0[kind.type] = kind }
    }

    /// Registers the kind of one of Quire's separate store modules (``separateModules``); the module does this
    /// when its store type is first used. Registering it again changes nothing.
    package static func registerSeparateModuleKind(_ kind: StoreKind) {
        precondition(separateModule(of: kind.type) != nil, "The store type \(kind.type) is no separate module's.")
        registered.withLock { $0[kind.type] = kind }
    }

    /// The registered kind whose stores are named by URLs of this URL's scheme (a kind whose stores are not
    /// files); nil for a file URL or a scheme no registered kind claims.
    static func kind(claiming url: URL) -> StoreKind? {
        guard let scheme = url.scheme?.lowercased(), scheme != "file" else { return nil }
        return registered.withLock { kinds in kinds.values.first { $0.urlSchemes.contains(scheme) } }
    }

    /// How messages name the store at a URL, quoted: a file's path (`'/data/Notes.sqlite'`), or what the kind
    /// its scheme names says (PostgreSQL: `'team' in the PostgreSQL database 'crm'`, never a password).
    package static func storeDescription(_ url: URL) -> String {
        kind(claiming: url)?.describeURL?(url) ?? "'\(url.path)'"
    }

    /// A URL errors may carry as their file: without the password a store URL may hold, a file URL unchanged.
    package static func safeURL(_ url: URL) -> URL { kind(claiming: url)?.safeURL?(url) ?? url }

    /// The support folder beside a store of a type (``StoreKind/supportFolder(forStore:)``); for a type nobody
    /// registered, the folder named with the whole file name, as every kind but SQLite names it.
    package static func supportFolder(forStore url: URL, type: StoreType) -> URL {
        let kind = registered.withLock { $0[type] }
        return (kind ?? .xml).supportFolder(forStore: url)
    }

    /// The external data folder of a store of a type (see ``supportFolder(forStore:type:)``).
    package static func externalDataFolder(forStore url: URL, type: StoreType) -> ExternalDataFolder {
        ExternalDataFolder(storeURL: url, kind: registered.withLock { $0[type] } ?? .xml)
    }

    /// The suffixes of the side files any registered kind keeps beside its store files (SQLite's `-wal`, `-shm`,
    /// `-journal`): files a search for documents passes over.
    package static var sideFileSuffixes: [String] {
        registered.withLock { kinds in Array(Set(kinds.values.flatMap(\.sideFileSuffixes))).sorted() }
    }

    /// The suffixes of the side files any registered kind keeps that hold no data of their own
    /// (``StoreKind/derivedSideFileSuffixes``: SQLite's `-shm`): a working copy of a document leaves them out.
    package static var derivedSideFileSuffixes: [String] {
        registered.withLock { kinds in Array(Set(kinds.values.flatMap(\.derivedSideFileSuffixes))).sorted() }
    }

    /// The kind whose store files a file name extension names (compared without case), among the built-in kinds.
    static func builtInKind(forExtension ext: String) -> StoreKind? {
        let ext = ext.lowercased()
        return builtIn.first { $0.fileExtensions.contains(ext) }
    }

    /// Makes the handle and backend of a new store (not loaded yet).
    package static func makeStore(
        type: StoreType, url: URL?, configuration: String?, options: StoreOptions, model: ManagedObjectModel
    ) throws -> PersistentStore {
        let kind = try kind(for: type, url: url)
        if kind.needsFile && url == nil {
            throw QuireError(.persistentStoreOpen, "A store of type \(type) needs a file URL.")
        }
        return try PersistentStore(kind: kind, url: url, configurationName: configuration, options: options, model: model)
    }

    /// The type of the store file at `url`, told from its first bytes: the built-in kinds first, then the
    /// registered kinds that can recognise their files, by name.
    ///
    /// A URL whose scheme a kind whose stores are not files claims is a store of that kind.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` for a missing file,
    ///   ``QuireError/Code/persistentStoreInvalidType`` for a file of no known store type, or a URL of a separate
    ///   store module that is not registered (naming the module).
    package static func detectType(at url: URL) throws -> StoreType {
        if let kind = kind(claiming: url) { return kind.type }
        if let scheme = url.scheme?.lowercased(), let module = separateModules.first(where: { $0.urlSchemes.contains(scheme) }) {
            throw missingModule(module, url: url)
        }
        let handle = try BinaryStoreFormat.openForReading(url)
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        if let type = detectType(head) { return type }
        throw QuireError(
            .persistentStoreInvalidType,
            head.isEmpty
                ? "The file '\(url.path)' is empty, so its store type cannot be told; name the type."
                : "The file '\(url.path)' is not a store of any type Quire knows (SQLite, XML, binary).",
            context: .init(file: url))
    }

    /// The type whose files start with `head`, if any kind recognises it.
    package static func detectType(_ head: Data) -> StoreType? {
        for kind in builtIn where kind.recognizes?(head) == true { return kind.type }
        let custom = registered.withLock { $0.values.filter { !isBuiltIn($0.type) } }
        return custom.sorted { $0.type.rawValue < $1.type.rawValue }.first { $0.recognizes?(head) == true }?.type
    }
}
