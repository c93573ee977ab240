import Foundation

/// What a fetch returns (`NSFetchRequestResultType`).
public enum FetchResultType: Sendable, Hashable {
    /// Managed objects (the default).
    case managedObject
    /// Object IDs only.
    case managedObjectID
    /// Dictionaries of property values.
    case dictionary
    /// The number of matching objects.
    case count
}

/// A description of objects to fetch (`NSFetchRequest`): an entity, a predicate, sort keys and limits.
///
/// ```swift
/// let request = FetchRequest<Run>(entityName: "Run")
/// request.sortDescriptors = [SortKey("date", ascending: false)]
/// request.fetchLimit = 10
/// let runs = try context.fetch(request)
/// ```
///
/// `Result` is the element type of the results: a ``ManagedObject`` class, ``ObjectID``, or
/// `[String: Any]`; the result type defaults accordingly. Like Core Data's, a request is a mutable object
/// confined to the thread that uses it.
public final class FetchRequest<Result>: CustomStringConvertible {
    /// The name of the entity to fetch.
    public var entityName: String
    /// The predicate objects must match; `nil` matches all.
    public var predicate: QueryPredicate?
    /// The order of the results; empty leaves it to the store.
    public var sortDescriptors: [SortKey] = []
    /// The most objects to return; 0 means no limit.
    public var fetchLimit: Int = 0
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0
    /// How many objects to load at a time; 0 loads all at once.
    public var fetchBatchSize: Int = 0
    /// What the fetch returns.
    public var resultType: FetchResultType
    /// Whether unsaved inserts, updates and deletes of the context count (default `true`).
    public var includesPendingChanges = true
    /// Whether objects come back as faults whose values load on first access (default `true`); the rows are
    /// cached either way, so firing those faults reads no store.
    public var returnsObjectsAsFaults = true
    /// Whether objects of sub-entities match too (default `true`).
    public var includesSubentities = true
    /// The stores to search; `nil` searches every store that holds the entity.
    public var affectedStores: [PersistentStore]?

    /// Creates a request for the objects of an entity.
    public init(entityName: String) {
        self.entityName = entityName
        if Result.self == ObjectID.self {
            resultType = .managedObjectID
        } else if Result.self == [String: Any].self {
            resultType = .dictionary
        } else if Result.self == Int.self {
            resultType = .count
        } else {
            resultType = .managedObject
        }
    }

    /// The entity, predicate, sort and limits.
    public var description: String {
        var parts = ["entity: \(entityName)"]
        if let predicate { parts.append("predicate: \(predicate)") }
        if !sortDescriptors.isEmpty { parts.append("sort: \(sortDescriptors)") }
        if fetchLimit > 0 { parts.append("limit: \(fetchLimit)") }
        if fetchOffset > 0 { parts.append("offset: \(fetchOffset)") }
        return "FetchRequest(\(parts.joined(separator: ", ")))"
    }
}

/// A fetch as the coordinator hands it to a store: the resolved entity and the request's parameters.
struct StoreFetch: Sendable {
    enum Kind: Sendable { case rows, objectIDs, count }

    var entity: EntityDescription
    var predicate: QueryPredicate?
    var sortKeys: [SortKey]
    var limit: Int
    var offset: Int
    var includesSubentities: Bool
    var kind: Kind
}
