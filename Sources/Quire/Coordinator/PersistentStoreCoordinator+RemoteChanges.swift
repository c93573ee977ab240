import QuireCore
import QuireStores
import Dispatch
import Foundation

extension PersistentStore {
    /// Posted on `NotificationCenter.default` after a write to a store (Core Data's
    /// `NSPersistentStoreRemoteChange`), with the store's coordinator as the object, on a private queue:
    ///
    /// - for a store added with ``StoreOptions/postsRemoteChangeNotifications`` (Core Data's
    ///   `NSPersistentStoreRemoteChangeNotificationPostOptionKey`), after every write: this coordinator's saves
    ///   and batch requests, and what other coordinators and other processes write to the same SQLite, XML or
    ///   binary file (noticed by watching the file) or PostgreSQL database (`LISTEN`/`NOTIFY`);
    /// - for a PostgreSQL store without the option, after other coordinators' saves, as before the option.
    ///
    /// The user info holds, under ``RemoteChangeKey``: the store's URL and UUID, the history token of the store as
    /// it is now when it records persistent history (what Core Data's carries); the records the write inserted,
    /// updated and deleted as `Set<ObjectID>`s under ``ManagedObjectContext/insertedObjectIDsKey``, … when they are
    /// known (this coordinator's writes, PostgreSQL's announcements; read them with ``ContextDidSave/remoteChange(_:)``),
    /// or ``RemoteChangeKey/everything`` = true when they are not (another process wrote the file: read the history
    /// from the token, or refetch); ``RemoteChangeKey/isLocal`` = true for this coordinator's own writes.
    ///
    /// ```swift
    /// let observer = NotificationCenter.default.addObserver(
    ///     forName: .persistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil
    /// ) { notification in
    ///     Task { await history.fetchChanges() }   // as Apple's samples do: read the history since the last token
    /// }
    /// ```
    public static let remoteChangeNotification = Notification.Name("NSPersistentStoreRemoteChangeNotification")

    /// The keys of ``remoteChangeNotification``'s user info.
    public enum RemoteChangeKey {
        /// The store's URL (`NSPersistentStoreURLKey`); absent for an in-memory store.
        public static let storeURL = "NSPersistentStoreURLKey"
        /// The store's UUID, a `String` (`NSStoreUUIDKey`).
        public static let storeUUID = "NSStoreUUID"
        /// The store's ``PersistentHistoryToken`` after the write (`NSPersistentHistoryTokenKey`), when the store
        /// records history.
        public static let historyToken = "NSPersistentHistoryTokenKey"
        /// `true` when the records the write changed are not known.
        public static let everything = "everything"
        /// `true` for a write this coordinator made (a save or batch request of one of its contexts).
        public static let isLocal = "QuireRemoteChangeIsLocal"
    }
}

extension Notification.Name {
    /// ``PersistentStore/remoteChangeNotification`` (Core Data's `Notification.Name.NSPersistentStoreRemoteChange`).
    public static let persistentStoreRemoteChange = PersistentStore.remoteChangeNotification
}

extension PersistentStoreCoordinator {
    /// The queue remote-change notifications are posted on, one after another (Core Data posts them on a private
    /// queue too): never while a coordinator's lock is held, so observers may use the coordinator.
    static let remoteChangeQueue = DispatchQueue(label: "Quire remote changes")

    /// Starts watching a store for others' writes when it posts remote changes (or its kind announces them by
    /// default); a store that cannot be watched is added all the same, with a note on standard error.
    func startWatchingForWrites(of store: PersistentStore) {
        guard let backend = store.backend as? any WriteObservingStoreBackend,
            store.options.postsRemoteChangeNotifications || backend.watchesForWritesByDefault
        else { return }
        do {
            try backend.startWatchingForWrites { [weak self, weak store] in
                guard let self, let store else { return }
                Self.remoteChangeQueue.async { self.announceForeignWrites(to: store) }
            }
        } catch {
            FileHandle.standardError.write(Data(
                "Quire note: other writers of \(store) cannot be noticed, so their writes are not announced: \(error)\n".utf8))
        }
    }

    /// Stops watching a store (before it is removed or closed).
    func stopWatchingForWrites(of store: PersistentStore) {
        (store.backend as? any WriteObservingStoreBackend)?.stopWatchingForWrites()
    }

    /// Posts what others wrote to a store since it was last asked, if anything (on the remote-change queue).
    private func announceForeignWrites(to store: PersistentStore) {
        let write: StoreWrite? = locked {
            guard persistentStores.contains(where: { $0 === store }),
                let backend = store.backend as? any WriteObservingStoreBackend
            else { return nil }
            return try? backend.takeForeignWrites()
        }
        if let write { postRemoteChange(write, of: store, isLocal: false) }
    }

    /// Posts one of this coordinator's writes to a store that posts remote changes, on the remote-change queue.
    func announceOwnWrite(_ write: StoreWrite, to store: PersistentStore) {
        guard store.options.postsRemoteChangeNotifications else { return }
        Self.remoteChangeQueue.async { [self] in postRemoteChange(write, of: store, isLocal: true) }
    }

    /// Announces the records a save wrote, store by store.
    func announceOwnSave(_ request: SaveRequest, _ result: SaveResult) {
        var writes: [ObjectIdentifier: (PersistentStore, StoreWrite)] = [:]
        func add(_ store: PersistentStore, _ body: (inout StoreWrite) -> Void) {
            guard store.options.postsRemoteChangeNotifications else { return }
            var entry = writes[ObjectIdentifier(store)] ?? (store, StoreWrite())
            body(&entry.1)
            writes[ObjectIdentifier(store)] = entry
        }
        for (index, change) in request.inserted.enumerated() {
            let id = index < result.permanentIDs.count ? result.permanentIDs[index] : change.objectID
            add(change.store) { $0.inserted.insert(id) }
        }
        for change in request.updated { add(change.store) { $0.updated.insert(change.objectID) } }
        for change in request.deleted { add(change.store) { $0.deleted.insert(change.objectID) } }
        for (store, write) in writes.values { announceOwnWrite(write, to: store) }
    }

    /// Posts ``PersistentStore/remoteChangeNotification`` for a write (on the remote-change queue).
    private func postRemoteChange(_ write: StoreWrite, of store: PersistentStore, isLocal: Bool) {
        var info: [AnyHashable: Any] = [
            PersistentStore.RemoteChangeKey.storeUUID: store.identifier,
            ManagedObjectContext.insertedObjectIDsKey: write.inserted,
            ManagedObjectContext.updatedObjectIDsKey: write.updated,
            ManagedObjectContext.deletedObjectIDsKey: write.deleted,
            PersistentStore.RemoteChangeKey.everything: write.everything,
            PersistentStore.RemoteChangeKey.isLocal: isLocal,
        ]
        if let url = store.url { info[PersistentStore.RemoteChangeKey.storeURL] = url }
        if store.options.persistentHistoryTracking, let token = currentPersistentHistoryToken(fromStores: [store]) {
            info[PersistentStore.RemoteChangeKey.historyToken] = token
        }
        NotificationCenter.default.post(name: PersistentStore.remoteChangeNotification, object: self, userInfo: info)
    }
}
