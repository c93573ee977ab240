import QuireCore
import Foundation

/// What a history change did to its object (`NSPersistentHistoryChangeType`).
public enum PersistentHistoryChangeType: Int, Sendable, Hashable {
    /// The object was inserted.
    case insert = 0
    /// Properties of the object were updated.
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One object changed by a history transaction (`NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
    /// The change's number in its store.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: ObjectID
    /// What happened to it.
    public let changeType: PersistentHistoryChangeType
    /// The names of the properties an update changed (`updatedProperties`); nil for inserts and deletes.
    public let updatedProperties: Set<String>?
    /// The values kept of a deleted object (`tombstone`): its attributes marked
    /// ``AttributeDescription/preservesValueInHistoryOnDeletion``, by name, as they were when it was deleted
    /// (attributes that had no value are left out); nil for inserts and updates, and for deletions of objects
    /// whose entity preserves nothing.
    public let tombstone: [String: AttributeValue]?
    /// The number of the transaction it belongs to.
    public let transactionNumber: Int64

    /// Creates one.
    package init(
        changeID: Int64, changedObjectID: ObjectID, changeType: PersistentHistoryChangeType, updatedProperties: Set<String>?,
        tombstone: [String: AttributeValue]? = nil, transactionNumber: Int64
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.transactionNumber = transactionNumber
    }
}
