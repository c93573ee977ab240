import QuireSupport
/// Resolves dotted key paths (`"department.name"`) against an entity.
package enum KeyPathResolver {
    /// A resolved key path: the to-one relationships it passes through and the property it ends on.
    package struct Resolved {
        package var relationships: [RelationshipDescription]
        /// The attribute the path ends on, or nil when it ends on a to-one relationship.
        package var attribute: AttributeDescription?
        /// The relationship the path ends on, when it ends on one.
        package var finalRelationship: RelationshipDescription?
    }

    /// Resolves a key path through to-one relationships only (what sorting and SQL joins accept).
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` naming the key that does not exist or is to-many.
    package static func resolve(_ keyPath: String, from entity: EntityDescription) throws -> Resolved {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else {
            throw QuireError(.invalidFetchRequest, "The key path '\(keyPath)' is empty or malformed.", context: .init(entity: entity.name))
        }
        var current = entity
        var resolved = Resolved(relationships: [], attribute: nil, finalRelationship: nil)
        for (index, key) in components.enumerated() {
            let isLast = index == components.count - 1
            guard let property = current.propertiesByName[key] else {
                throw QuireError(
                    .invalidFetchRequest, "Entity '\(current.name)' has no property '\(key)' (in key path '\(keyPath)').",
                    context: .init(entity: current.name, key: key))
            }
            if let attribute = property as? AttributeDescription {
                guard isLast else {
                    throw QuireError(
                        .invalidFetchRequest, "'\(key)' in key path '\(keyPath)' is an attribute, so the path cannot continue.",
                        context: .init(entity: current.name, key: key))
                }
                resolved.attribute = attribute
            } else if let composite = property as? CompositeAttributeDescription {
                // `address.city`: the rest of the path names an element of the composite.
                guard let leaf = composite.leaf(forPath: components[(index + 1)...]) else {
                    throw QuireError(
                        .invalidFetchRequest, "Composite attribute '\(key)' has no element at '\(keyPath)'.",
                        context: .init(entity: current.name, key: key))
                }
                resolved.attribute = leaf
                return resolved
            } else if let relationship = property as? RelationshipDescription {
                guard !relationship.isToMany else {
                    throw QuireError(
                        .invalidFetchRequest, "To-many key '\(key)' is not allowed in key path '\(keyPath)' here.",
                        context: .init(entity: current.name, key: key))
                }
                guard let destination = relationship.resolvedDestination ?? relationship.destinationEntity else {
                    throw QuireError(.invalidFetchRequest, "Relationship '\(key)' has no destination.", context: .init(entity: current.name, key: key))
                }
                if isLast {
                    resolved.finalRelationship = relationship
                } else {
                    resolved.relationships.append(relationship)
                    current = destination
                }
            }
        }
        return resolved
    }

    /// Checks that a key path resolves.
    package static func validate(_ keyPath: String, from entity: EntityDescription) throws {
        _ = try resolve(keyPath, from: entity)
    }
}
