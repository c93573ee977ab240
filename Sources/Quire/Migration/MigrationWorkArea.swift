import QuireCore
import QuireStores
import Foundation

/// Where a migration builds the new version of a store, beside it, and how it puts it in place: for a store file,
/// a private folder beside it (`.<name>.migration-<UUID>`) with a subfolder per new store, swapped in by a rename
/// (``MigrationFiles``); for a kind whose stores are not files, the places its descriptor names
/// (``StoreKind/migrationStagingURL``: PostgreSQL's schemas beside the store's), swapped in by its
/// ``StoreKind/replaceStore`` (one transaction). Either way the store is untouched until the swap, and
/// ``removeAll()`` leaves nothing behind.
///
/// Used on the migration's thread only.
final class MigrationWorkArea {
    /// The store the new versions are for.
    let store: URL
    /// Its kind.
    let kind: StoreKind
    /// The private folder, for a store file.
    private let folder: URL?
    /// The new stores made so far and not yet swapped in or discarded.
    private var locations: [URL] = []
    private var made = 0

    /// Readies a work area beside a store (a file store's leftover folders from a crashed migration are removed).
    ///
    /// - Throws: ``QuireError/Code/migrationManagerSourceStore`` for a store that is not a file, of a kind that
    ///   cannot migrate in place (no ``StoreKind/migrationStagingURL``), before anything is written.
    init(beside store: URL, kind: StoreKind) throws {
        self.store = store
        self.kind = kind
        if store.isFileURL {
            folder = try MigrationFiles.makeWorkFolder(for: store)
        } else if kind.migrationStagingURL != nil, kind.replaceStore != nil {
            folder = nil
        } else {
            throw QuireError(
                .migrationManagerSourceStore,
                "The store \(StoreKinds.storeDescription(store)) is not a file, and its store type (\(kind.type)) cannot build "
                    + "a migrated version beside it. Move it into a file (migratePersistentStore), migrate it there and move it back.",
                context: .init(file: StoreKinds.safeURL(store)))
        }
    }

    /// A new place for a store of the kind, where nothing is yet.
    func newLocation() throws -> URL {
        made += 1
        let location: URL
        if let folder {
            let subfolder = folder.appendingPathComponent("\(made)")
            try MigrationFiles.createFolder(subfolder)
            location = subfolder.appendingPathComponent(store.lastPathComponent)
        } else if let staging = kind.migrationStagingURL {
            location = staging(store)
        } else {
            throw QuireError(.migrationManagerDestinationStore, "No place to build the migrated store.")
        }
        locations.append(location)
        return location
    }

    /// Removes a new store that is not needed any more; failures are ignored (for files, the next migration
    /// retries).
    func discard(_ location: URL) {
        locations.removeAll { $0 == location }
        if folder != nil {
            MigrationFiles.removeWorkFolder(location.deletingLastPathComponent())
        } else {
            try? kind.removeFiles(at: location)
        }
    }

    /// Removes every new store left (after an error, or the folder once the last one is swapped in).
    func removeAll() {
        for location in locations { discard(location) }
        if let folder { MigrationFiles.removeWorkFolder(folder) }
    }

    /// Whether a store exists at a place of this kind (a file, or a schema holding a store).
    func storeExists(at url: URL) -> Bool {
        url.isFileURL ? FileManager.default.fileExists(atPath: url.path) : (try? kind.readMetadata(url, StoreOptions())) != nil
    }

    /// Copies a closed store into a new place: a file store by cloning its file (``StoreKind/cloneFiles(from:to:)``),
    /// any other by migrating it to its own model version, which keeps its objects, metadata and identity.
    func copy(_ source: URL, to target: URL, model: ManagedObjectModel, options: StoreOptions) throws {
        if folder != nil {
            try kind.cloneFiles(from: source, to: target)
            return
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: model, destinationModel: model)
        try MigrationManager(sourceModel: model, destinationModel: model).writeMigratedStore(
            from: source, type: kind.type, options: options, mapping: mapping, to: target, type: kind.type, options: options,
            keepsIdentity: true)
    }

    /// Puts the finished store at `staged` (one of this area's) in place of the store at `target`, atomically.
    ///
    /// - Throws: ``QuireError/Code/migrationManagerDestinationStore`` when the target is still open elsewhere or
    ///   the swap fails; the target is unchanged then.
    func replace(_ target: URL, with staged: URL) throws {
        if folder != nil {
            try MigrationFiles.replace(target, with: staged, kind: kind)
        } else if let replaceStore = kind.replaceStore {
            try replaceStore(target, staged)
        }
        locations.removeAll { $0 == staged }
    }
}
