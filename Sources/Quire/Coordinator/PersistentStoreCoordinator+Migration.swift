import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// What ``addPersistentStore(type:configuration:at:options:)`` does when a store reports it was written with
    /// another model version: migrate it with an inferred mapping when the options ask for that
    /// (``StoreOptions/migratesAutomatically`` and ``StoreOptions/infersMappingModel``, Core Data's
    /// `NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`) and return the
    /// store opened afresh; otherwise throw an "incompatible model" error naming what differs.
    ///
    /// The store's own model comes from the copy every Quire store embeds, so the application needs no copy of
    /// its old model versions; for a store Core Data wrote, from the version of the model's `.xcdatamodeld` whose
    /// version hashes the store records, else from the model Core Data cached in the store (see
    /// ``migrationSource(storeAt:kind:contents:)``).
    ///
    /// - Parameters:
    ///   - failed: The store that refused to load.
    ///   - error: Its error.
    /// - Returns: The migrated store, loaded.
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleVersionHash`` naming the entities and properties
    ///   that differ; ``QuireError/Code/inferredMappingModel`` naming the entity and property inference cannot
    ///   map; ``QuireError/Code/migrationMissingSourceModel`` for a store without an embedded model; any error of
    ///   ``MigrationManager/migrateStore(at:type:options:mapping:)``. The store file is unchanged after any error.
    /// The advice of the incompatible-model error, in a store's terms (a document replaces it with its own).
    package static let migrationOptionsAdvice =
        "add it with the options migratesAutomatically and infersMappingModel (NSMigratePersistentStoresAutomaticallyOption, "
        + "NSInferMappingModelAutomaticallyOption) to migrate it, or migrate it with MigrationManager."

    /// The advice of the missing-mapping-model error, in a store's terms (a document replaces it with its own).
    package static let mappingOptionAdvice =
        "set infersMappingModel (NSInferMappingModelAutomaticallyOption) or migrate it with MigrationManager and a mapping model."

    func storeMigratedAfterIncompatibleVersion(_ failed: PersistentStore, error: QuireError) throws -> PersistentStore {
        guard let url = failed.url, let kind = try? StoreKinds.kind(for: failed.type),
            let contents = try? kind.readContents(at: url)
        else { throw error }
        let options = failed.options
        let place = StoreKinds.storeDescription(url)
        if let staged = options.stagedMigrationManager as? StagedMigrationManager {
            guard !options.isReadOnly else {
                throw QuireError(
                    .persistentStoreIncompatibleVersionHash,
                    "The store \(place) was written with an earlier model version and was added read-only, so its staged migration "
                        + "cannot run.",
                    context: .init(file: StoreKinds.safeURL(url)), underlying: error)
            }
            try staged.migrateStore(at: url, type: failed.type, options: options, to: managedObjectModel)
            return try reopened(failed, at: url, options: options)
        }
        let source = try migrationSource(storeAt: url, kind: kind, contents: contents)
        let storedModel = source?.model
        let difference =
            storedModel.map { ModelDifference(from: $0, to: managedObjectModel) }
            ?? ModelDifference(
                storeVersionHashes: ManagedObjectModel.versionHashes(fromStoreMetadata: contents.metadata), model: managedObjectModel)
        guard options.migratesAutomatically else {
            throw QuireError(
                .persistentStoreIncompatibleVersionHash,
                "The store \(place) was written with an incompatible model (\(difference)); "
                    + Self.migrationOptionsAdvice,
                context: .init(file: StoreKinds.safeURL(url)), underlying: error)
        }
        guard !options.isReadOnly else {
            throw QuireError(
                .persistentStoreIncompatibleVersionHash,
                "The store \(place) was written with an incompatible model (\(difference)) and was added read-only, "
                    + "so it cannot be migrated.",
                context: .init(file: StoreKinds.safeURL(url)), underlying: error)
        }
        guard let storedModel else {
            throw QuireError(
                .migrationMissingSourceModel,
                "The store \(place) was written with an incompatible model (\(difference)); it does not embed or "
                    + "cache the model it was written with, and no version of the model's .xcdatamodeld has its version "
                    + "hashes; migrate it with MigrationManager and that model.",
                context: .init(file: StoreKinds.safeURL(url)), underlying: error)
        }
        let searched = mappingModelSearchURLs(options)
        do {
            if let chain = source?.chain {
                // Through each version of the bundle: each step with the application's mapping model for it, or
                // inferred.
                try MigrationManager.migrateStore(
                    at: url, type: failed.type, options: options, versions: chain, mappingModelURLs: searched,
                    infersMappingModels: options.infersMappingModel)
            } else {
                let found = try MappingModel(from: searched, forSourceModel: storedModel, destinationModel: managedObjectModel)
                guard let mapping = try found ?? (options.infersMappingModel
                    ? MappingModel.inferredMappingModel(forSourceModel: storedModel, destinationModel: managedObjectModel) : nil)
                else {
                    throw QuireError(
                        .migrationMissingMappingModel,
                        "The store \(place) was written with an incompatible model (\(difference)) and no mapping model maps it to "
                            + "the new one; " + Self.mappingOptionAdvice,
                        context: .init(file: StoreKinds.safeURL(url)), underlying: error)
                }
                try MigrationManager(sourceModel: storedModel, destinationModel: managedObjectModel)
                    .migrateStore(at: url, type: failed.type, options: options, mapping: mapping)
            }
        } catch var failure as QuireError {
            failure.message = "Cannot migrate the store \(place) from \(source?.origin ?? "its model") to the new model: "
                + failure.message
            failure.context.file = StoreKinds.safeURL(url)
            throw failure
        }
        return try reopened(failed, at: url, options: options)
    }

    /// Where automatic migration looks for mapping models: the options' folders and files, and the mapping models
    /// beside the coordinator's `.xcdatamodeld` (as Core Data finds them in the application's bundle).
    private func mappingModelSearchURLs(_ options: StoreOptions) -> [URL] {
        var urls = options.mappingModelURLs
        if let bundle = managedObjectModel.versionBundleURL {
            let folder = bundle.deletingLastPathComponent()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            urls += names.filter { $0.hasSuffix(".xcmappingmodel") }.sorted().map { folder.appendingPathComponent($0) }
        }
        return urls
    }

    /// The store, opened again once migrated.
    private func reopened(_ failed: PersistentStore, at url: URL, options: StoreOptions) throws -> PersistentStore {
        let store = try StoreKinds.makeStore(
            type: failed.type, url: url, configuration: failed.configurationName, options: options, model: managedObjectModel)
        try store.backend.load()
        return store
    }
}
