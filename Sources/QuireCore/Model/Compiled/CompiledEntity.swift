import QuireSupport
import Foundation

/// An entity of a decoded model (`NSEntityDescription` or an Xcode 3 `XDPMEntity`).
///
/// Compiled models repeat a superentity's properties in every sub-entity; ``attributes``,
/// ``relationships`` and ``fetchedProperties`` hold only the entity's own ones, and
/// ``inheritedPropertyNames`` lists those it inherits.
package struct CompiledEntity: Sendable, Hashable {
    /// The entity's name.
    package var name: String
    /// The class of its objects (`NSClassNameForEntity`); nil for `NSManagedObject`.
    package var managedObjectClassName: String?
    /// Whether the entity has no objects of its own.
    package var isAbstract: Bool = false
    /// The name of the entity it inherits from.
    package var superentityName: String?
    /// The names of its direct sub-entities.
    package var subentityNames: [String] = []
    /// Its own attributes, by name.
    package var attributes: [CompiledAttribute] = []
    /// Its own relationships, by name.
    package var relationships: [CompiledRelationship] = []
    /// Its own fetched properties, by name.
    package var fetchedProperties: [CompiledFetchedProperty] = []
    /// The names of the properties it inherits from its superentities.
    package var inheritedPropertyNames: [String] = []
    /// Uniqueness constraints: each a list of property names that together must be unique.
    package var uniquenessConstraints: [[String]] = []
    /// Fetch indexes.
    package var fetchIndexes: [CompiledFetchIndex] = []
    /// Legacy compound indexes (`NSCompoundIndexes`): each a list of property names.
    package var compoundIndexes: [[String]] = []
    /// Application data attached to the entity.
    package var userInfo: [String: ModelValue] = [:]
    /// The entity's name in an earlier model version.
    package var renamingIdentifier: String?
    /// A string mixed into the version hash.
    package var versionHashModifier: String?
    /// The entity's version hash, when known (from the file, or a `.momd`'s `VersionInfo.plist`).
    package var versionHash: Data?

    /// Creates an entity.
    package init(name: String) {
        self.name = name
    }

    /// The own attribute with a name.
    package func attribute(named name: String) -> CompiledAttribute? {
        attributes.first { $0.name == name }
    }

    /// The own relationship with a name.
    package func relationship(named name: String) -> CompiledRelationship? {
        relationships.first { $0.name == name }
    }
}
