import QuireSupport
/// A fetch index of an entity (`NSFetchIndexDescription`): an SQL index Core Data creates in the store.
package struct CompiledFetchIndex: Sendable, Hashable {
    /// The index's name (the store names the SQL index `Z_<Entity>_<name>`).
    package var name: String
    /// The indexed properties, in order.
    package var elements: [Element]
    /// The predicate of a partial index, if any.
    package var partialIndexPredicate: String?

    /// One indexed property (`NSFetchIndexElementDescription`).
    package struct Element: Sendable, Hashable {
        /// The property's name.
        package var propertyName: String
        /// `NSFetchIndexElementType`: 0 binary (a B-tree), 1 R-tree.
        package var type: Int
        /// Whether the order is ascending.
        package var ascending: Bool

        /// Creates an element.
        package init(propertyName: String, type: Int = 0, ascending: Bool = true) {
            self.propertyName = propertyName
            self.type = type
            self.ascending = ascending
        }
    }

    /// Creates an index.
    package init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }
}
