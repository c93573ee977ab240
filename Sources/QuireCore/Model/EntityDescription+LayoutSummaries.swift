import QuireSupport

extension EntityDescription {
    // MARK: Frozen layout summaries (one call from other modules, no array copied)

    /// Whether the frozen entity has transient attributes or relationships (saves blank them in what they send
    /// to stores).
    package var hasTransientProperties: Bool {
        !transientAttributeSlots.isEmpty || !transientRelationshipSlots.isEmpty
    }

    /// Whether validation has anything to check on the frozen entity's objects: validated attributes or
    /// relationships, properties with validation methods, or required composite attributes.
    package var hasValidationRules: Bool {
        !validatedAttributeSlots.isEmpty || !validatedRelationshipSlots.isEmpty || !propertiesWithValidationMethods.isEmpty
            || allComposites.contains { !$0.isOptional || $0.hasRequiredNestedComposite }
    }
}

extension CompositeAttributeDescription {
    /// Whether a composite nested in this one, at any depth, is required (validation checks it when this one has a
    /// value).
    package var hasRequiredNestedComposite: Bool {
        elements.contains { element in
            guard let nested = element as? CompositeAttributeDescription else { return false }
            return !nested.isOptional || nested.hasRequiredNestedComposite
        }
    }
}
