import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
            guard persistentStores.contains(where: { $0 === store }), let old = store.url else {
                throw QuireError(.persistentStoreOperation, "The store \(store) is not an attached store with a file.", context: .init(file: url))
            }
            guard persistentStore(for: url) == nil || persistentStore(for: url) === store else {
                throw QuireError(.persistentStoreOperation, "Another store of the coordinator is at '\(url.path)'.", context: .init(file: url))
            }
            rowCache = rowCache.filter { $0.key.persistentStore !== store }
            if let atomic = store as? AtomicStore {
                let from = ExternalDataFolder(storeURL: old)
                let to = ExternalDataFolder(storeURL: url)
                atomic.url = url
                do {
                    let names = Set(atomic.nodes.values.flatMap { node in
                        node.attributes.compactMap { value -> String? in
                            if case .externalData(let reference) = value { return reference.uuid }
                            return nil
                        }
                    })
                    if !names.isEmpty { try to.createIfNeeded() }
                    for name in names.sorted() { try to.link(name, from: from) }
                    try atomic.writeFile()
                } catch {
                    atomic.url = old
                    throw error
                }
            } else if let sqlite = store as? SQLiteStore {
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw QuireError(
                        .fileReadNoSuchFile, "There is no SQLite store at '\(url.path)'; move the store there before setting its URL.",
                        context: .init(file: url))
                }
                try sqlite.close()
                sqlite.url = url
                do {
                    try sqlite.load()
                } catch {
                    sqlite.url = old
                    try? sqlite.load()
                    throw error
                }
            } else {
                store.url = url
            }
        }
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
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue, StoreRegistry.isBuiltIn(type) {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            if size > 0 {
                let detected = try StoreTypeDetection.detect(at: url)
                guard detected == type else {
                    throw QuireError(
                        .persistentStoreTypeMismatch, "The file '\(url.path)' is a \(detected) store, not \(type); it was not deleted.",
                        context: .init(file: url))
                }
            }
        }
        try Self.removeStoreFiles(at: url)
    }

    /// Removes a store file, its SQLite companions and its support folder.
    static func removeStoreFiles(at url: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = url.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw QuireError(
                    .fileWriteNoPermission, "Could not delete '\(path)'.", context: .init(file: url), underlying: QuireUnderlyingError(error))
            }
        }
        try? FileManager.default.removeItem(at: ExternalDataFolder.supportFolder(forStore: url))
        _ = quire_fsync_directory(url.deletingLastPathComponent().path)
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
        let sourceType = StoreRegistry.isBuiltIn(type) ? try StoreTypeDetection.detect(at: sourceURL) : type
        do {
            if sourceType == type && [StoreType.sqlite, .xml, .binary].contains(type) {
                try Self.cloneStoreFiles(from: sourceURL, to: temporary, type: type)
            } else {
                var readOnly = sourceOptions
                readOnly.isReadOnly = true
                let converter = try PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
                let source = try converter.addPersistentStore(type: sourceType, at: sourceURL, options: readOnly)
                let made = try converter.migratePersistentStore(source, to: temporary, options: destinationOptions, type: type)
                try converter.remove(made)
            }
        } catch {
            try? Self.removeStoreFiles(at: temporary)
            throw error
        }
        try Self.removeStoreFiles(at: destinationURL)
        guard rename(temporary.path, destinationURL.path) == 0 else {
            let code = errno
            try? Self.removeStoreFiles(at: temporary)
            throw AtomicFileWriter.error(code, "move the new store into", destinationURL)
        }
        let temporarySupport = ExternalDataFolder.supportFolder(forStore: temporary)
        if FileManager.default.fileExists(atPath: temporarySupport.path) {
            _ = rename(temporarySupport.path, ExternalDataFolder.supportFolder(forStore: destinationURL).path)
        }
        _ = quire_fsync_directory(folder.path)
    }

    /// Clones a store file (after an SQLite checkpoint) and links its external data files.
    private static func cloneStoreFiles(from source: URL, to target: URL, type: StoreType) throws {
        if type == .sqlite, try SQLiteFileCheck.check(source, readOnly: true) == .database,
            FileManager.default.fileExists(atPath: source.path + "-wal")
        {
            let connection = try SQLiteConnection(url: source, readOnly: false, create: false)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()
        }
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw AtomicFileWriter.error(errno, "open", source) }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw AtomicFileWriter.error(errno, "create", target) }
        defer { close(output) }
        guard quire_clone_file(input, output) >= 0, fsync(output) == 0 else { throw AtomicFileWriter.error(errno, "copy into", target) }
        let from = ExternalDataFolder(storeURL: source)
        let names = from.fileNames()
        guard !names.isEmpty else { return }
        let to = ExternalDataFolder(storeURL: target)
        try to.createIfNeeded()
        for name in names { try to.link(name, from: from) }
        _ = quire_fsync_directory(to.url.path)
    }
}
