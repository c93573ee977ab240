import QuireCore

extension PersistentStore {
    /// The coordinator the store is attached to; nil once it is removed.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        coordinatorReference as? PersistentStoreCoordinator
    }
}
