import QuireCore
import QuireStores
import Foundation

/// A migration in stages (`NSStagedMigrationManager`), as apps written since 2023 declare theirs: lightweight
/// stages through model versions, and custom stages with code before and after their step. Give it to a store in
/// its options, and adding a store written with an earlier version runs the stages from that version on:
///
/// ```swift
/// let v1ToV3 = LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum])
/// let v3ToV4 = CustomMigrationStage(
///     migratingFrom: try ManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum),
///     to: try ManagedObjectModelReference(model: v4, versionChecksum: v4.versionChecksum))
/// v3ToV4.didMigrateHandler = { manager, _ in
///     guard let context = manager.container?.newBackgroundContext() else { return }
///     try context.performAndWait {
///         for entry in try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry")) {
///             entry.setValue((entry.value(forKey: "text") as? String)?.count ?? 0, forKey: "length")
///         }
///         try context.save()
///     }
/// }
/// var options = StoreOptions()
/// options.stagedMigrationManager = StagedMigrationManager([v1ToV3, v3ToV4])
/// try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
/// ```
///
/// (Core Data's `NSPersistentStoreStagedMigrationManagerOptionKey` in an options dictionary does the same.)
///
/// The stages make a list of versions: each lightweight stage's versions in order, each custom stage's two; where
/// two stages do not meet, and from the last stage's version to the coordinator's model, the step is inferred.
/// The store's version is found in the list by its entity version hashes, and every later step runs, on a private
/// copy of the store: a custom stage's will-migrate handler with ``container`` open on the copy at the stage's
/// first version, the inferred migration, its did-migrate handler with ``container`` open on the copy at the
/// second version. Only when every step is done does the copy replace the store (one rename; for PostgreSQL, one
/// transaction renaming schemas); an error in any step or handler leaves the store as it was. SQLite, XML, binary
/// and PostgreSQL stores migrate in stages alike.
public final class StagedMigrationManager: StoreStagedMigration, Sendable {
    /// The stages, in order (`stages`).
    public let stages: [MigrationStage]

    private let openContainer = LockedValue<PersistentContainer?>(nil)

    /// The container open on the store while a custom stage's handler runs (`container`), with the model version
    /// the handler sees the store at; nil otherwise. Its ``PersistentContainer/viewContext`` is a main-queue
    /// context: on Linux use ``PersistentContainer/newBackgroundContext()`` unless the main queue is drained.
    public var container: PersistentContainer? { openContainer.withLock { $0 } }

    /// Creates a manager with stages, in order (`init(_:)`).
    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }

    /// One step of the version list.
    private struct Step {
        var from: ManagedObjectModel
        var to: ManagedObjectModel
        var stage: MigrationStage
        var custom: CustomMigrationStage?
    }

    /// Runs the stages a store needs to reach `model` (what adding the store with this manager in its options
    /// runs).
    ///
    /// - Parameters:
    ///   - url: The store.
    ///   - type: Its type.
    ///   - options: Options for opening it.
    ///   - model: The model to reach; the versions lightweight stages name are looked for among its bundle's
    ///     (``ManagedObjectModel/versionBundleURL``) and the custom stages' models.
    /// - Returns: Whether the store was migrated (false when it already has `model`'s version).
    /// - Throws: ``QuireError/Code/migrationMissingSourceModel`` when a stage names a version checksum no model
    ///   has, or the store's version is none of the stages'; ``QuireError/Code/migration`` naming the stage when a
    ///   handler fails; any error of the inferred migrations. The store is unchanged after any error.
    @discardableResult
    public func migrateStore(at url: URL, type: StoreType, options: StoreOptions = StoreOptions(), to model: ManagedObjectModel) throws -> Bool {
        let kind = try StoreKinds.kind(for: type, url: url)
        let metadata = try kind.readContents(at: url, options: options).metadata
        if model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) { return false }
        let steps = try self.steps(to: model)
        guard let start = steps.firstIndex(where: { $0.from.isConfiguration(nil, compatibleWithStoreMetadata: metadata) }) else {
            throw QuireError(
                .migrationMissingSourceModel,
                "The store \(StoreKinds.storeDescription(url)) was written with a model version none of the \(stages.count) migration stages names.",
                context: .init(file: StoreKinds.safeURL(url)))
        }
        var inner = options
        inner.migratesAutomatically = false
        inner.stagedMigrationManager = nil
        inner.isReadOnly = false
        let work = try MigrationWorkArea(beside: url, kind: kind)
        defer { work.removeAll() }
        let copy = try work.newLocation()
        do {
            try work.copy(url, to: copy, model: steps[start].from, options: inner)
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerDestinationStore,
                "Cannot copy the store \(StoreKinds.storeDescription(url)) to migrate it: \(error.message)",
                context: .init(file: StoreKinds.safeURL(url)), underlying: error)
        }
        for step in steps[start...] {
            if let custom = step.custom, let handler = custom.willMigrateHandler {
                try run(handler, of: custom, named: "will-migrate", model: step.from, at: copy, type: type, options: inner)
            }
            let mapping = try MappingModel.inferredMappingModel(forSourceModel: step.from, destinationModel: step.to)
            do {
                try MigrationManager(sourceModel: step.from, destinationModel: step.to).migrateStore(at: copy, type: type, options: inner, mapping: mapping)
            } catch var failure as QuireError {
                failure.message = "The migration stage '\(step.stage.label)' failed: " + failure.message
                throw failure
            }
            if let custom = step.custom, let handler = custom.didMigrateHandler {
                try run(handler, of: custom, named: "did-migrate", model: step.to, at: copy, type: type, options: inner)
            }
        }
        try work.replace(url, with: copy)
        return true
    }

    /// The version list the stages make, ending at `model`.
    private func steps(to model: ManagedObjectModel) throws -> [Step] {
        var known: [ManagedObjectModel] = []
        if let bundleURL = model.versionBundleURL { known += try ModelBundle(contentsOf: bundleURL).models }
        for case let custom as CustomMigrationStage in stages { known += [custom.currentModel.resolvedModel, custom.nextModel.resolvedModel] }
        known.append(model)
        func resolve(_ checksum: String, in stage: MigrationStage) throws -> ManagedObjectModel {
            guard let found = known.first(where: { $0.versionChecksum == checksum }) else {
                throw QuireError(
                    .migrationMissingSourceModel,
                    "The migration stage '\(stage.label)' names the model version checksum \(checksum), which no version of the "
                        + "model's bundle or of the custom stages has.")
            }
            return found
        }
        var steps: [Step] = []
        var last: ManagedObjectModel?
        var lastStage: MigrationStage?
        func reach(_ next: ManagedObjectModel, in stage: MigrationStage) {
            if let from = last, from.versionChecksum != next.versionChecksum {
                steps.append(Step(from: from, to: next, stage: stage, custom: nil))
            }
            last = next
            lastStage = stage
        }
        for stage in stages {
            if let lightweight = stage as? LightweightMigrationStage {
                for checksum in lightweight.versionChecksums { reach(try resolve(checksum, in: stage), in: stage) }
            } else if let custom = stage as? CustomMigrationStage {
                reach(custom.currentModel.resolvedModel, in: stage)
                steps.append(Step(from: custom.currentModel.resolvedModel, to: custom.nextModel.resolvedModel, stage: stage, custom: custom))
                last = custom.nextModel.resolvedModel
                lastStage = stage
            }
        }
        if let lastStage { reach(model, in: lastStage) }
        return steps
    }

    /// Runs a handler with ``container`` open on the store at a model version.
    private func run(
        _ handler: CustomMigrationStage.Handler, of stage: CustomMigrationStage, named name: String, model: ManagedObjectModel,
        at url: URL, type: StoreType, options: StoreOptions
    ) throws {
        let container = try PersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let coordinator = container.persistentStoreCoordinator
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        openContainer.withLock { $0 = container }
        defer {
            openContainer.withLock { $0 = nil }
            try? coordinator.remove(store)
        }
        do {
            try handler(self, stage)
        } catch {
            throw QuireError(
                .migration, "The \(name) handler of the migration stage '\(stage.label)' failed: \((error as? QuireError)?.message ?? "\(error)")",
                context: .init(file: StoreKinds.safeURL(url)), underlying: error as? QuireError ?? QuireError(.migration, "\(error)"))
        }
    }
}
