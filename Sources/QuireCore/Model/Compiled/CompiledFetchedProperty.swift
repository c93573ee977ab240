import QuireSupport
/// A fetched property of a decoded model (`NSFetchedPropertyDescription`): a read-only, transient property
/// whose value is the result of a fetch request.
package struct CompiledFetchedProperty: Sendable, Hashable {
    /// The property's name.
    package var name: String
    /// The request it runs (`$FETCH_SOURCE` and `$FETCHED_PROPERTY` stay in the predicate).
    package var fetchRequest: CompiledFetchRequest
    /// Whether the property is optional.
    package var isOptional: Bool = true
    /// Application data attached to the property.
    package var userInfo: [String: ModelValue] = [:]
    /// The property's name in an earlier model version.
    package var renamingIdentifier: String?
    /// A string mixed into the version hash.
    var versionHashModifier: String?

    /// Creates a fetched property.
    init(name: String, fetchRequest: CompiledFetchRequest) {
        self.name = name
        self.fetchRequest = fetchRequest
    }
}
