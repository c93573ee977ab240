import Foundation

extension PersistentStoreCoordinator {
    /// Registers a custom atomic store format under a store type (`registerStoreClass(_:type:)`), so that
    /// ``addPersistentStore(type:configuration:at:options:)``, the metadata functions and Save As know it.
    ///
    /// ```swift
    /// PersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: StoreType(rawValue: "JSON"))
    /// ```
    ///
    /// Registering a built-in type (`SQLite`, `XML`, `Binary`, `InMemory`) is a programmer error.
    public static func registerStoreClass(_ coder: any AtomicStoreCoder.Type, forStoreType type: StoreType) {
        precondition(!StoreRegistry.isBuiltIn(type), "The store type \(type) is built in and cannot be replaced.")
        let read: StoreRegistry.MetadataReader = { url, _ in
            let data = try Data(contentsOf: url)
            return try coder.init().decode(data, from: url, model: ManagedObjectModel()).metadata
        }
        StoreRegistry.register(
            StoreRegistry.Entry(
                make: { url, configuration, options, model in
                    CustomAtomicStore(
                        coder: coder.init(), type: type, url: url, configurationName: configuration, options: options, model: model)
                },
                readMetadata: read,
                writeMetadata: { metadata, url, options in
                    throw QuireError(
                        .persistentStoreUnsupportedRequestType,
                        "The \(type) store's metadata is written by adding the store and saving, not in place ('\(url.path)').",
                        context: .init(file: url))
                },
                detect: { coder.recognizes($0) }),
            for: type)
    }

    /// Registers a custom incremental store under a store type (`registerStoreClass(_:type:)`).
    ///
    /// ```swift
    /// PersistentStoreCoordinator.registerStoreClass(FolderStore.self, forStoreType: StoreType(rawValue: "Folder"))
    /// ```
    ///
    /// Registering a built-in type is a programmer error.
    public static func registerStoreClass(_ backend: any IncrementalStoreBackend.Type, forStoreType type: StoreType) {
        precondition(!StoreRegistry.isBuiltIn(type), "The store type \(type) is built in and cannot be replaced.")
        nonisolated(unsafe) let backend = backend
        StoreRegistry.register(
            StoreRegistry.Entry(
                make: { url, configuration, options, model in
                    CustomIncrementalStore(
                        backend: try backend.init(url: url, options: options, model: model), type: type, url: url,
                        configurationName: configuration, options: options, model: model)
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
                },
                detect: nil),
            for: type)
    }
}
