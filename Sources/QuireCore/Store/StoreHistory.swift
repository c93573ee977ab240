import QuireSupport
import Foundation

/// One transaction of a store's persistent history, as the store reads it (Core Data's `ATRANSACTION` row).
package struct StoreHistoryTransaction: Sendable {
    /// The transaction's number (`Z_PK`), increasing with every save.
    package var number: Int64
    /// When it was saved.
    package var timestamp: Date
    /// The saving context's `transactionAuthor`.
    package var author: String?
    /// The saving context's name.
    package var contextName: String?
    /// The saving application's bundle identifier (Quire: the process name when there is no bundle).
    package var bundleID: String?
    /// The saving process's name.
    package var processID: String?
    /// The changes, when they were asked for.
    package var changes: [StoreHistoryChange]?

    /// Creates one.
    package init(
        number: Int64, timestamp: Date, author: String?, contextName: String?, bundleID: String?, processID: String?,
        changes: [StoreHistoryChange]?
    ) {
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.changes = changes
    }
}

/// One changed object of a history transaction (Core Data's `ACHANGE` row).
package struct StoreHistoryChange: Sendable {
    /// The change's number (`Z_PK`).
    package var number: Int64
    /// The object.
    package var objectID: ObjectID
    /// 0 insert, 1 update, 2 delete (`ZCHANGETYPE`).
    package var type: Int
    /// The names of the properties an update changed (nil for inserts and deletes, and when not recorded).
    package var updatedProperties: [String]?
    /// The preserved values of a deleted object, by attribute name (`ZTOMBSTONE<n>`); nil for inserts, updates
    /// and objects whose entity preserves nothing.
    package var tombstone: [String: AttributeValue]?

    /// Creates one.
    package init(number: Int64, objectID: ObjectID, type: Int, updatedProperties: [String]?, tombstone: [String: AttributeValue]? = nil) {
        self.number = number
        self.objectID = objectID
        self.type = type
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// Which history transactions a request reads or deletes.
package enum StoreHistoryBound: Sendable {
    /// Every transaction.
    case all
    /// Fetching: the transactions numbered above this; deleting: those numbered up to it, itself included.
    case transaction(Int64)
    /// Fetching: the transactions saved after this date; deleting: those saved before it.
    case date(Date)
}

/// A store that records persistent history (SQLite in Core Data's history tables; the atomic and in-memory
/// stores in their metadata).
package protocol HistoryTrackingStoreBackend: PersistentStoreBackend {
    /// Whether the store records history (its option) or has history to read.
    func hasHistory() throws -> Bool
    /// The transactions after a bound, in order, with their changes when `includingChanges`.
    func fetchHistory(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction]
    /// Deletes the transactions up to a bound with their changes; returns how many transactions went.
    func deleteHistory(through bound: StoreHistoryBound) throws -> Int
    /// The number of the last transaction, 0 when there is none.
    func lastHistoryTransaction() throws -> Int64
}
