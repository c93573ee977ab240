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
    /// Registering a built-in type (`SQLite`, `XML`, `Binary`, `InMemory`), or `PostgreSQL` (the type of the
    /// `QuirePostgres` module, which registers itself when `StoreType.postgres` is first used), is a programmer
    /// error. The kind joins the one registry the built-in kinds are in, so files, metadata and Save As treat it
    /// alike.
    public static func registerStoreClass(_ coder: any AtomicStoreCoder.Type, forStoreType type: StoreType) {
        StoreKinds.register(.customAtomic(coder, type: type))
    }

    /// Registers a custom incremental store under a store type (`registerStoreClass(_:type:)`).
    ///
    /// ```swift
    /// PersistentStoreCoordinator.registerStoreClass(FolderStore.self, forStoreType: StoreType(rawValue: "Folder"))
    /// ```
    ///
    /// Registering a built-in type is a programmer error.
    public static func registerStoreClass(_ backend: any IncrementalStoreBackend.Type, forStoreType type: StoreType) {
        StoreKinds.register(.customIncremental(backend, type: type))
    }
}
