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
    /// Custom code run for this mapping.
    public var migrationPolicy: (any MigrationPolicy)?
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

/// Where a destination property's value comes from (Core Data's property value expressions).
public enum MappingExpression: Sendable {
    /// The source object's value for a key, Core Data's `$source.<key>`. For a relationship, the destination
    /// objects migrated from the source object's related objects.
    case sourceValue(String)
    /// A constant (attributes only).
    case constant(AttributeValue)
    /// An expression in the predicate language, evaluated with `SELF` and `$source` both standing for the source
    /// object, such as `$source.pages` or `$source.chapters.@count` (attributes only).
    case expression(QueryExpression)
    /// Swift code computing the value from the source object (attributes only).
    case custom(@Sendable (MigrationSourceObject) throws -> AttributeValue)
}
