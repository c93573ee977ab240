import QuireCore
import QuireStores
import Foundation


extension PersistentStoreCoordinator {
    /// Changes the location of an attached store (`setURL(_:for:)`).
    ///
    /// An atomic store (XML, binary, custom) writes itself at the new location at once, with its external
    /// data files linked into the new folder. An SQLite store reopens at the new location: move the file
    /// (and its support folder) there first.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` for an in-memory or detached store, or a
    ///   location another attached store uses; file errors. On failure the store keeps its old location.
    public func setURL(_ url: URL, for store: PersistentStore) throws {
        try locked {
            guard persistentStores.contains(where: { $0 === store }), store.url != nil else {
                throw QuireError(.persistentStoreOperation, "The store \(store) is not an attached store with a file.", context: .init(file: url))
            }
            guard persistentStore(for: url) == nil || persistentStore(for: url) === store else {
                throw QuireError(.persistentStoreOperation, "Another store of the coordinator is at '\(url.path)'.", context: .init(file: url))
            }
            rowCache = rowCache.filter { !$0.key.isStored(in: store) }
            try store.backend.relocate(to: url)
            externalRecordsStoreDidMove(store)
        }
    }

    /// Writes a consistent copy of an attached store's file to a new path, under the coordinator's lock (the
    /// safe save of documents; SQLite copies its checkpointed file, or uses its backup API).
    func writeSnapshot(of store: PersistentStore, to destination: URL) throws {
        try locked { try store.backend.writeSnapshot(to: destination) }
    }

    /// Deletes a store's files (`destroyPersistentStore(at:type:options:)`): the store file, SQLite's
    /// `-wal`, `-shm` and `-journal` files, and the support folder of its external data. A store of this
    /// coordinator at that location is removed first.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreTypeMismatch`` when the file is a store of another type and
    ///   ``QuireError/Code/persistentStoreInvalidType`` when it is no store at all (nothing is deleted then).
    public func destroyPersistentStore(at url: URL, type: StoreType, options: StoreOptions = StoreOptions()) throws {
        try locked {
            if let attached = persistentStore(for: url) { try remove(attached) }
        }
        let kind = try StoreKinds.kind(for: type, url: url)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue, StoreKinds.isBuiltIn(type) {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            if size > 0 {
                let detected = try StoreKinds.detectType(at: url)
                guard detected == type else {
                    throw QuireError(
                        .persistentStoreTypeMismatch, "The file '\(url.path)' is a \(detected) store, not \(type); it was not deleted.",
                        context: .init(file: url))
                }
            }
        }
        removeExternalRecords(ofStoreAt: url, type: type, options: options)
        try kind.removeFiles(at: url)
    }

    /// Replaces the store at one location with a copy of the store at another
    /// (`replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`).
    ///
    /// When the source already is a store of `type`, its files are cloned (a reflink where the file system
    /// shares blocks, a copy otherwise; SQLite's WAL is checkpointed first) and its external data files
    /// hard-linked, without reading the graph. Otherwise the source is converted through Save As.
    /// The new copy is built beside the destination and renamed into place.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` when the destination is attached to this
    ///   coordinator; read and write errors. The destination is unchanged when building the copy fails.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: StoreOptions = StoreOptions(),
        withPersistentStoreFrom sourceURL: URL, sourceOptions: StoreOptions = StoreOptions(), type: StoreType
    ) throws {
        guard destinationURL.standardizedFileURL != sourceURL.standardizedFileURL else { return }
        guard persistentStore(for: destinationURL) == nil else {
            throw QuireError(
                .persistentStoreOperation, "The store at '\(destinationURL.path)' is attached to this coordinator; remove it first.",
                context: .init(file: destinationURL))
        }
        let folder = destinationURL.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(destinationURL.deletingPathExtension().lastPathComponent)-\(UUID().uuidString)")
        let kind = try StoreKinds.kind(for: type, url: destinationURL)
        let sourceType = StoreKinds.isBuiltIn(type) ? try StoreKinds.detectType(at: sourceURL) : type
        do {
            if sourceType == type && kind.copiesByCloning {
                try kind.cloneFiles(from: sourceURL, to: temporary)
            } else {
                var readOnly = sourceOptions
                readOnly.isReadOnly = true
                let converter = try PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
                let source = try converter.addPersistentStore(type: sourceType, at: sourceURL, options: readOnly)
                let made = try converter.migratePersistentStore(source, to: temporary, options: destinationOptions, type: type)
                try converter.remove(made)
            }
        } catch {
            try? kind.removeFiles(at: temporary)
            throw error
        }
        try kind.removeFiles(at: destinationURL)
        do {
            try kind.moveFiles(from: temporary, to: destinationURL)
        } catch {
            try? kind.removeFiles(at: temporary)
            throw error
        }
    }
}
