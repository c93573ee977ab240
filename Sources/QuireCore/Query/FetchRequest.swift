import QuireSupport
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
    public var entityName: String { didSet { checkMutable() } }
    /// The predicate objects must match; `nil` matches all.
    public var predicate: QueryPredicate? { didSet { checkMutable() } }
    /// The order of the results; empty leaves it to the store.
    public var sortDescriptors: [SortKey] = [] { didSet { checkMutable() } }
    /// The most objects to return; 0 means no limit.
    public var fetchLimit: Int = 0 { didSet { checkMutable() } }
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0 { didSet { checkMutable() } }
    /// How many objects ``ManagedObjectContext/fetchBatched(_:)`` loads at a time; 0 picks a default.
    /// ``ManagedObjectContext/fetch(_:)`` returns an array and loads everything at once whatever this is.
    public var fetchBatchSize: Int = 0 { didSet { checkMutable() } }
    /// What the fetch returns.
    public var resultType: FetchResultType { didSet { checkMutable() } }
    /// Whether unsaved inserts, updates and deletes of the context count (default `true`). Dictionary results
    /// reflect the stores only, as in Core Data.
    public var includesPendingChanges = true { didSet { checkMutable() } }
    /// Whether objects come back as faults whose values load on first access (default `true`); the rows are
    /// cached either way, so firing those faults reads no store.
    public var returnsObjectsAsFaults = true { didSet { checkMutable() } }
    /// Whether objects of sub-entities match too (default `true`).
    public var includesSubentities = true { didSet { checkMutable() } }
    /// The stores to search; `nil` searches every store that holds the entity.
    public var affectedStores: [PersistentStore]? { didSet { checkMutable() } }
    /// The values a ``FetchResultType/dictionary`` fetch returns: attribute names, key paths through to-one
    /// relationships (a relationship gives the related object's ``ObjectID``), and
    /// ``ExpressionDescription``s such as `sum:(salary)`. `nil` returns every attribute.
    public var propertiesToFetch: [FetchedProperty]? { didSet { checkMutable() } }
    /// The key paths a ``FetchResultType/dictionary`` fetch groups by; ``propertiesToFetch`` may then hold
    /// only these key paths and aggregate expressions.
    public var propertiesToGroupBy: [String]? { didSet { checkMutable() } }
    /// A predicate on the grouped dictionaries (their keys are the fetched properties' names), such as
    /// `total > 100`; only with ``propertiesToGroupBy``.
    public var havingPredicate: QueryPredicate? { didSet { checkMutable() } }
    /// Whether a ``FetchResultType/dictionary`` fetch leaves out dictionaries equal to an earlier one.
    public var returnsDistinctResults = false { didSet { checkMutable() } }
    /// Relationship key paths (`department`, `projects`, `department.employees`) whose destinations a
    /// managed-object fetch loads in a few batched requests, so following them reads no store per object.
    public var relationshipKeyPathsForPrefetching: [String] = [] { didSet { checkMutable() } }

    /// True for a template of a frozen model (``ManagedObjectModel/fetchRequestTemplate(forName:)``).
    package var isImmutable = false

    /// The entity to fetch (`entity`): setting it sets ``entityName``; reading it gives the entity last set, while
    /// ``entityName`` still names it (a request made by name has none: the context finds the entity in its model).
    ///
    /// ```swift
    /// let request = FetchRequest<Mood>()
    /// request.entity = Mood.entity()
    /// ```
    public var entity: EntityDescription? {
        get { assignedEntity.flatMap { $0.name == entityName ? $0 : nil } }
        set {
            assignedEntity = newValue
            if let newValue { entityName = newValue.name }
        }
    }
    private var assignedEntity: EntityDescription?

    /// Creates a request with no entity yet (`init()`): set ``entity`` or ``entityName`` before fetching.
    public convenience init() {
        self.init(entityName: "")
    }

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

    private func checkMutable() {
        precondition(!isImmutable, "Can't modify a named fetch request in an immutable model.")
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
package struct StoreFetch: Sendable {
    package enum Kind: Sendable { case rows, objectIDs, count }

    package var entity: EntityDescription
    package var predicate: QueryPredicate?
    package var sortKeys: [SortKey]
    package var limit: Int
    package var offset: Int
    package var includesSubentities: Bool
    package var kind: Kind

    /// Creates a fetch.
    package init(
        entity: EntityDescription, predicate: QueryPredicate?, sortKeys: [SortKey], limit: Int, offset: Int,
        includesSubentities: Bool, kind: Kind
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
        self.includesSubentities = includesSubentities
        self.kind = kind
    }
}
