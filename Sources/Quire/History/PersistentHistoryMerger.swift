import QuireCore
import QuireStores
import Foundation

/// Merges into a context what other coordinators and other processes saved to the same stores (SQLite, XML,
/// binary, custom atomic; contexts of one coordinator on an in-memory store), by reading the stores' persistent
/// history, when asked (``mergeNewTransactions()``): Quire has no
/// cross-process notification (Core Data's `NSPersistentStoreRemoteChangeNotification`), so an app polls, on
/// a timer or when it becomes active. Needs stores added with ``StoreOptions/persistentHistoryTracking`` by
/// every writer.
///
/// ```swift
/// let merger = PersistentHistoryMerger(context: viewContext, excludingAuthor: "app")
/// try merger.mergeNewTransactions()   // e.g. every few seconds
/// ```
public final class PersistentHistoryMerger: @unchecked Sendable {
    /// The context changes are merged into.
    public let context: ManagedObjectContext
    /// Transactions by this author are skipped (the context's own saves, which it has already).
    public let excludedAuthor: String?
    /// How far the history has been merged; save it to go on from there after a relaunch.
    public private(set) var token: PersistentHistoryToken?
    private let lock = NSLock()

    /// Creates a merger that starts after the history as it is now (or after `token`).
    public init(context: ManagedObjectContext, excludingAuthor: String? = nil, startingAfter token: PersistentHistoryToken? = nil) {
        self.context = context
        self.excludedAuthor = excludingAuthor
        self.token = token ?? context.persistentStoreCoordinator?.currentPersistentHistoryToken()
    }

    /// Reads the transactions saved since the last call and merges their changes into the context; returns
    /// how many transactions were merged.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreUnsupportedRequestType`` when no store records history.
    @discardableResult
    public func mergeNewTransactions() throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token))
        var numbers = token?.transactionNumbers ?? [:]
        var merged = 0
        for transaction in result.transactions ?? [] {
            numbers[transaction.storeID] = max(numbers[transaction.storeID] ?? 0, transaction.transactionNumber)
            if let excludedAuthor, transaction.author == excludedAuthor { continue }
            let changes = transaction.contextDidSave
            context.persistentStoreCoordinator?.forgetRowsChangedElsewhere(changes.updatedObjectIDs.union(changes.deletedObjectIDs))
            context.mergeChanges(fromContextDidSave: changes)
            merged += 1
        }
        token = PersistentHistoryToken(transactionNumbers: numbers)
        return merged
    }
}
