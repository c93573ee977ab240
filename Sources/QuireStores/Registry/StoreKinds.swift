import Foundation
import QuireCore

/// The one registry of store kinds: the built-in ones and those users register, by type.
///
/// Adding a store kind means describing it once (a ``StoreKind``) and registering it here; the coordinator,
/// migration, documents and tools ask this registry and never name a store class.
package enum StoreKinds {
    /// The built-in kinds, in the order file detection tries them.
    package static let builtIn: [StoreKind] = [.sqlite, .binary, .xml, .inMemory, .postgres]

    private static let registered = LockedValue<[StoreType: StoreKind]>(
        Dictionary(uniqueKeysWithValues: builtIn.map { ($0.type, $0) }))

    /// Whether a type is one of Quire's own.
    package static func isBuiltIn(_ type: StoreType) -> Bool { builtIn.contains { $0.type == type } }

    /// The kind of a store type.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreInvalidType`` for a type nobody registered.
    package static func kind(for type: StoreType, url: URL? = nil) throws -> StoreKind {
        guard let kind = registered.withLock({ $0[type] }) else {
            throw QuireError(
                .persistentStoreInvalidType, "The store type '\(type)' is not one Quire knows.", context: .init(file: url))
        }
        return kind
    }

    /// Registers a custom kind. Replacing a built-in kind is a programmer error.
    package static func register(_ kind: StoreKind) {
        precondition(!isBuiltIn(kind.type), "The store type \(kind.type) is built in and cannot be replaced.")
        registered.withLock { $0[kind.type] = kind }
    }

    /// Makes the handle and backend of a new store (not loaded yet).
    package static func makeStore(
        type: StoreType, url: URL?, configuration: String?, options: StoreOptions, model: ManagedObjectModel
    ) throws -> PersistentStore {
        let kind = try kind(for: type, url: url)
        if kind.needsFile && url == nil {
            throw QuireError(.persistentStoreOpen, "A store of type \(type) needs a file URL.")
        }
        return try PersistentStore(
            type: type, url: url, configurationName: configuration, options: options, model: model, makeBackend: kind.makeBackend)
    }

    /// The type of the store file at `url`, told from its first bytes: the built-in kinds first, then the
    /// registered kinds that can recognise their files, by name.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` for a missing file,
    ///   ``QuireError/Code/persistentStoreInvalidType`` for a file of no known store type.
    package static func detectType(at url: URL) throws -> StoreType {
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
