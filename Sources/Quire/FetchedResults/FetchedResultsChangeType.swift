/// How an object or a section changed in a ``FetchedResultsController`` (`NSFetchedResultsChangeType`, with
/// Core Data's raw values).
public enum FetchedResultsChangeType: UInt, Sendable, Hashable {
    /// It was inserted (into the results).
    case insert = 1
    /// It was deleted (from the results: deleted, or no longer matching the predicate).
    case delete = 2
    /// The object changed so that its index path changed (a sort key or its section's key changed).
    case move = 3
    /// The object changed without changing its index path.
    case update = 4
}
