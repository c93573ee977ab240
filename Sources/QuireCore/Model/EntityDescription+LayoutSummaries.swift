import QuireSupport

extension EntityDescription {
    // MARK: Frozen layout summaries (one call from other modules, no array copied)

    /// Whether the frozen entity has transient attributes or relationships (saves blank them in what they send
    /// to stores).
    package var hasTransientProperties: Bool {
        !transientAttributeSlots.isEmpty || !transientRelationshipSlots.isEmpty
    }

    /// Whether validation has anything to check on the frozen entity's objects: validated attributes or
    /// relationships, or properties with validation methods.
    package var hasValidationRules: Bool {
        !validatedAttributeSlots.isEmpty || !validatedRelationshipSlots.isEmpty || !propertiesWithValidationMethods.isEmpty
    }
}
