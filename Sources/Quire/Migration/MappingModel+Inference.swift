import QuireCore
import QuireStores
import Foundation

extension MappingModel {
    /// Infers the mapping for a lightweight migration (`inferredMappingModel(forSourceModel:destinationModel:)`).
    ///
    /// What inference maps:
    /// - entities and properties added (new objects start empty; new attributes take their default) or removed
    ///   (their values are dropped);
    /// - renames, through the destination's ``EntityDescription/renamingIdentifier`` and
    ///   ``PropertyDescription/renamingIdentifier`` (set to the old name, or to the same identifier the old
    ///   version had);
    /// - optional becoming required when the destination has a default value (nil values take it), required
    ///   becoming optional;
    /// - integer types widened or narrowed (values out of range fail the migration), integers to floating-point
    ///   and decimal, float to double, binary data to and from transformable;
    /// - relationships renamed, to-one becoming to-many, ordered becoming unordered and the reverse, a
    ///   destination entity renamed.
    ///
    /// What it refuses, naming the entity and property: other type changes, a new required attribute or
    /// relationship without a default, optional becoming required without a default, to-many becoming to-one,
    /// an attribute becoming a relationship or the reverse, a relationship pointing at an unrelated entity, a
    /// concrete entity becoming abstract, two destination entities or properties claiming the same source.
    ///
    /// ```swift
    /// let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The model the store was written with.
    ///   - destination: The model to migrate to.
    /// - Returns: One entity mapping per concrete destination entity (copy or transform when it has a source, add
    ///   otherwise; an abstract entity has no objects of its own, its sub-entities' mappings carry theirs) and one
    ///   remove mapping per source entity left over.
    /// - Throws: ``QuireError/Code/inferredMappingModel`` naming the entity and property inference cannot map.
    public static func inferredMappingModel(
        forSourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel
    ) throws -> MappingModel {
        let sourceEntities = source.entitiesByName
        var claimed: [String: String] = [:]
        var matches: [(source: EntityDescription?, destination: EntityDescription)] = []
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            let match = Self.counterpart(of: entity, among: sourceEntities)
            if let match {
                if let other = claimed[match.name] {
                    throw cannotInfer(
                        "entities '\(other)' and '\(entity.name)' both claim the old entity '\(match.name)'", entity: entity.name)
                }
                claimed[match.name] = entity.name
            }
            matches.append((match, entity))
        }
        // Where the old entities went, to check that relationships still point at the same objects.
        var destinationOf: [String: String] = [:]
        for (old, new) in matches { if let old { destinationOf[old.name] = new.name } }

        var mappings: [EntityMapping] = []
        for (old, new) in matches {
            guard let old else {
                var mapping = EntityMapping(mappingType: .add, sourceEntityName: nil, destinationEntityName: new.name)
                mapping.destinationEntityVersionHash = new.versionHash
                mappings.append(mapping)
                continue
            }
            if new.isAbstract && !old.isAbstract {
                throw cannotInfer("entity '\(new.name)' is abstract but its old version '\(old.name)' is not", entity: new.name)
            }
            // An abstract entity has no objects of its own: its sub-entities' mappings carry them (each fetches
            // its own entity's objects only), with the properties they inherit.
            if new.isAbstract { continue }
            var mapping = EntityMapping(
                mappingType: old.versionHash == new.versionHash && old.name == new.name ? .copy : .transform,
                sourceEntityName: old.name, destinationEntityName: new.name)
            mapping.sourceEntityVersionHash = old.versionHash
            mapping.destinationEntityVersionHash = new.versionHash
            mapping.attributeMappings = try attributeMappings(from: old, to: new)
            mapping.relationshipMappings = try relationshipMappings(from: old, to: new, destinationOf: destinationOf)
            mappings.append(mapping)
        }
        for entity in source.entities.sorted(by: { $0.name < $1.name }) where claimed[entity.name] == nil {
            var mapping = EntityMapping(mappingType: .remove, sourceEntityName: entity.name, destinationEntityName: nil)
            mapping.sourceEntityVersionHash = entity.versionHash
            mappings.append(mapping)
        }
        return MappingModel(entityMappings: mappings)
    }

    /// The old entity a new one continues: the one its renaming identifier names (or that has the same renaming
    /// identifier), else the one with its name.
    private static func counterpart(of entity: EntityDescription, among old: [String: EntityDescription]) -> EntityDescription? {
        if let identifier = entity.renamingIdentifier {
            if let renamed = old[identifier] { return renamed }
            if let same = old.values.first(where: { $0.renamingIdentifier == identifier }) { return same }
        }
        return old[entity.name]
    }

    /// The old property a new one continues, among the old entity's persistent properties (inherited included).
    private static func counterpart(of property: PropertyDescription, in old: EntityDescription) -> PropertyDescription? {
        let candidates = old.propertiesByName.merging(old.storedAttributesByKey.mapValues { $0 as PropertyDescription }) { declared, _ in declared }.filter { !$0.value.isTransient }
        if let identifier = property.renamingIdentifier {
            if let renamed = candidates[identifier] { return renamed }
            if let same = candidates.values.first(where: { $0.renamingIdentifier == identifier }) { return same }
        }
        return candidates[property.name]
    }

    private static func attributeMappings(from old: EntityDescription, to new: EntityDescription) throws -> [PropertyMapping] {
        var result: [PropertyMapping] = []
        var claimed: [String: String] = [:]
        let attributes = new.storedAttributesByKey.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        for attribute in attributes {
            let where_ = "'\(new.name).\(attribute.name)'"
            guard let match = counterpart(of: attribute, in: old) else {
                if !attribute.isOptional && attribute.defaultAttributeValue.isNull {
                    throw cannotInfer(
                        "the new attribute \(where_) is required and has no default value", entity: new.name, key: attribute.name)
                }
                continue
            }
            guard let previous = match as? AttributeDescription else {
                throw cannotInfer(
                    "\(where_) was the relationship '\(old.name).\(match.name)' and is now an attribute", entity: new.name,
                    key: attribute.name)
            }
            if let other = claimed[previous.name] {
                throw cannotInfer(
                    "attributes '\(other)' and '\(attribute.name)' of '\(new.name)' both claim the old attribute '\(previous.name)'",
                    entity: new.name, key: attribute.name)
            }
            claimed[previous.name] = attribute.name
            guard canConvert(previous.attributeType, to: attribute.attributeType) else {
                throw cannotInfer(
                    "\(where_) changes type from \(previous.attributeType.rawValue) to \(attribute.attributeType.rawValue)",
                    entity: new.name, key: attribute.name)
            }
            if previous.isOptional && !attribute.isOptional && attribute.defaultAttributeValue.isNull {
                throw cannotInfer(
                    "\(where_) becomes required without a default value for the objects that have none", entity: new.name,
                    key: attribute.name)
            }
            result.append(.copy(attribute.name, from: previous.name))
        }
        return result
    }

    private static func relationshipMappings(
        from old: EntityDescription, to new: EntityDescription, destinationOf: [String: String]
    ) throws -> [PropertyMapping] {
        var result: [PropertyMapping] = []
        var claimed: [String: String] = [:]
        let relationships = new.relationshipsByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        for relationship in relationships {
            let where_ = "'\(new.name).\(relationship.name)'"
            let required = relationship.isToMany ? relationship.minCount > 0 : !relationship.isOptional
            guard let match = counterpart(of: relationship, in: old) else {
                if required {
                    throw cannotInfer("the new relationship \(where_) is required", entity: new.name, key: relationship.name)
                }
                continue
            }
            guard let previous = match as? RelationshipDescription else {
                throw cannotInfer(
                    "\(where_) was the attribute '\(old.name).\(match.name)' and is now a relationship", entity: new.name,
                    key: relationship.name)
            }
            if let other = claimed[previous.name] {
                throw cannotInfer(
                    "relationships '\(other)' and '\(relationship.name)' of '\(new.name)' both claim the old relationship "
                        + "'\(previous.name)'", entity: new.name, key: relationship.name)
            }
            claimed[previous.name] = relationship.name
            if previous.isToMany && !relationship.isToMany {
                throw cannotInfer("\(where_) changes from to-many to to-one", entity: new.name, key: relationship.name)
            }
            let wasRequired = previous.isToMany ? previous.minCount >= relationship.minCount : !previous.isOptional
            if required && !wasRequired {
                throw cannotInfer(
                    "\(where_) becomes required, and objects without related objects cannot be given any", entity: new.name,
                    key: relationship.name)
            }
            let movedTo = destinationOf[previous.destinationEntityName]
            let newDestination = new.managedObjectModel?.entitiesByName[relationship.destinationEntityName]
            let pointsAtSameObjects =
                movedTo == relationship.destinationEntityName
                || (movedTo.flatMap { new.managedObjectModel?.entitiesByName[$0] }).map { moved in
                    newDestination.map { moved.isKind(of: $0) } ?? false
                } ?? false
            guard pointsAtSameObjects else {
                throw cannotInfer(
                    "\(where_) points at '\(relationship.destinationEntityName)' where it pointed at "
                        + "'\(previous.destinationEntityName)'", entity: new.name, key: relationship.name)
            }
            result.append(.copy(relationship.name, from: previous.name))
        }
        return result
    }

    /// Type changes inference maps: integers among themselves and to floating point and decimal, float to
    /// double, binary data and transformable values (both bytes) either way.
    static func canConvert(_ from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        switch (from, to) {
        case (let a, let b) where a.isInteger && (b.isInteger || b == .double || b == .float || b == .decimal): return true
        case (.float, .double): return true
        case (.binaryData, .transformable), (.transformable, .binaryData): return true
        default: return false
        }
    }

    private static func cannotInfer(_ reason: String, entity: String, key: String? = nil) -> QuireError {
        QuireError(
            .inferredMappingModel, "Cannot infer a mapping model: \(reason).", context: .init(entity: entity, key: key))
    }
}
