import QuireCore
import QuireStores
import Foundation

/// The model a store was written with, as automatic migration finds it, and the versions to migrate through.
struct MigrationSource {
    /// The model the store was written with.
    var model: ManagedObjectModel
    /// The versions from ``model`` to the coordinator's model, oldest first (both included), when the source is a
    /// version of the coordinator's `.xcdatamodeld`; a single hop otherwise.
    var chain: [ManagedObjectModel]?
    /// Where the model came from, for messages.
    var origin: String
}

extension PersistentStoreCoordinator {
    /// Finds the model an incompatible store was written with, as Core Data does when it opens an old store with the
    /// application's newest model: the model Quire embeds in its stores; else the version of the coordinator's
    /// `.xcdatamodeld` (``ManagedObjectModel/versionBundleURL``) whose entity version hashes are the store's
    /// (`NSStoreModelVersionHashes`); else the model Core Data cached in the store (`Z_MODELCACHE`), or the version of
    /// the bundle with the same hashes as that cache. Nil when none is found.
    func migrationSource(storeAt url: URL, kind: StoreKind, contents: StoreKind.FileContents) throws -> MigrationSource? {
        if let data = contents.model, let model = try? ManagedObjectModel(serializedRepresentation: data) {
            return MigrationSource(model: model, chain: nil, origin: "the model embedded by Quire")
        }
        let bundle = try managedObjectModel.versionBundleURL.map { try ModelBundle(contentsOf: $0) }
        /// The versions from `start` to the coordinator's model; nil when `start` is not older than it.
        func chain(from start: Int, in bundle: ModelBundle) -> [ManagedObjectModel]? {
            let destination = bundle.models.lastIndex { $0.hasVersionHashes(managedObjectModel.entityVersionHashesByName) } ?? bundle.models.count
            guard start < destination else { return nil }
            return bundle.models[start..<destination] + [managedObjectModel]
        }
        if let bundle, let start = bundle.models.lastIndex(where: { $0.isConfiguration(nil, compatibleWithStoreMetadata: contents.metadata) }) {
            return MigrationSource(
                model: bundle.models[start], chain: chain(from: start, in: bundle),
                origin: "version '\(bundle.versionNames[start])' of '\(bundle.url.lastPathComponent)', by its version hashes")
        }
        if let cache = try kind.readModelCache(url) {
            let cached = try ManagedObjectModel(modelCache: cache, file: url)
            if let bundle, let start = bundle.models.lastIndex(where: { $0.hasVersionHashes(cached.entityVersionHashesByName) }) {
                return MigrationSource(
                    model: bundle.models[start], chain: chain(from: start, in: bundle),
                    origin: "version '\(bundle.versionNames[start])' of '\(bundle.url.lastPathComponent)', the model cached in the store")
            }
            return MigrationSource(model: cached, chain: nil, origin: "the model Core Data cached in the store (Z_MODELCACHE)")
        }
        return nil
    }
}
