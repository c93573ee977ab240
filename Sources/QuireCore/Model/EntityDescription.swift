import Synchronization
import QuireSupport
import Foundation

/// An entity of a model (`NSEntityDescription`): a name, properties, and a place in an inheritance hierarchy.
///
/// ```swift
/// let run = EntityDescription(name: "Run")
/// run.properties = [
///     AttributeDescription(name: "date", type: .date, isOptional: false),
///     AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
/// ]
/// ```
///
/// `@unchecked Sendable`: as for ``PropertyDescription``, state is written only while the model is editable
/// and read-only once a coordinator can reach it.
public final class EntityDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`). A model is
    // written only while it is editable, by the code building it, before any context or store can reach it,
    // and only read once frozen (writes then trap in `checkEditable()`), so no two accesses can overlap. The
    // checks would otherwise run on every fetch and save: the layers are separate modules, so the optimiser
    // can no longer prove them away as it did when everything was one module.
    /// The entity's name.
    @exclusivity(unchecked) public var name: String { didSet { checkEditable() } }
    /// The name of the class Core Data would instantiate; kept for model files. See `managedObjectClass`.
    @exclusivity(unchecked) public var managedObjectClassName: String? { didSet { checkEditable() } }

    /// The class of an entity's objects, as the model layer keeps it: the `Quire` module's `ManagedObject`
    /// (``base``) or a subclass of it, with the keys the class validates by methods of its own.
    package struct ObjectClass {
        /// The class; nil for `ManagedObject` itself.
        package var type: AnyClass?
        /// The class's `keysWithValidationMethods`.
        package var keysWithValidationMethods: Set<String>
        /// `ManagedObject` itself.
        package static let base = ObjectClass(type: nil, keysWithValidationMethods: [])
        /// A class and its validation keys.
        package init(type: AnyClass?, keysWithValidationMethods: Set<String>) {
            self.type = type
            self.keysWithValidationMethods = keysWithValidationMethods
        }
    }
    /// The class instantiated for the entity's objects; typed as `managedObjectClass` by the `Quire` module,
    /// the only writer.
    /// (Other modules read it through `objectClassType`.)
    @exclusivity(unchecked) package var objectClass: ObjectClass = .base { didSet { checkEditable() } }
    // Read through an accessor (as `objectClassType` reads the object class): another module reading a stored
    // property directly checks the access at run time, `@exclusivity(unchecked)` or not, and every inserted object
    // reads it.
    /// Whether the entity only groups sub-entities and has no objects of its own.
    public var isAbstract: Bool {
        get { _isAbstract }
        set { _isAbstract = newValue; checkEditable() }
    }
    @exclusivity(unchecked) private var _isAbstract = false
    /// Application data attached to the entity.
    @exclusivity(unchecked) public var userInfo: [String: String] = [:] { didSet { checkEditable() } }
    /// The entity's name in an earlier model version, for inferred migration.
    @exclusivity(unchecked) public var renamingIdentifier: String? { didSet { checkEditable() } }
    /// A string mixed into the version hash.
    @exclusivity(unchecked) public var versionHashModifier: String? { didSet { checkEditable() } }
    /// Sets of property names whose values must be unique together among the entity's objects
    /// (`uniquenessConstraints`), inherited by sub-entities. Part of the version hash; SQLite stores create a unique
    /// index per constraint, and saves on every store type enforce them under the context's merge policy.
    @exclusivity(unchecked) public var uniquenessConstraints: [[String]] = [] { didSet { checkEditable() } }
    /// The entity's fetch indexes (`indexes`), as the model declares them. SQLite stores create each B-tree index as
    /// Core Data names it, `Z_<Entity>_<name>`; partial and R-tree indexes are kept but not created (see
    /// ``ManagedObjectModel/unsupportedFeatures``).
    @exclusivity(unchecked) public var fetchIndexes: [FetchIndexDescription] = [] { didSet { checkEditable() } }
    /// The entity's own fetched properties, evaluated lazily by objects (see ``FetchedPropertyDescription``).
    @exclusivity(unchecked) public var fetchedProperties: [FetchedPropertyDescription] = [] { didSet { checkEditable() } }

    /// The entity's own properties (not those it inherits). Setting them makes this entity their owner.
    public var properties: [PropertyDescription] = [] {
        didSet {
            checkEditable()
            for property in properties { property.entity = self }
        }
    }

    /// The entity's direct sub-entities. Setting them makes this entity their superentity.
    public var subentities: [EntityDescription] = [] {
        didSet {
            checkEditable()
            for sub in subentities { sub.superentity = self }
        }
    }

    /// The entity this one inherits from.
    ///
    /// Back-pointers in a model are `unowned`, not `weak`: a weak reference would give the entity a side
    /// table and slow down every retain of it on the fetch path. Reading one after its target was released
    /// (a superentity or model dropped while this entity is kept) is a programmer error and traps.
    @exclusivity(unchecked) public package(set) unowned var superentity: EntityDescription?
    /// The model the entity belongs to.
    @exclusivity(unchecked) public package(set) unowned var managedObjectModel: ManagedObjectModel?

    @exclusivity(unchecked) private var frozenFlag = false
    /// Whether the entity's model is frozen (read through this getter so other modules' reads carry no
    /// exclusivity check).
    package var isFrozen: Bool {
        get { frozenFlag }
        set { frozenFlag = newValue }
    }

    /// Creates an entity whose objects are plain `ManagedObject`s (the `Quire` module adds an initializer
    /// that names a subclass).
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - properties: Its own attributes and relationships.
    public init(name: String, properties: [PropertyDescription] = []) {
        self.name = name
        self.properties = properties
        for property in properties { property.entity = self }
    }

    func checkEditable() {
        precondition(!isFrozen, "Can't modify an immutable model: entity '\(name)' belongs to a model a coordinator uses.")
    }

    // MARK: Lookups (valid at any time; cached once frozen)

    /// Every property, inherited ones included, keyed by name.
    /// A composite's elements are reached through the composite (`address`), not listed themselves.
    public var propertiesByName: [String: PropertyDescription] {
        if isFrozen { return frozenDeclaredPropertiesByName ?? frozenPropertiesByName }
        var result = superentity?.propertiesByName ?? [:]
        for property in properties { result[property.name] = property }
        return result
    }

    /// Every attribute, inherited ones included, keyed by name.
    public var attributesByName: [String: AttributeDescription] {
        propertiesByName.compactMapValues { $0 as? AttributeDescription }
    }

    /// Every attribute a record stores, by key: the declared ones and the elements of composite attributes under
    /// their key paths (`address.city`; before the model is frozen, copies of the elements). What migrations map.
    package var storedAttributesByKey: [String: AttributeDescription] {
        if isFrozen {
            guard !allComposites.isEmpty else { return attributesByName }
            return Dictionary(allAttributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        // Before the layout exists: the elements as copies named by their key paths.
        var result = attributesByName
        for composite in compositeAttributesByName.values {
            for (path, element) in composite.flattenedElements() {
                guard let element = element as? AttributeDescription else { continue }
                let leaf = element.copy(named: path.joined(separator: "."))
                leaf.isTransient = composite.isTransient || element.isTransient
                result[leaf.name] = leaf
            }
        }
        return result
    }

    /// Every composite attribute, inherited ones included, keyed by name.
    public var compositeAttributesByName: [String: CompositeAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? CompositeAttributeDescription }
    }

    /// Every relationship, inherited ones included, keyed by name.
    public var relationshipsByName: [String: RelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? RelationshipDescription }
    }

    /// The property (inherited ones included) with a name. Once frozen, a short linear scan over the names
    /// (small strings compare as two machine words), which beats hashing the key for the few properties
    /// entities have; large entities use the dictionary.
    package func property(named name: String) -> PropertyDescription? {
        guard isFrozen else { return propertiesByName[name] }
        guard let index = propertyIndex(forKey: name) else { return nil }
        return frozenPropertyList[index]
    }

    /// The slot of the attribute with a name, once the model is frozen (nil before, or for other keys).
    func attributeSlot(named name: String) -> Int? {
        guard let index = propertyIndex(forKey: name), index < _frozenAttributeTypes.count else { return nil }
        return index
    }

    /// Whether this entity is `entity` or one of its sub-entities.
    public func isKind(of entity: EntityDescription) -> Bool {
        if self === entity { return true }
        // Entities of frozen models in different hierarchies (the common answer) are told apart by their roots,
        // without walking the superentities (each step an unowned load).
        if let root = frozenRootAddress, let otherRoot = entity.frozenRootAddress, root != otherRoot { return false }
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The root of the entity's inheritance hierarchy (itself when it has no superentity).
    public var rootEntity: EntityDescription {
        if let frozenRoot { return frozenRoot }
        var current = self
        while let parent = current.superentity { current = parent }
        return current
    }

    /// The entity's relationships whose destination is `entity`.
    public func relationships(forDestination entity: EntityDescription) -> [RelationshipDescription] {
        allRelationships.filter { $0.destinationEntityName == entity.name }
    }

    /// The entity's version hash, as Core Data computes it (`NSEntityDescription.versionHash`): over its name,
    /// abstractness, superentity, persistent properties, modifier and uniqueness constraints. Stores written by
    /// Core Data carry these in `NSStoreModelVersionHashes`.
    public var versionHash: Data { CoreDataVersionHash.hash(of: self) }

    /// The version hash Quire computed before it followed Core Data's algorithm (stores it wrote until 2026-11
    /// carry these); only compared, never written.
    package var legacyVersionHash: Data {
        var text = "entity=\(name);abstract=\(isAbstract);super=\(superentity?.name ?? "");modifier=\(versionHashModifier ?? "")"
        let persistent = propertiesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        for property in persistent {
            text += "|" + property.versionHashText
        }
        return Data(SHA256.hash(Data(text.utf8)))
    }

    // MARK: Frozen layout (set by ManagedObjectModel.freeze)

    // The frozen layout below is written by `computeLayout()` and `computeHierarchy()` while the model freezes,
    // before any context or store can read it, and only read afterwards; no access can overlap a write, so the
    // properties skip dynamic exclusivity checks (which the layers' separate modules would otherwise keep on
    // every fetch and save: other modules read them).

    /// All attributes, inherited ones first, in slot order.
    @exclusivity(unchecked) private var _allAttributes: [AttributeDescription] = []
    package var allAttributes: [AttributeDescription] { _allAttributes }
    /// All relationships, inherited ones first, in slot order.
    @exclusivity(unchecked) private var _allRelationships: [RelationshipDescription] = []
    package var allRelationships: [RelationshipDescription] { _allRelationships }
    @exclusivity(unchecked) private var frozenPropertiesByName: [String: PropertyDescription] = [:]
    /// `frozenPropertiesByName` without composites' element attributes, for entities that have composites.
    @exclusivity(unchecked) private var frozenDeclaredPropertiesByName: [String: PropertyDescription]?
    /// All composite attributes, inherited ones first (their elements are in ``allAttributes``).
    @exclusivity(unchecked) private var _allComposites: [CompositeAttributeDescription] = []
    package var allComposites: [CompositeAttributeDescription] { _allComposites }
    @exclusivity(unchecked) private(set) var frozenPropertyNames: [String] = []
    /// The two machine words of each name in `frozenPropertyNames`, for ``propertyIndex(forKey:)``.
    @exclusivity(unchecked) private(set) var frozenNameWords: [StringWords] = []
    /// A number drawn when the entity's layout (its slots and property indexes) is computed, never drawn twice in
    /// the process; 0 before. What a predicate's key path remembers an index with (``SplitKeyPath``), so that an
    /// index is never applied to another entity, or to this one laid out again.
    @usableFromInline @exclusivity(unchecked) package private(set) var layoutSerial: UInt64 = 0
    /// The last ``layoutSerial`` drawn.
    private static let layoutSerials = Atomic<UInt64>(0)
    /// Indexes into `frozenPropertyNames` by name, for entities with many properties.
    @exclusivity(unchecked) private(set) var frozenIndexByName: [String: Int] = [:]
    /// Slots of transient attributes and relationships, and of required persistent attributes, so saves
    /// need not walk every property of every object.
    @exclusivity(unchecked) private var _transientAttributeSlots: [Int] = []
    package var transientAttributeSlots: [Int] { _transientAttributeSlots }
    @exclusivity(unchecked) private var _transientRelationshipSlots: [Int] = []
    package var transientRelationshipSlots: [Int] { _transientRelationshipSlots }
    @exclusivity(unchecked) private var _requiredAttributeSlots: [Int] = []
    package var requiredAttributeSlots: [Int] { _requiredAttributeSlots }
    /// Slots of the attributes validation checks (required persistent ones, and those with a minimum,
    /// maximum, pattern or predicate), so objects of entities without rules cost nothing to validate.
    @exclusivity(unchecked) private var _validatedAttributeSlots: [Int] = []
    package var validatedAttributeSlots: [Int] { _validatedAttributeSlots }
    /// Slots of the persistent relationships validation checks (required, counted, or with predicates).
    @exclusivity(unchecked) private var _validatedRelationshipSlots: [Int] = []
    package var validatedRelationshipSlots: [Int] { _validatedRelationshipSlots }
    /// Slots of the relationships with the deny delete rule.
    @exclusivity(unchecked) private var _denyRelationshipSlots: [Int] = []
    package var denyRelationshipSlots: [Int] { _denyRelationshipSlots }
    /// The properties whose key the class's ``ManagedObject/keysWithValidationMethods`` names.
    @exclusivity(unchecked) private var _propertiesWithValidationMethods: [PropertyDescription] = []
    package var propertiesWithValidationMethods: [PropertyDescription] { _propertiesWithValidationMethods }
    /// Attribute names and types by slot, for the key-value fast path.
    @exclusivity(unchecked) private(set) var frozenAttributeNames: [String] = []
    @exclusivity(unchecked) private(set) var _frozenAttributeTypes: [AttributeType] = []
    var frozenAttributeTypes: [AttributeType] { _frozenAttributeTypes }
    @exclusivity(unchecked) private(set) var frozenPropertyList: [PropertyDescription] = []
    /// The entity's index in the frozen model (``ManagedObjectModel/entitiesByNumber``), by name from 1: what the
    /// in-memory, atomic and binary stores number entities by. SQLite stores use their own numbers (Core Data's
    /// depth-first numbering for new stores, `Z_PRIMARYKEY` for existing ones; see `CoreDataEntityNumbers`).
    @exclusivity(unchecked) private var _entityNumber: Int = 0
    package var entityNumber: Int { get { _entityNumber } set { _entityNumber = newValue } }
    /// The entity numbers of this entity and all its descendants.
    @exclusivity(unchecked) private var _hierarchyEntityNumbers: [Int] = []
    package var hierarchyEntityNumbers: [Int] { _hierarchyEntityNumbers }
    /// Every descendant entity, depth first.
    @exclusivity(unchecked) private var _allSubentities: [EntityDescription] = []
    package var allSubentities: [EntityDescription] { _allSubentities }
    /// Per attribute slot: the default values a new object starts with.
    @exclusivity(unchecked) private var _defaultAttributeValues: [AttributeValue] = []
    package var defaultAttributeValues: [AttributeValue] { _defaultAttributeValues }
    /// Whether every default value is of a case without a reference in it (nil, numbers, Booleans, dates), so
    /// that ``makeDefaultAttributeValues()`` may copy them as bytes.
    @exclusivity(unchecked) private var defaultAttributeValuesAreTrivial = false

    /// The default values for an inserted object: an array with a buffer of its own when the defaults hold no
    /// references, so that the object's first value set does not copy the entity's shared array (that copy
    /// goes through the standard library's unspecialized code, about 900 instructions for eleven values; this
    /// one about 550); otherwise the entity's shared array.
    package func makeDefaultAttributeValues() -> [AttributeValue] {
        let defaults = _defaultAttributeValues
        // Defaults that hold references are shared: the object's first value set copies them.
        guard defaultAttributeValuesAreTrivial, !defaults.isEmpty else { return defaults }
        // Made as nils by `map` (whose allocation is specialized here; `Array(repeating:count:)` and
        // `Array(unsafeUninitializedCapacity:)` allocate through unspecialized code, about 650 instructions),
        // then the defaults' bytes copied over.
        var values = (0..<defaults.count).map { _ in AttributeValue.null }
        values.withUnsafeMutableBytes { target in
            defaults.withUnsafeBytes { source in
                // Safe: both buffers hold `defaults.count` values; the nils overwritten hold no reference, and
                // every default is of a case whose payload holds none (`AttributeValue.holdsNoReference`), so
                // its bytes are a complete copy of it.
                target.copyMemory(from: source)
            }
        }
        return values
    }

    /// Whether the entity has to-many relationships (saves skip join and order work for those without).
    @exclusivity(unchecked) package private(set) var hasToManyRelationships = false
    /// Per relationship slot: the values a new object starts with (nil to-ones, empty to-manys).
    @exclusivity(unchecked) private var _emptyRelationshipValues: [RelationshipStorage] = []
    package var emptyRelationshipValues: [RelationshipStorage] { _emptyRelationshipValues }

    func computeLayout() {
        let inheritedAttributes = superentity?.allAttributes ?? []
        let inheritedRelationships = superentity?.allRelationships ?? []
        let ownComposites = properties.compactMap { $0 as? CompositeAttributeDescription }
        for composite in ownComposites { composite.makeLeaves(for: self) }
        // A composite's elements are stored as attributes of their own, after the entity's declared ones.
        let ownAttributes = properties.compactMap { $0 as? AttributeDescription } + ownComposites.flatMap { $0.leaves.map(\.attribute) }
        let ownRelationships = properties.compactMap { $0 as? RelationshipDescription }
        _allComposites = (superentity?.allComposites ?? []) + ownComposites
        _allAttributes = inheritedAttributes + ownAttributes
        _allRelationships = inheritedRelationships + ownRelationships
        for (index, attribute) in allAttributes.enumerated() where attribute.entity === self {
            attribute.slot = index
        }
        for (index, relationship) in allRelationships.enumerated() where relationship.entity === self {
            relationship.slot = index
        }
        frozenPropertiesByName = [:]
        for property in allAttributes as [PropertyDescription] + allRelationships {
            frozenPropertiesByName[property.name] = property
        }
        for composite in allComposites { frozenPropertiesByName[composite.name] = composite }
        frozenDeclaredPropertiesByName = allComposites.isEmpty ? nil : frozenPropertiesByName.filter { !$0.key.contains(".") }
        frozenPropertyList = allAttributes as [PropertyDescription] + allRelationships + allComposites
        frozenPropertyNames = frozenPropertyList.map(\.name)
        frozenNameWords = frozenPropertyNames.map(StringWords.init)
        layoutSerial = Self.layoutSerials.add(1, ordering: .relaxed).newValue
        frozenIndexByName = Dictionary(frozenPropertyNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        frozenAttributeNames = allAttributes.map(\.name)
        _transientAttributeSlots = allAttributes.indices.filter { allAttributes[$0].isTransient }
        _transientRelationshipSlots = allRelationships.indices.filter { allRelationships[$0].isTransient }
        _requiredAttributeSlots = allAttributes.indices.filter { !allAttributes[$0].isOptional && !allAttributes[$0].isTransient }
        _validatedAttributeSlots = allAttributes.indices.filter { slot in
            let attribute = allAttributes[slot]
            // Integer 16 and 32 attributes are checked against their type's range: setValue stores an integer
            // out of it, and the save reports it (NSValidationNumberTooLarge/TooSmall), as in Core Data.
            return (!attribute.isOptional && !attribute.isTransient) || attribute.hasValueRules
                || attribute.attributeType == .integer16 || attribute.attributeType == .integer32
        }
        _validatedRelationshipSlots = allRelationships.indices.filter { allRelationships[$0].hasValidationRules }
        _denyRelationshipSlots = allRelationships.indices.filter { allRelationships[$0].deleteRule == .deny }
        let methodKeys = objectClass.keysWithValidationMethods
        _propertiesWithValidationMethods =
            methodKeys.isEmpty ? [] : frozenPropertyList.filter { methodKeys.contains($0.name) }
        _frozenAttributeTypes = allAttributes.map(\.attributeType)
        _defaultAttributeValues = allAttributes.map(\.defaultAttributeValue)
        defaultAttributeValuesAreTrivial = _defaultAttributeValues.allSatisfy(\.holdsNoReference)
        _emptyRelationshipValues = allRelationships.map(RelationshipStorage.empty(for:))
        hasToManyRelationships = allRelationships.contains(where: \.isToMany)
        _derivedSlotFlags = allAttributes.contains { $0.derivationExpression != nil } ? allAttributes.map { $0.derivationExpression != nil } : []
    }

    /// Per attribute slot, whether it is derived; empty for entities without derived attributes.
    @exclusivity(unchecked) private var _derivedSlotFlags: [Bool] = []
    /// Whether the attribute in a slot is derived (read-only: only saves compute it).
    /// Whether the entity (or an ancestor) declares a derived attribute: one test, asked for every saved object.
    package var hasDerivedAttributes: Bool { !_derivedSlotFlags.isEmpty }

    func isDerivedAttribute(slot: Int) -> Bool {
        !_derivedSlotFlags.isEmpty && slot < _derivedSlotFlags.count && _derivedSlotFlags[slot]
    }

    /// The root entity, cached when the model is frozen (an entity of the same model: the model keeps both alive,
    /// so unowned(unsafe) holds for as long as this entity is reachable through it).
    @exclusivity(unchecked) private unowned(unsafe) var frozenRoot: EntityDescription?

    /// The address of the frozen model the entity belongs to (nil until it freezes): what an ``ObjectIDOwner``
    /// compares, without retaining either, to know that it keeps the entity alive.
    @exclusivity(unchecked) @usableFromInline package private(set) var frozenModelAddress: UnsafeMutableRawPointer?

    /// The address of the root entity, cached with `frozenRoot`; read on every object lookup, and written
    /// once, when the model freezes, before any context can read it.
    @exclusivity(unchecked) private var frozenRootAddress: UnsafeMutableRawPointer?

    /// The address of the root entity, as its identity (what the object registry keys its tables by).
    package var rootEntityAddress: UnsafeMutableRawPointer {
        frozenRootAddress ?? Unmanaged.passUnretained(rootEntity).toOpaque()
    }

    func computeHierarchy() {
        frozenModelAddress = managedObjectModel.map { Unmanaged.passUnretained($0).toOpaque() }
        frozenRoot = rootEntity
        frozenRootAddress = Unmanaged.passUnretained(rootEntity).toOpaque()
        var result: [EntityDescription] = []
        func visit(_ entity: EntityDescription) {
            for sub in entity.subentities {
                result.append(sub)
                visit(sub)
            }
        }
        visit(self)
        _allSubentities = result
        _hierarchyEntityNumbers = [entityNumber] + result.map(\.entityNumber)
    }

    // MARK: Hashable (identity, as in Core Data)

    /// Entities are equal only to themselves.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }

    /// Hashes the entity's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
