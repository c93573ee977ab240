import QuireCore
import Foundation

/// One save recorded in a store's persistent history (`NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// When it was saved.
    public let timestamp: Date
    /// The objects it changed (nil when the request asked for transactions only).
    public let changes: [PersistentHistoryChange]?
    /// Its number in its store, increasing with every save.
    public let transactionNumber: Int64
    /// The UUID of its store.
    public let storeID: String
    /// The saving application's bundle identifier (the process name when it has no bundle).
    public let bundleID: String?
    /// The saving process's name.
    public let processID: String?
    /// The saving context's name.
    public let contextName: String?
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The token of the history up to and including this transaction (for its store).
    public let token: PersistentHistoryToken

    /// A did-save notification carrying the transaction's object IDs (`objectIDNotification()`), for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(Notification)``.
    public func objectIDNotification() -> Notification {
        Notification(name: ManagedObjectContext.didSaveNotification, object: nil, userInfo: contextDidSave.userInfo)
    }

    /// The same transaction with other changes (a history fetch request kept some of them).
    func with(changes: [PersistentHistoryChange]?) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(
            timestamp: timestamp, changes: changes, transactionNumber: transactionNumber, storeID: storeID, bundleID: bundleID,
            processID: processID, contextName: contextName, author: author, token: token)
    }

    /// The same transaction without its changes.
    var withoutChanges: PersistentHistoryTransaction { with(changes: nil) }

    /// The transaction's changes as a did-save payload.
    public var contextDidSave: ContextDidSave {
        var changes = ContextDidSave()
        for change in self.changes ?? [] {
            switch change.changeType {
            case .insert: changes.insertedObjectIDs.insert(change.changedObjectID)
            case .update: changes.updatedObjectIDs.insert(change.changedObjectID)
            case .delete: changes.deletedObjectIDs.insert(change.changedObjectID)
            }
        }
        return changes
    }
}
