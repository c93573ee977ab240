import QuireCore
import Foundation

/// What one round of changes did to a ``FetchedResultsController``'s results, as `Sendable` values: the
/// element of ``FetchedResultsController/changeSets``. The same reports the delegate gets, in the same order,
/// with objects as IDs.
public struct FetchedResultsChangeSet: Sendable, Hashable {
    /// One section inserted or deleted.
    public struct SectionChange: Sendable, Hashable {
        /// ``FetchedResultsChangeType/insert`` or ``FetchedResultsChangeType/delete``.
        public var type: FetchedResultsChangeType
        /// The section's name.
        public var name: String
        /// The section's index: in the new sections for an insert, in the old ones for a delete.
        public var sectionIndex: Int
    }

    /// One object inserted, deleted, moved or updated.
    public struct ObjectChange: Sendable, Hashable {
        /// What happened.
        public var type: FetchedResultsChangeType
        /// The object's ID (permanent once the object is saved).
        public var objectID: ObjectID
        /// Where the object was (nil for an insert).
        public var indexPath: IndexPath?
        /// Where the object is now (nil for a delete).
        public var newIndexPath: IndexPath?
    }

    /// Section changes: deletes, then inserts.
    public var sectionChanges: [SectionChange] = []
    /// Object changes: deletes, inserts, moves, then updates.
    public var objectChanges: [ObjectChange] = []

    /// Whether nothing changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }
}
