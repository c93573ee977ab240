import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Registers a custom atomic store format under a store type (`registerStoreClass(_:type:)`), so that
    /// ``addPersistentStore(type:configuration:at:options:)``, the metadata functions and Save As know it.
    ///
    /// ```swift
    /// PersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: StoreType(rawValue: "JSON"))
    /// ```
    ///
    /// Registering a built-in type (`SQLite`, `XML`, `Binary`, `InMemory`) is a programmer error. The kind
    /// joins the one registry the built-in kinds are in, so files, metadata and Save As treat it alike.
    public static func registerStoreClass(_ coder: any AtomicStoreCoder.Type, forStoreType type: StoreType) {
        var kind = StoreKind(
            type: type,
            makeBackend: { CustomAtomicStore(coder: coder.init(), store: $0) },
            readMetadata: { url, _ in
                let data = try Data(contentsOf: url)
                return try coder.init().decode(data, from: url, model: ManagedObjectModel()).metadata
            },
            writeMetadata: { _, url, _ in
                throw QuireError(
                    .persistentStoreUnsupportedRequestType,
                    "The \(type) store's metadata is written by adding the store and saving, not in place ('\(url.path)').",
                    context: .init(file: url))
            })
        kind.recognizes = { coder.recognizes($0) }
        kind.copiesByCloning = false
        StoreKinds.register(kind)
    }

    /// Registers a custom incremental store under a store type (`registerStoreClass(_:type:)`).
    ///
    /// ```swift
    /// PersistentStoreCoordinator.registerStoreClass(FolderStore.self, forStoreType: StoreType(rawValue: "Folder"))
    /// ```
    ///
    /// Registering a built-in type is a programmer error.
    public static func registerStoreClass(_ backend: any IncrementalStoreBackend.Type, forStoreType type: StoreType) {
        // Metatypes of a protocol are not Sendable in general; this one names a class the user registers
        // once, whose `init` and static members the kind only calls.
        nonisolated(unsafe) let backend = backend
        let kind = StoreKind(
            type: type, needsFile: false,
            makeBackend: { store in
                CustomIncrementalStore(
                    backend: try backend.init(url: store.url, options: store.options, model: store.model), store: store)
            },
            readMetadata: { url, options in
                guard let metadata = try backend.init(url: url, options: options, model: ManagedObjectModel()).loadMetadata() else {
                    throw QuireError(.fileReadNoSuchFile, "There is no \(type) store at '\(url.path)'.", context: .init(file: url))
                }
                return metadata
            },
            writeMetadata: { metadata, url, options in
                let instance = try backend.init(url: url, options: options, model: ManagedObjectModel())
                let existing = try instance.loadMetadata() ?? [:]
                try instance.save(IncrementalStoreChanges(metadata: StoreMetadataKey.merged(metadata, existing: existing, type: type)))
                try instance.close()
            })
        StoreKinds.register(kind)
    }
}
