import QuireSupport
import Foundation

/// What differs between two versions of a model, as their version hashes see it: entities added, removed or
/// changed, and for a changed entity the properties added, removed or changed.
///
/// ```swift
/// let difference = ModelDifference(from: version1, to: version2)
/// print(difference)   // entity Place added; Entry: text, wordCount added, body removed, mood changed
/// ```
///
/// Only what persistence sees counts, as for version hashes: a renamed property shows as one removed and one
/// added, and transient properties, user info and default values never show.
public struct ModelDifference: Sendable, Hashable, CustomStringConvertible {
    /// How one entity present in both versions changed.
    public struct EntityChange: Sendable, Hashable {
        /// The entity's name.
        public var entityName: String
        /// Persistent properties (inherited ones included) only the newer version has.
        public var addedProperties: [String] = []
        /// Persistent properties only the older version has.
        public var removedProperties: [String] = []
        /// Persistent properties both have, with different version hashes (type, optionality, shape, modifier).
        public var changedProperties: [String] = []
        /// Whether the entity itself changed: its abstractness, parent or version hash modifier.
        public var entityItselfChanged = false
    }

    /// Entities only the newer version has, by name.
    public var addedEntities: [String] = []
    /// Entities only the older version has, by name.
    public var removedEntities: [String] = []
    /// Entities both have whose version hashes differ.
    public var changedEntities: [EntityChange] = []

    /// Whether the versions are the same for persistence.
    public var isEmpty: Bool { addedEntities.isEmpty && removedEntities.isEmpty && changedEntities.isEmpty }

    /// Compares two models entity by entity and property by property.
    ///
    /// - Parameters:
    ///   - source: The older model (the one a store was written with).
    ///   - destination: The newer model.
    public init(from source: ManagedObjectModel, to destination: ManagedObjectModel) {
        let old = source.entitiesByName
        let new = destination.entitiesByName
        addedEntities = new.keys.filter { old[$0] == nil }.sorted()
        removedEntities = old.keys.filter { new[$0] == nil }.sorted()
        for name in new.keys.sorted() {
            guard let before = old[name], let after = new[name], before.versionHash != after.versionHash else { continue }
            let beforeProperties = Self.persistentHashes(of: before)
            let afterProperties = Self.persistentHashes(of: after)
            var change = EntityChange(entityName: name)
            change.addedProperties = afterProperties.keys.filter { beforeProperties[$0] == nil }.sorted()
            change.removedProperties = beforeProperties.keys.filter { afterProperties[$0] == nil }.sorted()
            change.changedProperties = afterProperties.keys.filter {
                beforeProperties[$0] != nil && beforeProperties[$0] != afterProperties[$0]
            }.sorted()
            change.entityItselfChanged =
                before.isAbstract != after.isAbstract || before.superentity?.name != after.superentity?.name
                || before.versionHashModifier != after.versionHashModifier
            changedEntities.append(change)
        }
    }

    /// Compares the entity version hashes a store's metadata records (`NSStoreModelVersionHashes`) with a model,
    /// when the store's own model is not at hand: entities are told apart, properties are not.
    ///
    /// - Parameters:
    ///   - storeVersionHashes: The store's hashes by entity name.
    ///   - model: The model to open the store with.
    public init(storeVersionHashes: [String: Data], model: ManagedObjectModel) {
        let hashes = model.entityVersionHashesByName
        addedEntities = hashes.keys.filter { storeVersionHashes[$0] == nil }.sorted()
        removedEntities = storeVersionHashes.keys.filter { hashes[$0] == nil }.sorted()
        changedEntities = hashes.keys.filter { storeVersionHashes[$0] != nil && storeVersionHashes[$0] != hashes[$0] }
            .sorted().map { EntityChange(entityName: $0, entityItselfChanged: true) }
    }

    private static func persistentHashes(of entity: EntityDescription) -> [String: Data] {
        var result: [String: Data] = [:]
        for (name, property) in entity.propertiesByName where !property.isTransient { result[name] = property.versionHash }
        return result
    }

    /// One phrase per difference: `entity Place added; entity Notebook removed; Entry: text added, body removed,
    /// mood changed`; `no differences` when empty.
    public var description: String {
        var parts: [String] = []
        parts += addedEntities.map { "entity \($0) added" }
        parts += removedEntities.map { "entity \($0) removed" }
        for change in changedEntities {
            var details: [String] = []
            if !change.addedProperties.isEmpty { details.append(change.addedProperties.joined(separator: ", ") + " added") }
            if !change.removedProperties.isEmpty { details.append(change.removedProperties.joined(separator: ", ") + " removed") }
            if !change.changedProperties.isEmpty { details.append(change.changedProperties.joined(separator: ", ") + " changed") }
            guard !details.isEmpty else {
                parts.append("entity \(change.entityName) changed")
                continue
            }
            if change.entityItselfChanged { details.insert("the entity itself changed", at: 0) }
            parts.append("\(change.entityName): " + details.joined(separator: ", "))
        }
        return parts.isEmpty ? "no differences" : parts.joined(separator: "; ")
    }
}
