import QuireCore
import QuireStores
import Foundation

/// A context a coordinator knows without keeping it alive.
struct WeakContextReference {
    weak var context: ManagedObjectContext?
}

extension PersistentStoreCoordinator {
    /// Remembers a context, so that Save As can tell it that its objects' IDs changed.
    func register(_ context: ManagedObjectContext) {
        locked {
            registeredContexts.removeAll { $0.context == nil || $0.context === context }
            registeredContexts.append(WeakContextReference(context: context))
        }
    }

    /// Save As (`migratePersistentStore(_:to:options:type:)`): copies a store into a new store of any type at
    /// any location, attaches the new store, removes the old one, and re-points every context's objects to
    /// the new store, so they keep working.
    ///
    /// ```swift
    /// let saved = try coordinator.migratePersistentStore(store, to: folder.appendingPathComponent("Copy.xml"), type: .xml)
    /// ```
    ///
    /// The new store is written once, under a temporary name beside `url`, and renamed into place when it is
    /// complete; documents and `quire convert` both save as through this. Records are copied in batches
    /// (memory stays bounded when the source is SQLite); relationships are rebuilt; the metadata is carried over with the new type and a new UUID; external data files are
    /// hard-linked into the new store's folder (copied across file systems), never lost. The options apply to
    /// the new store as to any added store.
    ///
    /// Call it from a context's queue or a thread that no context's queue waits for: the coordinator runs each
    /// context's re-pointing on that context's queue.
    ///
    /// - Parameters:
    ///   - store: An attached store.
    ///   - url: Where the new store goes (nil for an in-memory store); nothing may be there yet, except the
    ///     store itself: then the new store replaces it once it is complete (how a document changes its store
    ///     type).
    ///   - options: The new store's options.
    ///   - type: The new store's type.
    ///   - progress: Called after each batch of records with the number copied so far and the total (on the
    ///     calling thread, under the coordinator's lock: keep it short).
    /// - Returns: The new store, attached.
    /// - Throws: ``QuireError`` when the target is bad or unwritable, the disk is full, or the source cannot be
    ///   read (a missing external data file included). The source store stays attached and unchanged, and
    ///   whatever was written of the target is removed.
    @discardableResult
    public func migratePersistentStore(
        _ store: PersistentStore, to url: URL?, options: StoreOptions = StoreOptions(), type: StoreType,
        progress: (@Sendable (_ copied: Int, _ total: Int) -> Void)? = nil
    ) throws -> PersistentStore {
        let (target, map) = try locked { try migrateLocked(store, to: url, options: options, type: type, progress: progress) }
        let contexts = locked { registeredContexts.compactMap(\.context) }
        for context in contexts { context.performAndWait { context.storeDidMigrate(map) } }
        return target
    }

    private func migrateLocked(
        _ store: PersistentStore, to url: URL?, options: StoreOptions, type: StoreType,
        progress: (@Sendable (Int, Int) -> Void)?
    ) throws -> (PersistentStore, StoreMigrationMap) {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw QuireError(.persistentStoreOperation, "The store \(store) is not attached to this coordinator.")
        }
        try options.checkExternalRecordOptions()
        let kind = try StoreKinds.kind(for: type, url: url)
        let replacesSource = url != nil && url?.standardizedFileURL == store.url?.standardizedFileURL
        if let url {
            if !replacesSource && FileManager.default.fileExists(atPath: url.path) {
                throw QuireError(
                    .persistentStoreOperation,
                    "Save As needs a new location, but '\(url.path)' already exists; destroy or replace it first.",
                    context: .init(file: url))
            }
            // A support folder already there belongs to another store (`Photos.sqlite` and `Photos.db` share
            // Core Data's `.Photos_SUPPORT`): sharing it, each store would collect the other's files.
            let support = kind.supportFolder(forStore: url)
            let sourceSupport = store.url.map { store.kind.supportFolder(forStore: $0) }
            if kind.needsFile, !(replacesSource && sourceSupport == support),
                FileManager.default.fileExists(atPath: support.path) {
                throw QuireError(
                    .persistentStoreOperation,
                    "Save As to '\(url.path)' would share the external data folder '\(support.path)' with another store; "
                        + "choose another name.",
                    context: .init(file: support))
            }
        } else if kind.needsFile {
            throw QuireError(.persistentStoreOperation, "Save As to a \(type) store needs a file URL.")
        }
        // The new store is written once, under a temporary name beside its final location (with a support
        // folder of its own, so it never shares external data files with another store), then renamed there.
        // Kinds whose files Quire does not own (custom incremental stores keep their own) are written in place.
        let staging = kind.needsFile
            ? url.map { url in
                if let stagingURL = kind.stagingURL { return stagingURL(url) }
                return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent)-saveas-\(UUID().uuidString)")
            }
            : url
        var writable = options
        writable.isReadOnly = false
        var made: PersistentStore?
        var replacedRecords: ExternalRecordFolder?   // the external records of a source replaced in place
        do {
            let target: PersistentStore
            let map: StoreMigrationMap
            if let staging, copiesByFile(store, to: kind, options: options) {
                // The same kind of file with the same model: a copy of the file (for SQLite the checkpointed file,
                // or the backup API's copy) is the new store, given a UUID of its own; its external data files are
                // linked, not read.
                try store.backend.writeSnapshot(to: staging)
                target = try StoreKinds.makeStore(
                    type: type, url: staging, configuration: store.configurationName, options: writable, model: managedObjectModel)
                made = target
                try target.backend.load()
                target.identifier = UUID().uuidString
                target.metadata = StoreMetadataKey.migrated(
                    store.metadata, type: type, uuid: target.identifier, model: managedObjectModel, keepsLayout: true)
                target.metadataIsDirty = true
                // The copy opens without the application: it embeds the model it was copied with (a Mac store's
                // copy has only Core Data's cache, or no model at all).
                try target.backend.embedModel(managedObjectModel)
                let names = try StoreMigration.checkedExternalData(of: store)
                if let from = store.backend.externalDataFolder, let to = target.backend.externalDataFolder, !names.isEmpty {
                    try to.createIfNeeded()
                    for name in names.sorted() { try to.link(name, from: from) }
                }
                _ = try target.backend.save(SaveRequest())
                map = StoreMigrationMap(source: store, target: target, offsets: [:])
                progress?(1, 1)
            } else {
                target = try StoreKinds.makeStore(
                    type: type, url: staging, configuration: store.configurationName, options: writable, model: managedObjectModel)
                made = target
                try target.backend.load()
                target.metadata = StoreMetadataKey.migrated(store.metadata, type: type, uuid: target.identifier, model: managedObjectModel)
                target.metadataIsDirty = true
                map = try StoreMigration.copy(from: store, to: target, progress: progress)
            }
            if let url {
                if replacesSource {
                    // The source's files are replaced now: close it first, and remove what the new kind does not.
                    replacedRecords = externalRecordFolders[ObjectIdentifier(store)]
                    try remove(store)
                    for suffix in store.kind.sideFileSuffixes where !kind.sideFileSuffixes.contains(suffix) {
                        try? FileManager.default.removeItem(atPath: url.path + suffix)
                    }
                }
                if staging != url { try target.backend.rename(to: url, kind: kind) }
                if replacesSource, let old = store.url {
                    // A kind whose folder is named otherwise leaves the old folder behind: it is the old store's.
                    let oldSupport = store.kind.supportFolder(forStore: old)
                    if oldSupport != kind.supportFolder(forStore: url) {
                        try? FileManager.default.removeItem(at: oldSupport)
                    }
                }
            }
            var attached = target
            if options.isReadOnly {
                try target.backend.close()
                attached = try StoreKinds.makeStore(
                    type: type, url: url, configuration: store.configurationName, options: options, model: managedObjectModel)
                try attached.backend.load()
            }
            attached.coordinatorReference = self
            appendStore(attached)
            if let replacedRecords, replacedRecords.store.identifier != attached.identifier { replacedRecords.removeRecords() }
            if !replacesSource { try? remove(store) }
            return (attached, map.retargeted(to: attached))
        } catch {
            try? made?.backend.close()
            if let staging, staging != url || !replacesSource { try? kind.removeFiles(at: staging, includingExternalData: staging != url) }
            if replacesSource && !persistentStores.contains(where: { $0 === store }) {
                // The source was closed for the rename and its file is still there: attach it again.
                try? store.backend.load()
                store.coordinatorReference = self
                appendStore(store)
            }
            let cause = error as? QuireError
            throw QuireError(
                cause?.code ?? .migration,
                "Save As of the store '\(store.url?.path ?? "memory")' to '\(url?.path ?? "memory")' failed; the store is "
                    + "unchanged: \(cause?.message ?? String(describing: error))",
                context: cause?.context ?? .init(file: url), underlying: cause ?? QuireUnderlyingError(error))
        }
    }
}

extension PersistentStoreCoordinator {
    /// Whether Save As can copy the store's file instead of its records: the same kind, one whose stores are
    /// copied by cloning their file (``StoreKind/copiesByCloning``), the same model (the coordinator's), and
    /// external data kept the same way on both sides.
    func copiesByFile(_ store: PersistentStore, to kind: StoreKind, options: StoreOptions) -> Bool {
        store.type == kind.type && kind.copiesByCloning && store.url != nil
            && store.options.storesExternalDataInline == options.storesExternalDataInline
            && !store.options.storesExternalDataInline
    }
}

extension StoreMetadataKey {
    /// The metadata of a store made by Save As: the source's keys, the new type and UUID, the model's hashes; not
    /// the source's persistent history (the new store's starts empty, as in Core Data). A copy of the source's file
    /// (`keepsLayout`) keeps the source's `NSPersistenceFrameworkVersion`: its tables are still laid out, and its
    /// indexes named, as that version of Core Data made them.
    package static func migrated(
        _ metadata: [String: PropertyListValue], type: StoreType, uuid: String, model: ManagedObjectModel, keepsLayout: Bool = false
    ) -> [String: PropertyListValue] {
        var result = metadata
        result[persistentHistory] = nil
        for (key, value) in standard(type: type, uuid: uuid, model: model) {
            if keepsLayout && key == persistenceFrameworkVersion && metadata[key] != nil { continue }
            result[key] = value
        }
        return result
    }
}
