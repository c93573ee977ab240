import QuireCore
import QuireStores
import CLibPQ
import Foundation

/// Listens on a store's channel with a connection of its own, on a thread of its own, and hands every save another
/// coordinator announces to the store's ``PostgresForeignWrites`` (the coordinator posts them as
/// `PersistentStore.remoteChangeNotification`).
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
    private let writes: PostgresForeignWrites

    /// Connects and listens; the store's own saves (marked with `source`) are not reported.
    init(
        url: PostgresURL, channel: String, source: String, store: PersistentStore, entities: [Int64: EntityDescription],
        writes: PostgresForeignWrites
    ) throws {
        connection = try PostgresConnection(url: url)
        try connection.execute("LISTEN \(SQLDialect.quoteRaw(channel))")
        self.store = store
        self.source = source
        self.entities = entities
        self.writes = writes
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
                if !isStopped { report(payload) }
            }
        }
    }

    /// `src=<store instance>;i=<ent>:<pk>,…;u=…;d=…`, or `src=…;*`.
    private func report(_ payload: String) {
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
        writes.add(StoreWrite(inserted: inserted, updated: updated, deleted: deleted, everything: everything))
    }
}

/// The saves other coordinators announced that the coordinator has not taken yet, and whom to tell of new ones.
///
/// `@unchecked Sendable`: both members are read and written only under `lock`.
final class PostgresForeignWrites: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: StoreWrite?
    private var changed: (@Sendable () -> Void)?

    /// Starts or stops telling of new writes.
    func setHandler(_ handler: (@Sendable () -> Void)?) {
        lock.withLock {
            changed = handler
            if handler == nil { pending = nil }
        }
    }

    /// Keeps a write (when someone is told of writes) and tells of it.
    func add(_ write: StoreWrite) {
        let handler: (@Sendable () -> Void)? = lock.withLock {
            guard let changed else { return nil }
            if pending == nil { pending = write } else { pending?.formUnion(write) }
            return changed
        }
        handler?()
    }

    /// The writes kept since the last call.
    func take() -> StoreWrite? {
        lock.withLock {
            defer { pending = nil }
            return pending
        }
    }
}
