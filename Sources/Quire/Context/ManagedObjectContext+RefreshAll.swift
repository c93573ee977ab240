import QuireCore
import Foundation

extension ManagedObjectContext {
    /// Refreshes every registered object (`refreshAllObjects()`), as ``refresh(_:mergeChanges:)`` with
    /// `mergeChanges` does: unchanged objects become faults that read their values afresh when next used,
    /// changed ones reload the stores' values and keep their unsaved changes on top.
    public func refreshAllObjects() {
        performAndWait {
            // Objects only the registry holds go first (a later fetch makes them afresh); the rest are refreshed.
            registry.prune()
            for object in registeredObjects { refresh(object, mergeChanges: true) }
        }
    }
}
