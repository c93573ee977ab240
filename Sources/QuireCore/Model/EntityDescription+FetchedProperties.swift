import Foundation

extension EntityDescription {
    /// The fetched property with a name, the entity's own or one it inherits (`fetchedPropertiesByName`).
    public func fetchedProperty(named name: String) -> FetchedPropertyDescription? {
        var current: EntityDescription? = self
        while let entity = current {
            if let property = entity.fetchedProperties.first(where: { $0.name == name }) { return property }
            current = entity.superentity
        }
        return nil
    }

    /// Every fetched property, inherited ones included, keyed by name.
    public var fetchedPropertiesByName: [String: FetchedPropertyDescription] {
        var result = superentity?.fetchedPropertiesByName ?? [:]
        for property in fetchedProperties { result[property.name] = property }
        return result
    }
}
