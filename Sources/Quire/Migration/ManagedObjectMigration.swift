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

    /// A relationship mapping that takes the objects a relationship of the source object holds
    /// (`$source.<key>`, through one mapping or whichever made them): read as object IDs, without evaluating
    /// the expression or making source objects.
    struct DirectRelationship {
        /// The source relationship.
        var source: RelationshipDescription
        /// The mapping whose objects it takes; nil for whichever mapping made them.
        var maker: String?
    }

    /// One entity mapping resolved against both models.
    final class Plan {
        let mapping: EntityMapping
        let source: EntityDescription?
        let destination: EntityDescription
        let attributes: [(AttributeDescription, AttributeRule)]
        let relationships: [(RelationshipDescription, MappingExpression)]
        /// For each relationship, the direct reading of it, when it is one.
        let directRelationships: [DirectRelationship?]
        let policy: EntityMigrationPolicy
        /// Whether the mapping's objects are made by Quire's own steps only (no policy class, no value policy,
        /// no filter), so each source object must make exactly one destination object.
        let makesOnePerSource: Bool

        // Associations, in the order they were made; the pairs of one source (or destination) object are
        // chained through `nextOfSource` (`nextOfDestination`), from the first one the dictionaries give: one
        // dictionary entry per object, whatever the number of pairs.
        private(set) var pairs: [(source: ManagedObject, destination: ManagedObject)] = []
        private var nextOfSource: [Int32] = []
        private var nextOfDestination: [Int32] = []
        private var lastOfSource: [ObjectID: (first: Int32, last: Int32)] = [:]
        private var lastOfDestination: [ObjectIdentifier: (first: Int32, last: Int32)] = [:]
        var sourceCount = 0
        /// The members of the source objects' to-many relationships the relationship stage reads, loaded a batch
        /// at a time, by relationship name and source object.
        var members: [String: [ObjectID: [ObjectID]]] = [:]

        init(
            mapping: EntityMapping, source: EntityDescription?, destination: EntityDescription,
            attributes: [(AttributeDescription, AttributeRule)], relationships: [(RelationshipDescription, MappingExpression)],
            directRelationships: [DirectRelationship?], policy: EntityMigrationPolicy, makesOnePerSource: Bool
        ) {
            self.mapping = mapping
            self.source = source
            self.destination = destination
            self.attributes = attributes
            self.relationships = relationships
            self.directRelationships = directRelationships
            self.policy = policy
            self.makesOnePerSource = makesOnePerSource
        }

        func reserve(_ count: Int) {
            pairs.reserveCapacity(count)
            nextOfSource.reserveCapacity(count)
            nextOfDestination.reserveCapacity(count)
            lastOfSource.reserveCapacity(count)
            lastOfDestination.reserveCapacity(count)
        }

        func associate(_ source: ManagedObject, _ destination: ManagedObject) {
            let index = Int32(pairs.count)
            pairs.append((source, destination))
            nextOfSource.append(-1)
            nextOfDestination.append(-1)
            if let chain = lastOfSource[source.objectID] {
                nextOfSource[Int(chain.last)] = index
                lastOfSource[source.objectID] = (chain.first, index)
            } else {
                lastOfSource[source.objectID] = (index, index)
            }
            let key = ObjectIdentifier(destination)
            if let chain = lastOfDestination[key] {
                nextOfDestination[Int(chain.last)] = index
                lastOfDestination[key] = (chain.first, index)
            } else {
                lastOfDestination[key] = (index, index)
            }
        }

        /// The destination objects made from the source object with an ID.
        func destinations(ofSource id: ObjectID) -> [ManagedObject] {
            guard var index = lastOfSource[id]?.first else { return [] }
            var result: [ManagedObject] = []
            while index >= 0 {
                result.append(pairs[Int(index)].destination)
                index = nextOfSource[Int(index)]
            }
            return result
        }

        func destinations(of source: ManagedObject) -> [ManagedObject] { destinations(ofSource: source.objectID) }

        func sources(of destination: ManagedObject) -> [ManagedObject] {
            guard var index = lastOfDestination[ObjectIdentifier(destination)]?.first else { return [] }
            var result: [ManagedObject] = []
            while index >= 0 {
                result.append(pairs[Int(index)].source)
                index = nextOfDestination[Int(index)]
            }
            return result
        }

        /// The first source object of a destination object, without building an array.
        func firstSource(of destination: ManagedObject) -> ManagedObject? {
            lastOfDestination[ObjectIdentifier(destination)].map { pairs[Int($0.first)].source }
        }

        /// The destination objects in the order they were associated, each once.
        var associatedDestinations: [ManagedObject] {
            pairs.indices.lazy.filter { index in
                self.lastOfDestination[ObjectIdentifier(self.pairs[index].destination)]?.first == Int32(index)
            }.map { self.pairs[$0].destination }
        }
    }

    func plan(named name: String) -> Plan? { planIndexByName[name].map { plans[$0] } }

    /// The destination objects made from a source object by any entity mapping.
    func destinationsByAnyMapping(of source: ManagedObject) -> [ManagedObject] {
        destinationsByAnyMapping(ofSource: source.objectID)
    }

    /// The destination objects made from the source object with an ID by the mappings of its entity (a source
    /// object is read by the mappings of its own entity only).
    func destinationsByAnyMapping(ofSource id: ObjectID) -> [ManagedObject] {
        let entity = id.entity
        var result: [ManagedObject] = []
        for plan in plans where plan.source === entity { result += plan.destinations(ofSource: id) }
        return result
    }

    /// Whether an object lives in the source context.
    func isSourceObject(_ object: ManagedObject) -> Bool { object.managedObjectContext === sourceContext }
}
