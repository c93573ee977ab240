import QuireCore
import Foundation

/// What a history request returns (`NSPersistentHistoryResultType`).
public enum PersistentHistoryResultType: Sendable, Hashable {
    /// Only whether it succeeded.
    case statusOnly
    /// The number of transactions fetched or deleted.
    case count
    /// The transactions, without their changes.
    case transactionsOnly
    /// The transactions with their changes (the default).
    case transactionsAndChanges
}

/// Fetches or deletes persistent history (`NSPersistentHistoryChangeRequest`), run by
/// ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``. History is recorded by stores added
/// with ``StoreOptions/persistentHistoryTracking``: SQLite stores in Core Data's tables, the XML, binary, custom
/// atomic and in-memory stores in their metadata.
///
/// ```swift
/// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken))
/// for transaction in result.transactions ?? [] where transaction.author != "me" {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
///     lastToken = transaction.token
/// }
/// ```
///
/// Not `Sendable`, as Core Data's `NSPersistentStoreRequest` is not: its result type, stores and fetch request are set
/// after it is made, so a request stays on the thread or queue that configures and executes it, and the compiler checks
/// that it does (make it inside `perform` when the context has a queue of its own).
public final class PersistentHistoryChangeRequest {
    enum Operation {
        case fetch
        case delete
    }

    enum Bound {
        case all
        case token(PersistentHistoryToken?)
        case date(Date)
        case transaction(PersistentHistoryTransaction?)
    }

    let operation: Operation
    let bound: Bound
    /// What the result holds (default ``PersistentHistoryResultType/transactionsAndChanges``).
    public var resultType: PersistentHistoryResultType = .transactionsAndChanges
    /// The stores to read or delete in; nil for every store of the coordinator.
    public var affectedStores: [PersistentStore]?
    /// Narrows a fetch (`fetchRequest`): a ``PersistentHistoryTransaction/fetchRequest`` keeps the transactions its
    /// predicate matches, then applies its `fetchOffset` and `fetchLimit`; a ``PersistentHistoryChange/fetchRequest``
    /// keeps each transaction's matching changes and the transactions left with one. Nil for every transaction
    /// after the request's bound. Ignored by deletes.
    public var fetchRequest: FetchRequest<any PersistentHistoryFetchResult>?

    init(_ operation: Operation, _ bound: Bound) {
        self.operation = operation
        self.bound = bound
    }

    /// The transactions after a token (all of them for nil).
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        .init(.fetch, .token(token))
    }

    /// The transactions, or the changes, a fetch request of history matches (`fetchHistory(withFetchRequest:)`),
    /// from the start of the history; see ``fetchRequest``.
    ///
    /// ```swift
    /// let others = PersistentHistoryTransaction.fetchRequest!
    /// others.predicate = try QueryPredicate(format: "author != %@", "app")
    /// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: others))
    /// ```
    public static func fetchHistory(withFetchRequest fetchRequest: FetchRequest<any PersistentHistoryFetchResult>) -> PersistentHistoryChangeRequest {
        let request = PersistentHistoryChangeRequest(.fetch, .all)
        request.fetchRequest = fetchRequest
        return request
    }

    /// The transactions saved after a date.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest { .init(.fetch, .date(date)) }

    /// The transactions after a transaction (all of them for nil).
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        .init(.fetch, .transaction(transaction))
    }

    /// Deletes the transactions up to and including a token's (all of them for nil).
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        .init(.delete, .token(token))
    }

    /// Deletes the transactions saved before a date.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest { .init(.delete, .date(date)) }

    /// Deletes the transactions up to and including a transaction.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        .init(.delete, .transaction(transaction))
    }
}

/// What a history request returned (`NSPersistentHistoryResult`).
public struct PersistentHistoryResult: Sendable {
    /// What the request asked for.
    public let resultType: PersistentHistoryResultType
    /// The transactions fetched, in order (for the transactions result types).
    public let transactions: [PersistentHistoryTransaction]?
    /// The number of transactions fetched or deleted (for ``PersistentHistoryResultType/count``).
    public let count: Int?
    /// True: a request that fails throws instead.
    public let status: Bool
}
