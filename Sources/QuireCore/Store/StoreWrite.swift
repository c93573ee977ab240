import QuireSupport
import Foundation

/// A write to a store: the records it inserted, updated and deleted when they are known, or that anything may
/// have changed. What the coordinator announces as `PersistentStore.remoteChangeNotification`.
package struct StoreWrite: Sendable {
    package var inserted: Set<ObjectID> = []
    package var updated: Set<ObjectID> = []
    package var deleted: Set<ObjectID> = []
    /// Whether the records are not known (another process wrote the file, or a write too large to list).
    package var everything = false

    package init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], everything: Bool = false) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.everything = everything
    }

    /// Adds another write's records.
    package mutating func formUnion(_ other: StoreWrite) {
        inserted.formUnion(other.inserted)
        updated.formUnion(other.updated)
        deleted.formUnion(other.deleted)
        everything = everything || other.everything
    }
}

/// A store backend that notices writes other coordinators and other processes make to its store: SQLite (its
/// file and side files watched, `PRAGMA data_version` telling others' commits from its own), the atomic stores
/// that keep a file (the file watched, its stamp telling others' writes from its own), PostgreSQL
/// (`LISTEN`/`NOTIFY`).
///
/// The coordinator starts the watch when the store is added with ``StoreOptions/postsRemoteChangeNotifications``
/// (or when ``watchesForWritesByDefault``); the watch calls back on a thread of its own, and the coordinator then
/// asks, under its lock, for the writes with ``takeForeignWrites()``.
package protocol WriteObservingStoreBackend: PersistentStoreBackend {
    /// Whether the store's writes by others are announced even without the option (PostgreSQL announced them
    /// before the option was read).
    var watchesForWritesByDefault: Bool { get }

    /// Starts watching; `changed` is called, on a thread of the store's own, when others may have written.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` when the store cannot be watched.
    func startWatchingForWrites(_ changed: @escaping @Sendable () -> Void) throws

    /// Stops watching; called before the store closes.
    func stopWatchingForWrites()

    /// What others wrote since the last call (or since the watch started), or nil when nothing; under the
    /// coordinator's lock.
    func takeForeignWrites() throws -> StoreWrite?
}

extension WriteObservingStoreBackend {
    /// False: only with the option.
    package var watchesForWritesByDefault: Bool { false }
}
