import QuireCore
import QuireStores
import Foundation

extension ContextDidSave {
    /// Reads the records a write changed, from a ``PersistentStore/remoteChangeNotification``: empty sets when they are
    /// not known (``PersistentStore/RemoteChangeKey/everything``); nil for another notification.
    public static func remoteChange(_ notification: Notification) -> ContextDidSave? {
        guard notification.name == PersistentStore.remoteChangeNotification, let info = notification.userInfo else { return nil }
        return ContextDidSave(
            insertedObjectIDs: info[ManagedObjectContext.insertedObjectIDsKey] as? Set<ObjectID> ?? [],
            updatedObjectIDs: info[ManagedObjectContext.updatedObjectIDsKey] as? Set<ObjectID> ?? [],
            deletedObjectIDs: info[ManagedObjectContext.deletedObjectIDsKey] as? Set<ObjectID> ?? [])
    }
}

/// Keeps a context merging the saves other coordinators make to its stores, until it is released or cancelled.
///
/// ```swift
/// let merging = context.automaticallyMergeRemoteChanges()
/// // … another process saves to the same PostgreSQL store; the context's objects show it …
/// merging.cancel()
/// ```
public final class RemoteChangeMerging: Sendable {
    // `nonisolated(unsafe)`: written once by the initializer, read by `cancel` and `deinit` only.
    nonisolated(unsafe) private let observer: any NSObjectProtocol

    init(observer: any NSObjectProtocol) { self.observer = observer }

    /// Stops merging.
    public func cancel() { NotificationCenter.default.removeObserver(observer) }

    deinit { NotificationCenter.default.removeObserver(observer) }
}

extension ManagedObjectContext {
    /// Brings a save another coordinator made to one of this context's stores into the context: the coordinator
    /// forgets the rows it cached for the changed objects, then the context merges as for
    /// ``mergeChanges(fromContextDidSave:)-(ContextDidSave)`` (unchanged objects refault and show the new
    /// values, changed ones keep their unsaved changes on top, deleted ones leave).
    ///
    /// - Parameter changes: What the other coordinator saved (``ContextDidSave/remoteChange(_:)``).
    public func mergeRemoteChanges(_ changes: ContextDidSave) {
        if let coordinator = persistentStoreCoordinator {
            for id in changes.updatedObjectIDs.union(changes.deletedObjectIDs) { coordinator.forgetSnapshot(for: id) }
        }
        mergeChanges(fromContextDidSave: changes)
    }

    /// Merges every save other coordinators make to this context's stores as it is announced
    /// (``PersistentStore/remoteChangeNotification`` naming the records it changed), on the context's queue, until
    /// the returned object is released or cancelled. A PostgreSQL store announces saves with `LISTEN`/`NOTIFY`;
    /// announcements that do not name the records (another process wrote an SQLite or XML file) and this
    /// coordinator's own writes are not merged here: read those from persistent history
    /// (``PersistentHistoryMerger``), or merge did-save notifications.
    ///
    /// - Returns: The observation; keep it as long as the context should merge.
    public func automaticallyMergeRemoteChanges() -> RemoteChangeMerging {
        weak let coordinator = persistentStoreCoordinator
        weak let context = self
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStore.remoteChangeNotification, object: nil, queue: nil
        ) { notification in
            guard let coordinator, notification.object as? PersistentStoreCoordinator === coordinator,
                notification.userInfo?[PersistentStore.RemoteChangeKey.isLocal] as? Bool != true,
                let changes = ContextDidSave.remoteChange(notification), !changes.isEmpty, let context
            else { return }
            context.perform { context.mergeRemoteChanges(changes) }
        }
        return RemoteChangeMerging(observer: observer)
    }
}
