import QuireCore
import QuireStores
import Foundation

/// Migrates a store from one model version to another (`NSMigrationManager`), reporting progress as it goes.
///
/// ```swift
/// let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
/// manager.progressHandler = { progress in bar.update(progress.fractionCompleted) }
/// try manager.migrateStore(at: storeURL, type: .sqlite)   // infers the mapping
/// ```
///
/// A migration never changes the store it reads. It opens the store with the source model, writes every object
/// into a new store of the destination model in a private folder beside it (`.<name>.migration-<UUID>`), in
/// batches, carries the external binary data files over as hard links, writes the metadata, syncs the new file
/// to disk, and only then replaces the old store with one `rename`. An error, a cancellation or a crash before
/// that rename leaves the old store as it was, openable with the old model; the private folder is removed then,
/// or by the next migration of the same store.
///
/// For SQLite stores this is how "the migration happens in one transaction" holds: the new database is built
/// in a file nobody else opens, and the rename is the commit.
///
/// A store that is not a file migrates the same way in the places its kind names: a PostgreSQL store is built in a
/// new schema beside its own and swapped in with one transaction (refused while another coordinator has the store
/// open); after an error the new schema is dropped and the store's schema is as it was.
///
/// `Sendable`: the models are frozen when the migration starts, and the rest of the state lives in a
/// `LockedValue` (a lock the thread sanitizer sees), so another thread can read the progress or cancel.
public final class MigrationManager: Sendable {
    /// The model the store was written with.
    public let sourceModel: ManagedObjectModel
    /// The model the store is migrated to.
    public let destinationModel: ManagedObjectModel

    /// A point where tests make a migration fail, to prove the source store survives.
    enum FailurePoint: Sendable, Hashable {
        /// After this many objects were written to the new store.
        case afterObjects(Int)
        /// After the new store was written and synced, just before it replaces the old one.
        case beforeSwap
    }

    struct State: Sendable {
        var batchSize = 500
        var progressHandler: (@Sendable (MigrationProgress) -> Void)?
        var continuations: [AsyncStream<MigrationProgress>.Continuation] = []
        var progress = MigrationProgress(fractionCompleted: 0, phase: .preparing)
        var currentEntityMapping: EntityMapping?
        var isCancelled = false
        var failurePoint: FailurePoint?
        /// The stage this manager runs within a multi-version migration, and how many there are.
        var stage = 1
        var stageCount = 1
        /// Whether a migration on managed objects is running (one at a time per manager).
        var isRunningManagedObjects = false
        /// The error a policy cancelled the migration with (`cancelMigrationWithError`).
        var cancellationError: QuireError?
        var policyRegistry = EntityMigrationPolicyRegistry.shared
        /// Whether the store being written shares the source's external data files (both are files): values
        /// kept in such files are carried over as references to the linked files; otherwise they are read.
        var sharesExternalDataFiles = true
    }

    let state = LockedValue(State())

    /// The running migration on managed objects, while its stages run.
    ///
    /// Safe to keep in a `Sendable` manager although the run is not `Sendable`: it is set and cleared by
    /// `migrateManagedObjects` on the migration's thread, inside both of the run's contexts' blocks, and
    /// ``currentRun()`` hands it out only to code running inside the run's source context's block on the
    /// current thread (`RunningContexts`), which is that same thread: no other thread ever gets the reference.
    let activeRun = LockedValue<ManagedObjectMigration?>(nil)

    /// Creates a manager for one pair of model versions.
    ///
    /// - Parameters:
    ///   - sourceModel: The model the store was written with.
    ///   - destinationModel: The model to migrate to.
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// How many objects are read and written at a time (500 by default); memory use grows with it.
    public var batchSize: Int {
        get { state.withLock { $0.batchSize } }
        set { state.withLock { $0.batchSize = max(1, newValue) } }
    }

    /// Called after every batch and at each change of phase, on the thread running the migration.
    public var progressHandler: (@Sendable (MigrationProgress) -> Void)? {
        get { state.withLock { $0.progressHandler } }
        set { state.withLock { $0.progressHandler = newValue } }
    }

    /// The latest progress report.
    public var progress: MigrationProgress { state.withLock { $0.progress } }

    /// The share of the migration done, from 0 to 1 (`migrationProgress`).
    public var migrationProgress: Double { progress.fractionCompleted }

    /// The entity mapping being run (`currentEntityMapping`), nil between mappings.
    public var currentEntityMapping: EntityMapping? { state.withLock { $0.currentEntityMapping } }

    /// The progress reports of the next migration as an asynchronous sequence, which ends when the migration ends.
    ///
    /// ```swift
    /// let updates = manager.progressUpdates()
    /// Task.detached { try manager.migrateStore(at: url, type: .sqlite) }
    /// for await progress in updates { print(progress) }
    /// ```
    public func progressUpdates() -> AsyncStream<MigrationProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: MigrationProgress.self, bufferingPolicy: .bufferingNewest(64))
        state.withLock { $0.continuations.append(continuation) }
        return stream
    }

    /// Stops the running migration at the next batch; it then throws ``QuireError/Code/migrationCancelled`` and
    /// leaves the source store as it was.
    public func cancel() {
        state.withLock { $0.isCancelled = true }
    }

    /// Stops the running migration, with the reason a policy gives (`cancelMigrationWithError(_:)`): it throws
    /// ``QuireError/Code/migrationCancelled`` with `error` as the underlying cause once the current step returns,
    /// and leaves the source store as it was.
    public func cancelMigration(with error: any Error) {
        let cause = (error as? QuireError) ?? QuireError(.migrationCancelled, "\(error)")
        state.withLock {
            $0.isCancelled = true
            $0.cancellationError = cause
        }
    }

    /// Where the migration finds the ``EntityMigrationPolicy`` classes its mapping models name
    /// (``EntityMigrationPolicyRegistry/shared`` by default).
    public var policyRegistry: EntityMigrationPolicyRegistry {
        get { state.withLock { $0.policyRegistry } }
        set { state.withLock { $0.policyRegistry = newValue } }
    }

    // MARK: Migrating

    /// Migrates a store in place: the store at `url` is replaced by its migrated version once that is complete.
    ///
    /// ```swift
    /// try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: .sqlite)
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store.
    ///   - type: Its type.
    ///   - options: Options for opening it (pragmas, journal mode); migration options are ignored.
    ///   - mapping: The mapping model; inferred from the two models when nil.
    /// - Throws: ``QuireError/Code/inferredMappingModel`` naming the entity and property inference cannot map;
    ///   ``QuireError/Code/migrationCancelled``; ``QuireError/Code/migration`` (with the failure as underlying
    ///   error) when an object cannot be migrated; ``QuireError/Code/migrationManagerSourceStore`` or
    ///   ``QuireError/Code/migrationManagerDestinationStore`` when a store cannot be read, written or swapped.
    ///   The store at `url` is unchanged after any error.
    public func migrateStore(at url: URL, type: StoreType, options: StoreOptions = StoreOptions(), mapping: MappingModel? = nil) throws {
        try migrateStore(from: url, type: type, options: options, mapping: mapping, to: url, type: type, options: options)
    }

    /// Migrates a store into another location or store type
    /// (`migrateStore(from:type:options:mapping:to:type:options:)`), leaving the source as it is unless both URLs
    /// are the same.
    ///
    /// As in Core Data, when a store already exists at the destination (a store of the destination model), the
    /// migrated objects are added to it: that is how a migration runs in several passes, one mapping model at a
    /// time into the same destination (a later pass's policies find the objects of earlier passes in
    /// ``destinationContext``). The destination is replaced atomically once the pass is complete, so a failed pass
    /// leaves it as the previous pass left it.
    ///
    /// ```swift
    /// for pass in [usersFirst, booksAndFiles] {
    ///     try manager.migrateStore(from: old, type: .sqlite, mapping: pass, to: new, type: .sqlite)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sourceURL: The store to read.
    ///   - sourceType: Its type.
    ///   - sourceOptions: Options for opening it.
    ///   - mapping: The mapping model; inferred from the two models when nil.
    ///   - destinationURL: Where the migrated store goes.
    ///   - destinationType: The migrated store's type.
    ///   - destinationOptions: Options for the migrated store.
    /// - Throws: As ``migrateStore(at:type:options:mapping:)``; the destination is unchanged after any error.
    public func migrateStore(
        from sourceURL: URL, type sourceType: StoreType, options sourceOptions: StoreOptions = StoreOptions(),
        mapping: MappingModel? = nil,
        to destinationURL: URL, type destinationType: StoreType, options destinationOptions: StoreOptions = StoreOptions()
    ) throws {
        defer { finishStreams() }
        state.withLock {
            $0.isCancelled = false
            $0.cancellationError = nil
        }
        let mapping = try mapping ?? MappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        let inPlace = sourceURL.standardizedFileURL == destinationURL.standardizedFileURL
        let work = try MigrationWorkArea(beside: destinationURL, kind: StoreKinds.kind(for: destinationType, url: destinationURL))
        defer { work.removeAll() }
        let staged = try work.newLocation()
        let appending = !inPlace && work.storeExists(at: destinationURL)
        if appending {
            do {
                try work.copy(destinationURL, to: staged, model: destinationModel, options: destinationOptions)
            } catch let error as QuireError {
                throw QuireError(
                    .migrationManagerDestinationStore,
                    "Cannot copy the existing store \(StoreKinds.storeDescription(destinationURL)) to add to it: \(error.message)",
                    context: .init(file: StoreKinds.safeURL(destinationURL)), underlying: error)
            }
        }
        try writeMigratedStore(
            from: sourceURL, type: sourceType, options: sourceOptions, mapping: mapping, to: staged,
            type: destinationType, options: destinationOptions, keepsIdentity: inPlace, appending: appending)
        try swapIn(staged, at: destinationURL, work: work)
    }

    /// Brings a store written with any of several model versions up to the last one, hop by hop (v1 → v2 → v3),
    /// each hop with its mapping model: the one given, else the one found among `mappingModelURLs` for the two
    /// versions (``MappingModel/init(from:forSourceModel:destinationModel:)``), else an inferred one. The hops
    /// run on private copies and the store is replaced once, at the end: an error in any hop leaves it at its
    /// original version.
    ///
    /// ```swift
    /// let bundle = try ModelBundle(contentsOf: modelURL)
    /// let migrated = try MigrationManager.migrateStore(
    ///     at: url, type: .sqlite, versions: bundle.models, mappingModelURLs: [mappingModelsFolder]
    /// ) { progress in
    ///     print(progress)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store.
    ///   - type: Its type.
    ///   - options: Options for opening it.
    ///   - versions: Every model version, oldest first; the last one is the destination.
    ///   - mappingModels: `mappingModels[i]` maps `versions[i]` to `versions[i + 1]`; missing or nil entries are
    ///     searched for, then inferred.
    ///   - mappingModelURLs: Folders and mapping-model files to search for the hops without a given mapping model.
    ///   - infersMappingModels: Whether a hop without a mapping model gets an inferred one (true), or fails.
    ///   - progressHandler: Called with the progress across all hops.
    /// - Returns: Whether the store was migrated (false when it already has the last version).
    /// - Throws: ``QuireError/Code/migrationMissingSourceModel`` when no version matches the store's version
    ///   hashes; ``QuireError/Code/migrationMissingMappingModel`` for a given mapping model of other versions, for
    ///   two mapping models found for one hop, and for a hop without one when inference is off; otherwise as
    ///   ``migrateStore(at:type:options:mapping:)``.
    @discardableResult
    public static func migrateStore(
        at url: URL, type: StoreType, options: StoreOptions = StoreOptions(), versions: [ManagedObjectModel],
        mappingModels: [MappingModel?] = [], mappingModelURLs: [URL] = [], infersMappingModels: Bool = true,
        progressHandler: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws -> Bool {
        let contents = try StoreKinds.kind(for: type, url: url).readContents(at: url)
        guard let start = versions.lastIndex(where: { $0.isConfiguration(nil, compatibleWithStoreMetadata: contents.metadata) })
        else {
            throw QuireError(
                .migrationMissingSourceModel,
                "None of the \(versions.count) model versions is the one the store \(StoreKinds.storeDescription(url)) was written with.",
                context: .init(file: StoreKinds.safeURL(url)))
        }
        let hops = Array(start..<(versions.count - 1))
        guard !hops.isEmpty else { return false }
        let work = try MigrationWorkArea(beside: url, kind: StoreKinds.kind(for: type, url: url))
        defer { work.removeAll() }
        var current = url
        for (position, hop) in hops.enumerated() {
            let manager = MigrationManager(sourceModel: versions[hop], destinationModel: versions[hop + 1])
            manager.progressHandler = progressHandler
            manager.state.withLock {
                $0.stage = position + 1
                $0.stageCount = hops.count
            }
            let given = hop < mappingModels.count ? mappingModels[hop] : nil
            if let given, !given.isMapping(from: versions[hop], to: versions[hop + 1]) {
                throw QuireError(
                    .migrationMissingMappingModel,
                    "The mapping model for versions \(hop + 1) to \(hop + 2) was made for other versions of the entities.",
                    context: .init(file: StoreKinds.safeURL(url)))
            }
            let mapping: MappingModel
            if let given {
                mapping = given
            } else if !mappingModelURLs.isEmpty,
                let found = try MappingModel(from: mappingModelURLs, forSourceModel: versions[hop], destinationModel: versions[hop + 1])
            {
                mapping = found
            } else if infersMappingModels {
                mapping = try MappingModel.inferredMappingModel(forSourceModel: versions[hop], destinationModel: versions[hop + 1])
            } else {
                throw QuireError(
                    .migrationMissingMappingModel,
                    "No mapping model maps versions \(hop + 1) and \(hop + 2) of the \(versions.count) model versions, and inference is off.",
                    context: .init(file: StoreKinds.safeURL(url)))
            }
            let next = try work.newLocation()
            try manager.writeMigratedStore(
                from: current, type: type, options: options, mapping: mapping, to: next, type: type, options: options,
                keepsIdentity: true)
            if current != url { work.discard(current) }
            current = next
            if position == hops.count - 1 {
                try manager.swapIn(current, at: url, work: work)
            }
        }
        return true
    }

    /// Whether a store must be migrated before it opens with a model: its version hashes differ from the model's.
    ///
    /// - Throws: When the store's metadata cannot be read.
    public static func storeNeedsMigration(at url: URL, type: StoreType, to model: ManagedObjectModel, configuration: String? = nil) throws -> Bool {
        let contents = try StoreKinds.kind(for: type, url: url).readContents(at: url)
        return !model.isConfiguration(configuration, compatibleWithStoreMetadata: contents.metadata)
    }

    // MARK: Progress

    /// Records and reports progress; `fraction` is the share of this manager's stage.
    func report(_ phase: MigrationProgress.Phase, fraction: Double, mapping: String? = nil, done: Int = 0, total: Int = 0) {
        let (handler, continuations, progress) = state.withLock { state -> ((@Sendable (MigrationProgress) -> Void)?, [AsyncStream<MigrationProgress>.Continuation], MigrationProgress) in
            let overall = (Double(state.stage - 1) + min(max(fraction, 0), 1)) / Double(state.stageCount)
            state.progress = MigrationProgress(
                fractionCompleted: max(state.progress.fractionCompleted, overall), phase: phase, entityMappingName: mapping,
                unitsCompleted: done, unitCount: total, stage: state.stage, stageCount: state.stageCount)
            return (state.progressHandler, state.continuations, state.progress)
        }
        handler?(progress)
        for continuation in continuations { continuation.yield(progress) }
    }

    private func finishStreams() {
        let continuations = state.withLock { state in
            defer { state.continuations = [] }
            return state.continuations
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Throws when the migration was cancelled.
    func checkCancelled() throws {
        let (cancelled, cause) = state.withLock { ($0.isCancelled, $0.cancellationError) }
        if cancelled {
            let reason = cause.map { ": \($0.message)" } ?? ""
            throw QuireError(.migrationCancelled, "The migration was cancelled\(reason); the source store is unchanged.", underlying: cause)
        }
    }
}
