import QuireCore
import QuireStores
import Foundation

/// One migration run on managed objects (Core Data's three stages, see ``EntityMigrationPolicy``): the two
/// contexts, the entity mappings resolved against both models with their policy objects, the association of
/// source and destination objects, and the application's user info.
///
/// Not `Sendable`: it lives on the migration's thread, inside both contexts' blocks, for one run.
final class ManagedObjectMigration {
    let sourceContext: ManagedObjectContext
    let destinationContext: ManagedObjectContext
    let sourceStore: PersistentStore
    let mappingModel: MappingModel
    var plans: [Plan] = []
    var planIndexByName: [String: Int] = [:]
    var userInfo: [String: Any] = [:]

    init(sourceContext: ManagedObjectContext, destinationContext: ManagedObjectContext, sourceStore: PersistentStore, mappingModel: MappingModel) {
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        self.sourceStore = sourceStore
        self.mappingModel = mappingModel
    }

    /// How one destination attribute gets its value.
    enum AttributeRule {
        /// A source attribute's stored value (`$source.<key>`), converted when the types differ.
        case sourceSlot(Int, convert: Bool)
        /// A constant, already converted to the attribute's type.
        case constant(AttributeValue)
        /// Anything else: evaluated for each object.
        case expression(MappingExpression)
    }

    /// One entity mapping resolved against both models.
    final class Plan {
        let mapping: EntityMapping
        let source: EntityDescription?
        let destination: EntityDescription
        let attributes: [(AttributeDescription, AttributeRule)]
        let relationships: [(RelationshipDescription, MappingExpression)]
        let policy: EntityMigrationPolicy
        /// Whether the mapping's objects are made by Quire's own steps only (no policy class, no value policy,
        /// no filter), so each source object must make exactly one destination object.
        let makesOnePerSource: Bool
        /// Source relationships to load with the source objects (those the relationship mappings read directly).
        let prefetchedKeyPaths: [String]

        // Associations, in the order they were made.
        var pairs: [(source: ManagedObject, destination: ManagedObject)] = []
        var destinationsBySource: [ObjectID: [Int]] = [:]
        var sourcesByDestination: [ObjectIdentifier: [Int]] = [:]
        var sourceCount = 0

        init(
            mapping: EntityMapping, source: EntityDescription?, destination: EntityDescription,
            attributes: [(AttributeDescription, AttributeRule)], relationships: [(RelationshipDescription, MappingExpression)],
            policy: EntityMigrationPolicy, makesOnePerSource: Bool, prefetchedKeyPaths: [String]
        ) {
            self.mapping = mapping
            self.source = source
            self.destination = destination
            self.attributes = attributes
            self.relationships = relationships
            self.policy = policy
            self.makesOnePerSource = makesOnePerSource
            self.prefetchedKeyPaths = prefetchedKeyPaths
        }

        func associate(_ source: ManagedObject, _ destination: ManagedObject) {
            let index = pairs.count
            pairs.append((source, destination))
            destinationsBySource[source.objectID, default: []].append(index)
            sourcesByDestination[ObjectIdentifier(destination), default: []].append(index)
        }

        func destinations(of source: ManagedObject) -> [ManagedObject] {
            destinationsBySource[source.objectID]?.map { pairs[$0].destination } ?? []
        }

        func sources(of destination: ManagedObject) -> [ManagedObject] {
            sourcesByDestination[ObjectIdentifier(destination)]?.map { pairs[$0].source } ?? []
        }

        /// The destination objects in the order they were associated, each once.
        var associatedDestinations: [ManagedObject] {
            var seen = Set<ObjectIdentifier>()
            return pairs.lazy.map(\.destination).filter { seen.insert(ObjectIdentifier($0)).inserted }
        }
    }

    func plan(named name: String) -> Plan? { planIndexByName[name].map { plans[$0] } }

    /// The destination objects made from a source object by any entity mapping.
    func destinationsByAnyMapping(of source: ManagedObject) -> [ManagedObject] {
        plans.flatMap { $0.destinations(of: source) }
    }

    /// Whether an object lives in the source context.
    func isSourceObject(_ object: ManagedObject) -> Bool { object.managedObjectContext === sourceContext }
}
