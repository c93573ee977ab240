import QuireSupport

extension QueryPredicate {
    /// Checks every key path of the predicate against the model, starting at `entity`, so that a fetch
    /// naming a key the entity does not have fails when it is made, whatever the store holds (an empty store
    /// included) and whatever kind the store is.
    ///
    /// Key paths may pass through to-one and to-many relationships; a path stops being checked at a
    /// collection operator (`@count`) or once it reaches an attribute (what lies beyond is read from the
    /// value). Key paths after a subquery's variable (`$x.name`) are checked against the subquery's element
    /// entity; other variables are not checked.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` naming the key and the entity that lacks it.
    package func validateKeyPaths(from entity: EntityDescription) throws {
        try Self.validate(self, entity: entity, variables: [:])
    }

    private static func validate(_ predicate: QueryPredicate, entity: EntityDescription?, variables: [String: EntityDescription]) throws {
        switch predicate {
        case .true, .false:
            return
        case .comparison(let comparison):
            // `key == constant` on one of the entity's attributes, as the comparison remembers it (every fetch of
            // an import's lookup by key is checked): nothing else to check.
            if let entity, let compiled = comparison.compiled, compiled.lastKeyPosition == 0,
                compiled.firstKeyAttributeSlot(in: entity) != nil
            {
                return
            }
            try validate(comparison.left, entity: entity, variables: variables)
            try validate(comparison.right, entity: entity, variables: variables)
        case .and(let predicates), .or(let predicates):
            for predicate in predicates { try validate(predicate, entity: entity, variables: variables) }
        case .not(let predicate):
            try validate(predicate, entity: entity, variables: variables)
        }
    }

    /// Checks an expression's key paths; returns the entity its value's objects have, when it is known.
    @discardableResult
    private static func validate(
        _ expression: QueryExpression, entity: EntityDescription?, variables: [String: EntityDescription]
    ) throws -> EntityDescription? {
        switch expression {
        case .constant, .objectID:
            return nil
        case .evaluatedObject:
            return entity
        case .variable(let name):
            return variables[name]
        case .keyPath(let path):
            guard let entity else { return nil }
            return try validate(path, from: entity)
        case .member(let base, let path):
            guard let start = try validate(base, entity: entity, variables: variables) else { return nil }
            return try validate(path, from: start)
        case .aggregate(_, let collection, let path):
            let elements = try validate(collection, entity: entity, variables: variables)
            if let path, let elements { _ = try validate(path, from: elements) }
            return nil
        case .subquery(let collection, let variable, let predicate):
            let elements = try validate(collection, entity: entity, variables: variables)
            var inner = variables
            inner[variable] = elements
            try validate(predicate, entity: elements, variables: inner)
            return elements
        case .array(let elements):
            for element in elements { try validate(element, entity: entity, variables: variables) }
            return nil
        case .cast(let value, _):
            try validate(value, entity: entity, variables: variables)
            return nil
        case .function(_, let arguments):
            for argument in arguments { try validate(argument, entity: entity, variables: variables) }
            return nil
        }
    }

    /// Checks one dotted key path; returns the entity a path ending on a relationship reaches.
    private static func validate(_ path: String, from entity: EntityDescription) throws -> EntityDescription? {
        var current = entity
        let keys = path.split(separator: ".").map(String.init)
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@") || key == "self" || key == "SELF" { return nil }
            guard let property = current.property(named: key) else {
                throw QuireError(
                    .invalidFetchRequest,
                    "Entity '\(current.name)' has no property '\(key)' (in the predicate's key path '\(path)').",
                    context: .init(entity: current.name, key: key))
            }
            if let composite = property as? CompositeAttributeDescription, index < keys.count - 1 {
                // `address.city`: the rest names an element, unless it goes on into an operator (`@count`).
                let rest = keys[(index + 1)...].prefix { !$0.hasPrefix("@") }
                guard composite.leaf(forPath: rest) != nil || rest.isEmpty else {
                    throw QuireError(
                        .invalidFetchRequest,
                        "Composite attribute '\(current.name).\(key)' has no element '\(rest.joined(separator: "."))' (in the predicate's key path '\(path)').",
                        context: .init(entity: current.name, key: key))
                }
                return nil
            }
            guard let relationship = property as? RelationshipDescription,
                let destination = relationship.resolvedDestination ?? relationship.destinationEntity
            else { return nil }
            current = destination
        }
        return current
    }
}
