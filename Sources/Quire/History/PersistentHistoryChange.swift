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
    /// The values kept of a deleted object (`tombstone`): always nil, Quire records no tombstones.
    public var tombstone: [String: String]? { nil }
    /// The number of the transaction it belongs to.
    public let transactionNumber: Int64
}
