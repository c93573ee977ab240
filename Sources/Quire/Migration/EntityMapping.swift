import QuireCore
import QuireStores
import Foundation

/// How the objects of one source entity become objects of one destination entity (`NSEntityMapping`).
public struct EntityMapping: Sendable {
    /// What an entity mapping does (`NSEntityMappingType`).
    public enum MappingType: String, Sendable, Hashable {
        /// The destination entity is new: nothing to carry over.
        case add
        /// The source entity is gone: its objects are dropped.
        case remove
        /// Objects are copied with the same attributes and relationships; a copy mapping that lists no property
        /// mappings copies every stored property the two entities share by name.
        case copy
        /// Objects are copied with values computed by property mappings.
        case transform
        /// Objects are made by a ``MigrationPolicy``.
        case custom
    }

    /// The mapping's name (`SourceToDestination` by convention).
    public var name: String
    /// What the mapping does.
    public var mappingType: MappingType
    /// The source entity's name (nil for ``MappingType/add``).
    public var sourceEntityName: String?
    /// The source entity's version hash, when the mapping is tied to one version.
    public var sourceEntityVersionHash: Data?
    /// The destination entity's name (nil for ``MappingType/remove``).
    public var destinationEntityName: String?
    /// The destination entity's version hash, when the mapping is tied to one version.
    public var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value. Attributes without a mapping start with their default.
    public var attributeMappings: [PropertyMapping]
    /// How each destination relationship gets its objects. Relationships without a mapping start empty.
    public var relationshipMappings: [PropertyMapping]
    /// Which source objects to migrate (Core Data's source expression); nil for all objects of the source entity
    /// (not of its sub-entities, which have mappings of their own).
    public var sourceFilter: QueryPredicate?
    /// Custom code run for this mapping, as a value (see ``MigrationPolicy``).
    public var migrationPolicy: (any MigrationPolicy)?
    /// The name of the ``EntityMigrationPolicy`` subclass that runs this mapping
    /// (`entityMigrationPolicyClassName`), as Xcode's mapping-model editor records it ("Custom Policy"): the
    /// migration finds the class in ``EntityMigrationPolicyRegistry``, where the application registered it.
    public var entityMigrationPolicyClassName: String?
    /// Application data attached to the mapping.
    public var userInfo: [String: String]

    /// Creates an entity mapping.
    ///
    /// - Parameters:
    ///   - name: The mapping's name; `<Source>To<Destination>`, `Add<Destination>` or `Remove<Source>` when nil.
    ///   - mappingType: What the mapping does.
    ///   - sourceEntityName: The source entity (nil for an added entity).
    ///   - destinationEntityName: The destination entity (nil for a removed entity).
    ///   - attributeMappings: How destination attributes get their values.
    ///   - relationshipMappings: How destination relationships get their objects.
    ///   - sourceFilter: Which source objects to migrate.
    ///   - migrationPolicy: Custom code run for the mapping.
    public init(
        name: String? = nil,
        mappingType: MappingType,
        sourceEntityName: String?,
        destinationEntityName: String?,
        attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [],
        sourceFilter: QueryPredicate? = nil,
        migrationPolicy: (any MigrationPolicy)? = nil
    ) {
        switch (sourceEntityName, destinationEntityName) {
        case (let source?, let destination?): self.name = name ?? "\(source)To\(destination)"
        case (nil, let destination?): self.name = name ?? "Add\(destination)"
        case (let source?, nil): self.name = name ?? "Remove\(source)"
        case (nil, nil): self.name = name ?? ""
        }
        self.mappingType = mappingType
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.sourceFilter = sourceFilter
        self.migrationPolicy = migrationPolicy
        self.userInfo = [:]
    }

    /// The mapping's types as Xcode's editor names them (`mappingTypeName`): `Undefined` (then decided by which
    /// entities the mapping names), `Custom`, `Add`, `Remove`, `Copy`, `Transform`.
    static func mappingType(named name: String?, source: String?, destination: String?, policy: String?) -> MappingType? {
        switch name ?? "Undefined" {
        case "Add": return .add
        case "Remove": return .remove
        case "Copy": return .copy
        case "Transform": return .transform
        case "Custom": return .custom
        case "Undefined":
            // What Xcode's compiler makes of it (CoreDataPlus's V2toV3.cdm): custom with a policy, copy without.
            switch (source, destination) {
            case (nil, _): return .add
            case (_, nil): return .remove
            default: return policy == nil ? .copy : .custom
            }
        default: return nil
        }
    }

    /// Whether the mapping carries objects over (copy, transform, custom).
    var migratesObjects: Bool {
        switch mappingType {
        case .copy, .transform, .custom: return sourceEntityName != nil && destinationEntityName != nil
        case .add, .remove: return false
        }
    }
}

/// How one destination property gets its value (`NSPropertyMapping`).
public struct PropertyMapping: Sendable {
    /// The destination property's name.
    public var name: String
    /// Where the value comes from; nil leaves the default value (attributes) or no objects (relationships).
    public var valueExpression: MappingExpression?
    /// Application data attached to the mapping.
    public var userInfo: [String: String] = [:]

    /// Creates a property mapping.
    ///
    /// - Parameters:
    ///   - name: The destination property's name.
    ///   - valueExpression: Where the value comes from.
    public init(name: String, valueExpression: MappingExpression?) {
        self.name = name
        self.valueExpression = valueExpression
    }

    /// A mapping that copies the source's value for a key (the same key unless `sourceKey` is given).
    ///
    /// ```swift
    /// PropertyMapping.copy("text", from: "body")   // Core Data's $source.body
    /// ```
    public static func copy(_ name: String, from sourceKey: String? = nil) -> PropertyMapping {
        PropertyMapping(name: name, valueExpression: .sourceValue(sourceKey ?? name))
    }
}
