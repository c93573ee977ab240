import QuireCore
import QuireStores
/// How far a migration has come, reported to ``MigrationManager/progressHandler`` (and
/// ``MigrationManager/progressUpdates()``) after each batch, enough to draw a progress bar:
///
/// ```swift
/// manager.progressHandler = { progress in
///     print("\(Int(progress.fractionCompleted * 100))% \(progress.entityMappingName ?? "")")
/// }
/// ```
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// What the migration is doing.
    public enum Phase: String, Sendable, Hashable {
        /// Opening the stores and counting the objects.
        case preparing
        /// Creating the destination objects with their attribute values.
        case copyingObjects
        /// Connecting the destination objects' relationships.
        case linkingRelationships
        /// Writing metadata, syncing and swapping the new store in.
        case finishing
        /// Done: the new store is in place.
        case finished
    }

    /// The share of the whole migration done, from 0 to 1 (every stage of a multi-version migration included);
    /// it never decreases.
    public var fractionCompleted: Double
    /// What the migration is doing.
    public var phase: Phase
    /// The entity mapping being run, if any.
    public var entityMappingName: String?
    /// Objects handled so far in this stage (each object counts once per phase it goes through).
    public var unitsCompleted: Int
    /// Objects to handle in this stage, in the same units.
    public var unitCount: Int
    /// The stage being run, from 1: the hop between two versions in a multi-version migration.
    public var stage: Int
    /// The number of stages (1 for a migration between two versions).
    public var stageCount: Int

    /// Creates a progress report.
    public init(
        fractionCompleted: Double, phase: Phase, entityMappingName: String? = nil, unitsCompleted: Int = 0,
        unitCount: Int = 0, stage: Int = 1, stageCount: Int = 1
    ) {
        self.fractionCompleted = fractionCompleted
        self.phase = phase
        self.entityMappingName = entityMappingName
        self.unitsCompleted = unitsCompleted
        self.unitCount = unitCount
        self.stage = stage
        self.stageCount = stageCount
    }

    /// `42% copyingObjects EntryToEntry (stage 1 of 2)`.
    public var description: String {
        let percent = Int((fractionCompleted * 100).rounded(.down))
        let mapping = entityMappingName.map { " \($0)" } ?? ""
        return "\(percent)% \(phase.rawValue)\(mapping) (stage \(stage) of \(stageCount))"
    }
}
