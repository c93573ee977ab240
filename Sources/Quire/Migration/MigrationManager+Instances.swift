import QuireCore
import QuireStores
import Foundation

/// What entity migration policies and mapping expressions use while a migration runs on managed objects (see
/// ``EntityMigrationPolicy``): the two contexts, the association of source and destination objects, and the
/// application's user info.
///
/// These are for the code a migration calls, on the migration's thread: reading them elsewhere, or when no
/// migration on managed objects is running, traps.
extension MigrationManager {
    /// The running migration on managed objects; traps outside one.
    func currentRun() -> ManagedObjectMigration {
        guard let run = activeRun.withLock({ $0 }), RunningContexts.contains(run.sourceContext) else {
            preconditionFailure(
                "MigrationManager's contexts and instances are available to the code a migration runs (entity migration policies), "
                    + "on the migration's thread, while it runs.")
        }
        return run
    }

    /// The context the migration reads the old store through (`sourceContext`); its store is read-only.
    public var sourceContext: ManagedObjectContext { currentRun().sourceContext }

    /// The context the migration writes the new store through (`destinationContext`): objects inserted into it
    /// are saved into the migrated store at the end.
    public var destinationContext: ManagedObjectContext { currentRun().destinationContext }

    /// The mapping model being run (`mappingModel`).
    public var mappingModel: MappingModel { currentRun().mappingModel }

    /// Data the application keeps across the policies of one migration (`userInfo`), empty when it starts.
    public var userInfo: [String: Any] {
        get { currentRun().userInfo }
        set { currentRun().userInfo = newValue }
    }

    /// The source model's entity a mapping reads (`sourceEntity(for:)`).
    public func sourceEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity a mapping makes (`destinationEntity(for:)`).
    public func destinationEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Records that a destination object was made from a source object by an entity mapping
    /// (`associate(sourceInstance:withDestinationInstance:for:)`): stage 2 makes the relationships of the
    /// mapping's associated objects, and ``destinationInstances(forEntityMappingName:sourceInstances:)`` finds them.
    ///
    /// - Precondition: `mapping` is an entity mapping of the running mapping model.
    public func associate(sourceInstance: ManagedObject, withDestinationInstance destinationInstance: ManagedObject, for mapping: EntityMapping) {
        guard let plan = currentRun().plan(named: mapping.name) else {
            preconditionFailure("The running mapping model has no entity mapping named '\(mapping.name)'.")
        }
        plan.associate(sourceInstance, destinationInstance)
    }

    /// The destination objects an entity mapping made from source objects
    /// (`destinationInstances(forEntityMappingName:sourceInstances:)`), in the order they were made; every object
    /// the mapping made when `sourceInstances` is nil.
    ///
    /// - Precondition: the running mapping model has an entity mapping named `mappingName`.
    public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [ManagedObject]?) -> [ManagedObject] {
        guard let plan = currentRun().plan(named: mappingName) else {
            preconditionFailure("The running mapping model has no entity mapping named '\(mappingName)'.")
        }
        guard let sourceInstances else { return plan.associatedDestinations }
        var result: [ManagedObject] = []
        for source in sourceInstances { plan.appendDestinations(ofSource: source.objectID, to: &result) }
        return result
    }

    /// The source objects an entity mapping migrated into destination objects
    /// (`sourceInstances(forEntityMappingName:destinationInstances:)`); every source object the mapping read when
    /// `destinationInstances` is nil.
    ///
    /// - Precondition: the running mapping model has an entity mapping named `mappingName`.
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [ManagedObject]?) -> [ManagedObject] {
        guard let plan = currentRun().plan(named: mappingName) else {
            preconditionFailure("The running mapping model has no entity mapping named '\(mappingName)'.")
        }
        guard let destinationInstances else {
            var seen = Set<ObjectID>()
            return plan.pairs.map(\.source).filter { seen.insert($0.objectID).inserted }
        }
        return destinationInstances.flatMap { plan.sources(of: $0) }
    }
}
