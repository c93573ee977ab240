import QuireCore
import QuireStores
import Foundation

/// One stage of a ``StagedMigrationManager`` (`NSMigrationStage`): ``LightweightMigrationStage`` or
/// ``CustomMigrationStage``.
public class MigrationStage: @unchecked Sendable {
    // `@unchecked Sendable`: the only mutable state, `label`, is kept in a `LockedValue`; subclasses add only
    // constants or state behind the same kind of lock.
    private let labelStorage = LockedValue("")

    /// A name for the stage, for messages and progress (`label`).
    public var label: String {
        get { labelStorage.withLock { $0 } }
        set { labelStorage.withLock { $0 = newValue } }
    }

    init(label: String) {
        labelStorage.withLock { $0 = label }
    }
}

/// A stage that migrates through model versions by inference alone (`NSLightweightMigrationStage`), each
/// version named by its ``ManagedObjectModel/versionChecksum`` and found among the versions of the coordinator's
/// model bundle and the models of the manager's custom stages.
///
/// ```swift
/// let early = LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum])
/// early.label = "V1 to V3"
/// ```
public final class LightweightMigrationStage: MigrationStage, @unchecked Sendable {
    /// The versions, oldest first (`versionChecksums`).
    public let versionChecksums: [String]

    /// Creates a stage for versions named by their checksums, oldest first.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init(label: "lightweight \(versionChecksums.count) versions")
    }
}

/// A stage from one model version to the next with code around it (`NSCustomMigrationStage`): the will-migrate
/// handler sees the store at the stage's first version, the migration between the two is inferred, and the
/// did-migrate handler sees the store at the second version, to fill in what inference could not.
///
/// ```swift
/// let split = CustomMigrationStage(migratingFrom: v3Reference, to: v4Reference)
/// split.didMigrateHandler = { manager, _ in
///     guard let context = manager.container?.newBackgroundContext() else { return }
///     try context.performAndWait { /* fill the new attributes */ try context.save() }
/// }
/// ```
///
/// The handlers run on the migration's thread; the store they see through ``StagedMigrationManager/container`` is
/// the migration's private copy, which replaces the store only once every stage is done.
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    // `@unchecked Sendable`: the handlers are kept in a `LockedValue`; the references are constants.

    /// A handler of a custom stage: the manager (whose ``StagedMigrationManager/container`` is open on the store)
    /// and the stage. Throwing stops the migration and leaves the store as it was.
    public typealias Handler = @Sendable (StagedMigrationManager, CustomMigrationStage) throws -> Void

    /// The version the stage migrates from (`currentModel`).
    public let currentModel: ManagedObjectModelReference
    /// The version it migrates to (`nextModel`).
    public let nextModel: ManagedObjectModelReference

    private let handlers = LockedValue<(will: Handler?, did: Handler?)>((nil, nil))

    /// Called with the store at ``currentModel``, before the migration (`willMigrateHandler`).
    public var willMigrateHandler: Handler? {
        get { handlers.withLock { $0.will } }
        set { handlers.withLock { $0.will = newValue } }
    }

    /// Called with the store at ``nextModel``, after the migration (`didMigrateHandler`).
    public var didMigrateHandler: Handler? {
        get { handlers.withLock { $0.did } }
        set { handlers.withLock { $0.did = newValue } }
    }

    /// Creates a stage from one version to the next (`init(migratingFrom:to:)`).
    public init(migratingFrom currentModel: ManagedObjectModelReference, to nextModel: ManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init(label: "custom \(currentModel.versionChecksum.prefix(8)) to \(nextModel.versionChecksum.prefix(8))")
    }
}
