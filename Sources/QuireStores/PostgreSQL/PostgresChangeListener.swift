import QuireCore
import CLibPQ
import Foundation

extension PersistentStore {
    /// Posted on `NotificationCenter.default`, with the store as the object, when another coordinator (in this
    /// process, another one, or on another machine) saved changes to a store that announces them (PostgreSQL's
    /// `LISTEN`/`NOTIFY`); Core Data's `NSPersistentStoreRemoteChangeNotification`. The user info holds
    /// `Set<ObjectID>`s of this store under `inserted_objectIDs`, `updated_objectIDs` and `deleted_objectIDs`
    /// (read them with `ContextDidSave.remoteChange(_:)`), and `everything` = true when the save was too large to
    /// list. Posted on a thread of the store's own.
    public static let remoteChangeNotification = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// Listens on a store's channel with a connection of its own, on a thread of its own, and posts
/// ``PersistentStore/remoteChangeNotification`` for every save another coordinator announces.
///
/// `@unchecked Sendable`: `stopped` is read and written only under `lock`; the connection is used only by the
/// listening thread once ``start()`` has run (and closed by it when it stops).
final class PostgresChangeListener: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private let connection: PostgresConnection
    private let store: PersistentStore
    private let source: String
    private let entities: [Int64: EntityDescription]

    /// Connects and listens; the store's own saves (marked with `source`) are not posted.
    init(url: PostgresURL, channel: String, source: String, store: PersistentStore, entities: [Int64: EntityDescription]) throws {
        connection = try PostgresConnection(url: url)
        try connection.execute("LISTEN \(PostgresDialect.quoteRaw(channel))")
        self.store = store
        self.source = source
        self.entities = entities
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "Quire PostgreSQL listener"
        thread.start()
    }

    /// Stops the thread within a fifth of a second; no notification is posted after this returns... once the
    /// one being posted, if any, is done.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func run() {
        defer { connection.close() }
        while !isStopped {
            guard let handle = connection.rawHandle, connection.isUsable else { return }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            guard ready > 0 else { continue }
            guard PQconsumeInput(handle) == 1 else { return }
            while let notify = PQnotifies(handle) {
                let payload = notify.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notify)
                if !isStopped { post(payload) }
            }
        }
    }

    /// `src=<store instance>;i=<ent>:<pk>,…;u=…;d=…`, or `src=…;*`.
    private func post(_ payload: String) {
        var inserted: Set<ObjectID> = []
        var updated: Set<ObjectID> = []
        var deleted: Set<ObjectID> = []
        var everything = false
        for part in payload.split(separator: ";") {
            if part == "src=" + source { return }
            if part == "*" { everything = true }
            guard part.count >= 2, part.dropFirst().first == "=" else { continue }
            let ids = part.dropFirst(2).split(separator: ",").compactMap { item -> ObjectID? in
                let pieces = item.split(separator: ":")
                guard pieces.count == 2, let number = Int64(pieces[0]), let key = Int64(pieces[1]), let entity = entities[number] else {
                    return nil
                }
                return ObjectID(entity: entity, store: store, primaryKey: key)
            }
            switch part.first {
            case "i": inserted.formUnion(ids)
            case "u": updated.formUnion(ids)
            case "d": deleted.formUnion(ids)
            default: break
            }
        }
        NotificationCenter.default.post(
            name: PersistentStore.remoteChangeNotification, object: store,
            userInfo: [
                "inserted_objectIDs": inserted, "updated_objectIDs": updated, "deleted_objectIDs": deleted,
                "everything": everything, "storeUUID": store.identifier,
            ])
    }
}
