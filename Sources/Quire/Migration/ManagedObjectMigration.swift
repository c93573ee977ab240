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
    /// Every object of each source entity stage 1 read (before the mappings' filters), by entity.
    var fetchedSources: [ObjectIdentifier: [ManagedObject]] = [:]
    /// The members of to-many relationships found through their to-one inverses, by relationship.
    private var membersByRelationship: [ObjectIdentifier: [ObjectID: [ObjectID]]] = [:]

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
        /// Whether every attribute rule is a source value kept as stored or a constant (nothing to compute or
        /// convert, nothing that can fail).
        let copiesStoredValues: Bool
        /// Whether the mapping's objects are made by Quire's own steps only (no policy class, no value policy,
        /// no filter), so each source object must make exactly one destination object.
        let makesOnePerSource: Bool

        // Associations, in the order they were made; the pairs of one source (or destination) object are
        // chained through `nextOfSource` (`nextOfDestination`), from the first one the tables give: one table
        // entry per object, whatever the number of pairs. The source objects of the mapping's own entity are
        // found by primary key in `sourceChains` (a dense table, when the keys are dense enough: no hashing of
        // IDs per object), the others in `lastOfSource`; a slot answers only for the ID of its first pair's source.
        private(set) var pairs: [(source: ManagedObject, destination: ManagedObject)] = []
        private var nextOfSource: [Int32] = []
        private var nextOfDestination: [Int32] = []
        private var sourceChains: [Chain] = []
        private var lastOfSource: [ObjectID: Chain] = [:]
        private var lastOfDestination: [ObjectIdentifier: Chain] = [:]
        var sourceCount = 0
        /// For each relationship read directly through one mapping, the index of that mapping's plan in the run's
        /// plans (set once every plan is resolved; an index, not the plan, so that plans never hold each other).
        var makerPlanIndexes: [Int?] = []
        /// The pair the relationship stage is at: ``firstSource(of:)`` looks there first.
        var pairHint = 0
        /// The members of the source objects' to-many relationships the relationship stage reads, loaded a batch
        /// at a time, by relationship name and source object.
        var members: [String: [ObjectID: [ObjectID]]] = [:]

        /// The first and last pair of one object's chain; `first` is -1 in an empty slot.
        struct Chain {
            var first: Int32
            var last: Int32
            static let empty = Chain(first: -1, last: -1)
        }

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
            copiesStoredValues = attributes.allSatisfy { _, rule in
                switch rule {
                case .sourceSlot(_, let convert): return !convert
                case .constant: return true
                case .expression: return false
                }
            }
        }

        /// Makes room for `count` associations, of source objects whose primary keys go up to `largestKey`.
        func reserve(_ count: Int, largestKey: Int64) {
            pairs.reserveCapacity(count)
            nextOfSource.reserveCapacity(count)
            nextOfDestination.reserveCapacity(count)
            lastOfDestination.reserveCapacity(count)
            // Keys are dense in a store Quire or Core Data wrote (1...n); a store with far larger keys uses the
            // dictionary instead of a mostly empty table.
            if largestKey >= 0 && largestKey <= Int64(count) * 4 + 1024 {
                sourceChains = Array(repeating: .empty, count: Int(largestKey) + 1)
            } else {
                lastOfSource.reserveCapacity(count)
            }
        }

        /// The slot of `sourceChains` for an ID of the mapping's source entity, if it has one.
        private func slot(of id: ObjectID) -> Int? {
            guard let key = id.primaryKey, key >= 0, key < Int64(sourceChains.count), id.entity === source else { return nil }
            return Int(key)
        }

        /// The chain of a source object's pairs.
        private func sourceChain(of id: ObjectID) -> Chain? {
            if let slot = slot(of: id) {
                let chain = sourceChains[slot]
                if chain.first < 0 { return nil }
                if pairs[Int(chain.first)].source.objectID == id { return chain }
            }
            return lastOfSource.isEmpty ? nil : lastOfSource[id]
        }

        func associate(_ source: ManagedObject, _ destination: ManagedObject) {
            let index = Int32(pairs.count)
            pairs.append((source, destination))
            nextOfSource.append(-1)
            nextOfDestination.append(-1)
            let id = source.objectID
            if let slot = slot(of: id), sourceChains[slot].first < 0 || pairs[Int(sourceChains[slot].first)].source.objectID == id {
                if sourceChains[slot].first < 0 {
                    sourceChains[slot] = Chain(first: index, last: index)
                } else {
                    nextOfSource[Int(sourceChains[slot].last)] = index
                    sourceChains[slot].last = index
                }
            } else if let chain = lastOfSource[id] {
                nextOfSource[Int(chain.last)] = index
                lastOfSource[id] = Chain(first: chain.first, last: index)
            } else {
                lastOfSource[id] = Chain(first: index, last: index)
            }
            let key = ObjectIdentifier(destination)
            if let chain = lastOfDestination[key] {
                nextOfDestination[Int(chain.last)] = index
                lastOfDestination[key] = Chain(first: chain.first, last: index)
            } else {
                lastOfDestination[key] = Chain(first: index, last: index)
            }
        }

        /// The chain of a destination object's pairs.
        private func destinationChain(of destination: ManagedObject) -> Chain? {
            lastOfDestination[ObjectIdentifier(destination)]
        }

        /// The destination objects made from the source object with an ID.
        func destinations(ofSource id: ObjectID) -> [ManagedObject] {
            var result: [ManagedObject] = []
            appendDestinations(ofSource: id, to: &result)
            return result
        }

        /// Appends the destination objects made from the source object with an ID to `result`.
        func appendDestinations(ofSource id: ObjectID, to result: inout [ManagedObject]) {
            guard var index = sourceChain(of: id)?.first else { return }
            while index >= 0 {
                result.append(pairs[Int(index)].destination)
                index = nextOfSource[Int(index)]
            }
        }

        func destinations(of source: ManagedObject) -> [ManagedObject] { destinations(ofSource: source.objectID) }

        func sources(of destination: ManagedObject) -> [ManagedObject] {
            guard var index = destinationChain(of: destination)?.first else { return [] }
            var result: [ManagedObject] = []
            while index >= 0 {
                result.append(pairs[Int(index)].source)
                index = nextOfDestination[Int(index)]
            }
            return result
        }

        /// The first source object of a destination object, without building an array.
        func firstSource(of destination: ManagedObject) -> ManagedObject? {
            // One pair per destination object (the usual case): the hinted pair, when it is this object's.
            if pairHint < pairs.count, pairs[pairHint].destination === destination, lastOfDestination.count == pairs.count {
                return pairs[pairHint].source
            }
            return destinationChain(of: destination).map { pairs[Int($0.first)].source }
        }

        /// The destination objects in the order they were associated, each once.
        var associatedDestinations: [ManagedObject] {
            // Every destination object in one pair (one per source object, the usual case): all of them.
            if lastOfDestination.count == pairs.count { return pairs.map(\.destination) }
            return pairs.indices.lazy.filter { index in
                self.destinationChain(of: self.pairs[index].destination)?.first == Int32(index)
            }.map { self.pairs[$0].destination }
        }
    }

    /// The plan last asked for by name: policies and the default steps ask for the running mapping's plan by
    /// name for every object.
    private var lastPlan: Plan?

    func plan(named name: String) -> Plan? {
        if let lastPlan, lastPlan.mapping.name == name { return lastPlan }
        guard let index = planIndexByName[name] else { return nil }
        lastPlan = plans[index]
        return plans[index]
    }

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

    /// The members of an unordered to-many relationship of the source model whose inverse is a to-one, by the
    /// object holding them, read from the inverse of every object that can be a member, when stage 1 read every
    /// such object from an SQLite store (whose to-many relationships of this kind are that inverse's column):
    /// one pass over objects in memory instead of a query per batch. Nil when some such object was not read.
    func membersFromInverse(of relationship: RelationshipDescription) -> [ObjectID: [ObjectID]]? {
        if let members = membersByRelationship[ObjectIdentifier(relationship)] { return members }
        guard sourceStore.type == .sqlite, relationship.isToMany, !relationship.isOrdered,
            let inverse = relationship.resolvedInverse, !inverse.isToMany, !inverse.isTransient,
            let target = relationship.resolvedDestination
        else { return nil }
        var members: [ObjectID: [ObjectID]] = [:]
        for entity in [target] + target.allSubentities {
            guard let objects = fetchedSources[ObjectIdentifier(entity)] else {
                if entity.isAbstract { continue }
                return nil
            }
            guard let own = entity.relationshipsByName[inverse.name] else { return nil }
            for object in objects {
                if case .toOne(let holder?) = object.loadedStorage(for: own) { members[holder, default: []].append(object.objectID) }
            }
        }
        membersByRelationship[ObjectIdentifier(relationship)] = members
        return members
    }

    /// Whether an object lives in the source context.
    func isSourceObject(_ object: ManagedObject) -> Bool { object.managedObjectContext === sourceContext }
}
