import QuireSupport
import Foundation
import Synchronization

/// A managed object model (`NSManagedObjectModel`): the entities of an object graph and their properties.
///
/// Build one in code, the way Core Data's tutorial builds its Run entity:
///
/// ```swift
/// let run = EntityDescription(name: "Run")
/// run.properties = [
///     AttributeDescription(name: "date", type: .date, isOptional: false),
///     AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
/// ]
/// let model = ManagedObjectModel(entities: [run])
/// ```
///
/// or read the canonical form every store embeds with ``init(contentsOf:)``. A model stays editable until a
/// coordinator first uses it; after that it is frozen and changing it stops with a clear message.
///
/// ## Lifetime
///
/// Every model, however it was made or read, is freed once nothing uses it: no reference of the application's,
/// and no coordinator, store, context, managed object or ``ObjectID`` of it (an ID keeps its model alive, so
/// `id.entity` is always valid). Models are not interned: reading the same file twice gives two models. A tool
/// that reads the model from every document it opens (``embedded(inStoreAt:type:)``,
/// ``init(contentsOf:)``, ``init(compiledModelAt:)``, ``init(modelCache:file:)``,
/// ``init(serializedRepresentation:)``, ``forStore(at:type:modelFile:)``) keeps none of them once it lets each
/// document go. An entity or property does not keep its model alive: keep the model, or something of it, while
/// you use them.
///
/// `@unchecked Sendable`: state is written only while ``isEditable`` (checked on every write), and a model is
/// frozen before any coordinator, and so any other thread, can reach it.
public final class ManagedObjectModel: @unchecked Sendable, CustomStringConvertible {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`). A model is
    // written only while it is editable, by the code building it, before any context or store can reach it,
    // and only read once frozen (writes then trap in `checkEditable()`), so no two accesses can overlap. The
    // checks would otherwise run on every fetch and save: the layers are separate modules, so the optimiser
    // can no longer prove them away as it did when everything was one module.
    /// Every entity of the model, sub-entities included.
    public var entities: [EntityDescription] = [] {
        didSet {
            checkEditable()
            for entity in entities { entity.managedObjectModel = self }
        }
    }

    /// The model's configurations: named subsets of its entities, each of which a store can hold.
    @exclusivity(unchecked) public private(set) var configurations: [String: [String]] = [:]

    /// Identifiers of the model's version (such as `"v2"`), stored in store metadata.
    @exclusivity(unchecked) public var versionIdentifiers: Set<String> = [] { didSet { checkEditable() } }

    /// Core Data's localization dictionary (`"Entity/Run"`, `"Property/processID/Entity/Run"`, …).
    @exclusivity(unchecked) public var localizationDictionary: [String: String] = [:] { didSet { checkEditable() } }
    /// What the model says that Quire keeps but does not act on yet (fetch indexes other than single ascending
    /// ones, fetched properties, derived attributes) or could not keep (attribute types it lacks), one sentence
    /// each, the same words whichever file the model came from (Xcode model, compiled model, store cache, the
    /// canonical JSON form); shown by `quire info`. Empty for models built in code.
    @exclusivity(unchecked) public package(set) var unsupportedFeatures: [String] = []
    /// The `.xcdatamodeld` bundle the model is a version of, when it was read from one (by ``init(contentsOf:)`` or
    /// ``ModelBundle``): where automatic migration looks for the version an old store was written with, as Core Data
    /// looks in the application's bundle.
    @exclusivity(unchecked) public package(set) var versionBundleURL: URL?

    /// False once a coordinator has used the model.
    @exclusivity(unchecked) public private(set) var isEditable = true

    /// The fetch request templates, by name (see ``setFetchRequestTemplate(_:forName:)-(FetchRequest<Result>?,_)``).
    @exclusivity(unchecked) public package(set) var fetchRequestTemplatesByName: [String: FetchRequestTemplate] = [:]

    /// Creates an empty model.
    public init() {
        Self.liveModels.add(1, ordering: .relaxed)
    }

    /// Creates a model with entities; sub-entities must be listed too, as in Core Data.
    public init(entities: [EntityDescription]) {
        self.entities = entities
        for entity in entities { entity.managedObjectModel = self }
        Self.liveModels.add(1, ordering: .relaxed)
    }

    deinit {
        Self.liveModels.subtract(1, ordering: .relaxed)
    }

    /// How many models exist in the process; for tests and benchmarks (a model is freed once nothing uses it).
    package static var liveCount: Int { liveModels.load(ordering: .relaxed) }
    private static let liveModels = Atomic<Int>(0)

    private func checkEditable() {
        precondition(isEditable, "Can't modify an immutable model: a coordinator already uses it.")
    }

    /// The entities keyed by name.
    public var entitiesByName: [String: EntityDescription] {
        if !isEditable { return frozenEntitiesByName }
        var result: [String: EntityDescription] = [:]
        for entity in entities { result[entity.name] = entity }
        return result
    }
    @exclusivity(unchecked) private var frozenEntitiesByName: [String: EntityDescription] = [:]

    /// The entities of a configuration (all entities for `nil` or the default configuration `"Default"`).
    public func entities(forConfigurationName name: String?) -> [EntityDescription] {
        guard let name, name != "Default", let names = configurations[name] else { return entities }
        let byName = entitiesByName
        return names.compactMap { byName[$0] }
    }

    /// Sets the entities of a configuration.
    public func setEntities(_ entities: [EntityDescription], forConfigurationName name: String) {
        checkEditable()
        configurations[name] = entities.map(\.name)
    }

    /// The version hash of every entity, keyed by name (`NSStoreModelVersionHashes`), as Core Data computes them.
    public var entityVersionHashesByName: [String: Data] {
        var result: [String: Data] = [:]
        for entity in entities { result[entity.name] = entity.versionHash }
        return result
    }

    /// The version hashes Quire wrote before it followed Core Data's algorithm (until 2026-11), keyed by name.
    package var legacyEntityVersionHashesByName: [String: Data] {
        var result: [String: Data] = [:]
        for entity in entities { result[entity.name] = entity.legacyVersionHash }
        return result
    }

    /// Whether stored version hashes (`NSStoreModelVersionHashes`) are this model's: Core Data's hashes, or those
    /// Quire wrote with its former algorithm, so stores Quire wrote before still open with their model.
    package func hasVersionHashes(_ stored: [String: Data]?) -> Bool {
        guard let stored else { return false }
        return stored == entityVersionHashesByName || stored == legacyEntityVersionHashesByName
    }

    /// Entities ordered by Core Data's entity number (`Z_ENT`), valid once frozen; index 0 is entity 1.
    // Written while the model freezes, read-only afterwards: no overlapping access (see EntityDescription).
    @exclusivity(unchecked) package private(set) var entitiesByNumber: [EntityDescription] = []

    /// Checks the model and makes it immutable. Called by the first coordinator that uses it. The model is
    /// freed, as any object, once nothing uses it: object IDs and managed objects refer to its entities without
    /// retaining them, and each ID retains an ``ObjectIDOwner`` that keeps the model alive instead.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` naming the entity and property when a name is duplicated,
    ///   a destination or inverse does not exist, or an inverse does not point back.
    package func freeze() throws {
        guard isEditable else { return }
        try validate()
        let sorted = entities.sorted { $0.name < $1.name }
        for (index, entity) in sorted.enumerated() { entity.entityNumber = index + 1 }
        entitiesByNumber = sorted
        // Layouts parent first, so inherited properties keep their slots in sub-entities.
        var done = Set<ObjectIdentifier>()
        func layout(_ entity: EntityDescription) {
            guard !done.contains(ObjectIdentifier(entity)) else { return }
            if let parent = entity.superentity { layout(parent) }
            entity.computeLayout()
            done.insert(ObjectIdentifier(entity))
        }
        entities.forEach(layout)
        for entity in entities {
            for case let attribute as AttributeDescription in entity.properties { try attribute.compileRegularExpression() }
            for case let composite as CompositeAttributeDescription in entity.properties {
                for leaf in composite.leaves { try leaf.attribute.compileRegularExpression() }
            }
        }
        frozenEntitiesByName = [:]
        for entity in entities { frozenEntitiesByName[entity.name] = entity }
        for entity in entities {
            entity.computeHierarchy()
            for relationship in entity.allRelationships where relationship.entity === entity {
                relationship.resolvedDestination = frozenEntitiesByName[relationship.destinationEntityName]
                if let inverseName = relationship.inverseRelationshipName {
                    relationship.resolvedInverse = relationship.resolvedDestination?.frozenRelationship(named: inverseName)
                }
            }
        }
        isEditable = false
        for entity in entities {
            entity.isFrozen = true
            for property in entity.properties { property.isFrozen = true }
            for case let composite as CompositeAttributeDescription in entity.properties { composite.freezeElements() }
        }
    }

    private func validate() throws {
        var names = Set<String>()
        for entity in entities {
            guard !entity.name.isEmpty else { throw invalid("An entity has an empty name.") }
            guard names.insert(entity.name).inserted else {
                throw invalid("The model has two entities named '\(entity.name)'.", entity: entity.name)
            }
        }
        let byName = entitiesByName
        for entity in entities {
            for sub in entity.subentities where byName[sub.name] !== sub {
                throw invalid("Sub-entity '\(sub.name)' of '\(entity.name)' is not in the model's entities.", entity: entity.name)
            }
            var propertyNames = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
            for property in entity.properties {
                guard !property.name.isEmpty else {
                    throw invalid("A property of entity '\(entity.name)' has an empty name.", entity: entity.name)
                }
                guard propertyNames.insert(property.name).inserted else {
                    throw invalid(
                        "Entity '\(entity.name)' has two properties named '\(property.name)'.",
                        entity: entity.name, key: property.name)
                }
                if let composite = property as? CompositeAttributeDescription { try composite.checkElements(entity: entity.name) }
                guard let relationship = property as? RelationshipDescription else { continue }
                guard let destination = byName[relationship.destinationEntityName] else {
                    throw invalid(
                        "Relationship '\(relationship.name)' of entity '\(entity.name)' points at entity "
                            + "'\(relationship.destinationEntityName)', which the model does not have.",
                        entity: entity.name, key: relationship.name)
                }
                if let inverseName = relationship.inverseRelationshipName {
                    guard let inverse = destination.relationshipsByName[inverseName] else {
                        throw invalid(
                            "Relationship '\(relationship.name)' of entity '\(entity.name)' names the inverse "
                                + "'\(inverseName)', which entity '\(destination.name)' does not have.",
                            entity: entity.name, key: relationship.name)
                    }
                    guard inverse.inverseRelationshipName == nil || inverse.inverseRelationshipName == relationship.name
                    else {
                        throw invalid(
                            "Relationship '\(relationship.name)' of entity '\(entity.name)' and its inverse "
                                + "'\(destination.name).\(inverseName)' do not point back at each other.",
                            entity: entity.name, key: relationship.name)
                    }
                    // The inverse points back at the entity, an ancestor, or one of its sub-entities: Core Data
                    // accepts an inverse whose destination is a sub-entity of the source (Photos 10.15:
                    // `GenericAsset.extendedAttributes` ↔ `ExtendedAttributes.asset`, whose destination is `Asset`).
                    let inverseDestination = inverse.resolvedEntityForValidation(byName)
                    guard entity.isKind(of: inverseDestination) || inverseDestination.isKind(of: entity) else {
                        throw invalid(
                            "The inverse '\(destination.name).\(inverseName)' of '\(entity.name).\(relationship.name)' "
                                + "points at another entity.",
                            entity: entity.name, key: relationship.name)
                    }
                }
                guard relationship.minCount >= 0, relationship.maxCount >= 0,
                    relationship.maxCount == 0 || relationship.minCount <= relationship.maxCount
                else {
                    throw invalid(
                        "Relationship '\(relationship.name)' of entity '\(entity.name)' has invalid counts.",
                        entity: entity.name, key: relationship.name)
                }
            }
        }
    }

    private func invalid(_ message: String, entity: String? = nil, key: String? = nil) -> QuireError {
        QuireError(.invalidModel, message, context: .init(entity: entity, key: key))
    }

}

extension RelationshipDescription {
    /// The destination entity of this relationship, for validating an inverse before the model is frozen.
    fileprivate func resolvedEntityForValidation(_ byName: [String: EntityDescription]) -> EntityDescription {
        byName[destinationEntityName] ?? EntityDescription(name: "")
    }
}

extension EntityDescription {
    /// Looks up a relationship (inherited ones included) by name while freezing.
    func frozenRelationship(named name: String) -> RelationshipDescription? {
        allRelationships.first { $0.name == name }
    }
}
