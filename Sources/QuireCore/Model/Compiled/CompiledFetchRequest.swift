import QuireSupport
/// A fetch request of a decoded model: a template (`NSFetchRequestTemplates`) or a fetched property's request.
package struct CompiledFetchRequest: Sendable, Hashable {
    /// The name of the entity it fetches.
    package var entityName: String
    /// The predicate in predicate-format syntax (variables such as `$FETCH_SOURCE` kept).
    package var predicate: String?
    /// The sort order.
    package var sortDescriptors: [CompiledSortDescriptor] = []
    /// The most objects to return; 0 for no limit.
    package var fetchLimit: Int = 0
    /// How many results to skip.
    package var fetchOffset: Int = 0
    /// The batch size; 0 for none.
    package var fetchBatchSize: Int = 0
    /// `NSFetchRequestResultType`: 0 objects, 1 object IDs, 2 dictionaries, 4 count.
    package var resultType: Int = 0
    /// The raw `NSFetchRequestFlags` bit field (includes subentities, pending changes, faults, distinct…),
    /// whose bits Apple does not document.
    package var flags: Int?
    /// The properties of dictionary results (`NSValuesToFetch`), by name.
    package var propertiesToFetch: [String]?
    /// The group-by properties (`NSValuesToGroupBy`), by name.
    package var propertiesToGroupBy: [String]?
    /// The having predicate.
    package var havingPredicate: String?
    /// Relationship key paths to prefetch.
    package var relationshipKeyPathsForPrefetching: [String] = []

    /// Creates a request for an entity.
    package init(entityName: String) {
        self.entityName = entityName
    }
}

/// One sort key of a fetch request (`NSSortDescriptor`).
package struct CompiledSortDescriptor: Sendable, Hashable {
    /// The key path.
    package var key: String
    /// Whether the order is ascending.
    package var ascending: Bool
    /// The comparison selector (`compare:`, `localizedStandardCompare:`, …).
    package var selector: String?

    /// Creates a sort descriptor.
    package init(key: String, ascending: Bool, selector: String? = nil) {
        self.key = key
        self.ascending = ascending
        self.selector = selector
    }
}
