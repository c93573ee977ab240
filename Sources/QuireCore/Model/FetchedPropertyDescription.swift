import Foundation

/// A fetched property of an entity (`NSFetchedPropertyDescription`): a named fetch whose results an object
/// presents like a weak, one-way to-many relationship.
///
/// Quire reads fetched properties from Xcode models, compiled models and the canonical JSON form, and evaluates them
/// lazily: `ManagedObject.fetchedValue(forKey:)` (and `value(forKey:)`) fetches the destination's objects matching
/// the predicate, with `$FETCH_SOURCE` the object and `$FETCHED_PROPERTY` this description, the first time the value
/// is read, and keeps the result until the object is refreshed. They are not among the entity's
/// ``EntityDescription/properties`` and take no part in version hashes (as in Core Data).
public struct FetchedPropertyDescription: Hashable, Sendable, Codable {
    /// The property's name.
    public var name: String
    /// The entity the fetch returns objects of.
    public var destinationEntityName: String
    /// The fetch's predicate as a format string (it may use `$FETCH_SOURCE` and `$FETCHED_PROPERTY`); nil for all
    /// objects of the destination.
    public var predicateFormat: String?
    /// The name of the fetch request, as the model file names it.
    public var fetchRequestName: String?
    /// Whether the property is optional.
    public var isOptional: Bool
    /// Application data attached to the property.
    public var userInfo: [String: String]
    /// The order of the results (the sort descriptors of the property's fetch request, which compiled models keep);
    /// nil for the store's order.
    public var sortKeys: [Sort]?

    /// One sort key of a fetched property's request (`NSSortDescriptor`).
    public struct Sort: Hashable, Sendable, Codable {
        /// The key path to sort by.
        public var keyPath: String
        /// Whether the order is ascending.
        public var ascending: Bool
        /// The comparison selector, such as `compare:` or `localizedStandardCompare:`; nil for `compare:`.
        public var selector: String?

        /// A sort key.
        public init(keyPath: String, ascending: Bool = true, selector: String? = nil) {
            self.keyPath = keyPath
            self.ascending = ascending
            self.selector = selector
        }
    }

    /// A fetched property.
    public init(
        name: String, destinationEntityName: String, predicateFormat: String? = nil, fetchRequestName: String? = nil,
        isOptional: Bool = true, userInfo: [String: String] = [:], sortKeys: [Sort]? = nil
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.predicateFormat = predicateFormat
        self.fetchRequestName = fetchRequestName
        self.isOptional = isOptional
        self.userInfo = userInfo
        self.sortKeys = sortKeys
    }
}
