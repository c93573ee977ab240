import Foundation

/// A fetch index of an entity (`NSFetchIndexDescription`): an index over one or more properties, each ascending or
/// descending, optionally partial.
///
/// ```swift
/// let index = FetchIndexDescription(name: "byMakerAndNumberPlate", elements: [
///     .init(propertyName: "maker"), .init(propertyName: "numberPlate", isAscending: false),
/// ])
/// car.fetchIndexes = [index]
/// ```
///
/// Quire keeps every fetch index a model declares (Xcode models, compiled models, the canonical JSON form). SQLite
/// stores create each B-tree index as Core Data does, `CREATE INDEX Z_<Entity>_<name> ON Z<ROOT> (Z<PROPERTY>
/// COLLATE BINARY ASC|DESC, …)`, which SQLite then uses for fetches that filter or sort on its columns. Partial and
/// R-tree indexes are listed in ``ManagedObjectModel/unsupportedFeatures`` and not created.
public struct FetchIndexDescription: Hashable, Sendable, Codable {
    /// The index's name (Core Data names the SQL index `Z_<Entity>_<name>`).
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]
    /// The predicate of a partial index, as a format string; nil for a full index.
    public var partialIndexPredicate: String?

    /// One indexed property (`NSFetchIndexElementDescription`).
    public struct Element: Hashable, Sendable, Codable {
        /// How an element is indexed (`NSFetchIndexElementType`).
        public enum CollationType: String, Hashable, Sendable, Codable {
            /// A B-tree (Xcode's "Binary").
            case binary
            /// An R-tree (Xcode's "RTree"), for ranges of numbers.
            case rTree
        }

        /// The property's name.
        public var propertyName: String
        /// How the element is indexed.
        public var collationType: CollationType
        /// Whether the order is ascending.
        public var isAscending: Bool

        /// An element over a property.
        public init(propertyName: String, collationType: CollationType = .binary, isAscending: Bool = true) {
            self.propertyName = propertyName
            self.collationType = collationType
            self.isAscending = isAscending
        }
    }

    /// An index.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }

    /// Whether the index is what the indexed flag of one attribute means: one ascending B-tree element, no predicate.
    public var isSingleAscendingIndex: Bool {
        elements.count == 1 && elements[0].isAscending && elements[0].collationType == .binary && partialIndexPredicate == nil
    }
}
