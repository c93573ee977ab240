import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Starts or stops merging saves as they happen, for ``automaticallyMergesChangesFromParent``: a child
    /// context merges its parent's saves; a context without a parent merges the saves of the other parentless
    /// contexts of its coordinator. The merge runs on this context's queue (asynchronously, as in Core Data),
    /// as ``mergeChanges(fromContextDidSave:)-(ContextDidSave)`` does it. Saves of other coordinators and
    /// processes are not notified: ``PersistentHistoryMerger`` reads them from persistent history.
    func updateAutomaticMerging() {
        if let observer = automaticMergeObserver {
            NotificationCenter.default.removeObserver(observer)
            automaticMergeObserver = nil
        }
        guard automaticallyMergesChangesFromParent else { return }
        automaticMergeObserver = NotificationCenter.default.addObserver(
            forName: Self.didSaveNotification, object: nil, queue: nil
        ) { [weak self] notification in
            guard let self, let saver = notification.object as? ManagedObjectContext, saver !== self,
                let changes = ContextDidSave(notification), !changes.isEmpty
            else { return }
            let fromParent = self.parent.map { $0 === saver } ?? false
            let sibling = self.parent == nil && saver.parent == nil && saver.persistentStoreCoordinator != nil
                && saver.persistentStoreCoordinator === self.persistentStoreCoordinator
            guard fromParent || sibling else { return }
            self.perform { [weak self] in self?.mergeChanges(fromContextDidSave: changes) }
        }
    }
}
