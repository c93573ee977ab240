import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// The channel a store's saves are announced on: `quire_` + the store's UUID, so every coordinator on the same
    /// store, in any process or on any machine, hears of every save and no other store's.
    var notificationChannel: String { "quire_" + identifier.lowercased().replacingOccurrences(of: "-", with: "") }

    /// Starts listening for other coordinators' saves (`PersistentStore.remoteChangeNotification`, posted by the
    /// coordinator); a store that cannot listen still works, without the notifications.
    func startListening(_ address: PostgresURL) {
        var entities: [Int64: EntityDescription] = [:]
        for entity in schema.numbers.entitiesInOrder { entities[Int64(schema.numbers.number(of: entity))] = entity }
        listener = try? PostgresChangeListener(
            url: address, channel: notificationChannel, source: notificationSource, store: store, entities: entities,
            writes: foreignWrites)
        listener?.start()
    }

    /// Stops listening.
    func stopListening() {
        listener?.stop()
        listener = nil
        foreignWrites.setHandler(nil)
    }

    /// Announces a save inside its transaction (`pg_notify`, delivered at commit, never for a rolled-back save):
    /// `src=` this store instance (so its own listener skips it), `i`, `u` and `d` lists of `entity-number:key`; a save too large for one notification (8,000 bytes) says
    /// `*`, everything may have changed.
    func notifySave(_ request: SaveRequest, permanentIDs: [ObjectID], _ connection: PostgresConnection) throws {
        try notifyChanges(inserted: permanentIDs, updated: request.updated.map(\.objectID), deleted: request.deleted.map(\.objectID), connection)
    }

    /// Announces changed records the same way (a batch request's, inside its transaction).
    func notifyChanges(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID], _ connection: PostgresConnection) throws {
        try connection.query(
            "SELECT pg_notify($1::TEXT, $2::TEXT)",
            [.text(notificationChannel), .text(notificationPayload(inserted: inserted, updated: updated, deleted: deleted))])
    }

    /// The payload of a save's notification: `src=…;i=…;u=…;d=…`, or `src=…;*` once the lists pass
    /// ``notificationPayloadLimit`` bytes (the lists are built only that far, so a save of 100,000 objects does
    /// not write out 100,000 IDs to throw them away).
    func notificationPayload(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) -> String {
        let source = "src=\(notificationSource);"
        var payload = source
        for (name, ids) in [("i=", inserted), ("u=", updated), ("d=", deleted)] {
            payload += name == "i=" ? name : ";" + name
            var first = true
            for id in ids {
                guard let key = id.primaryKey else { continue }
                if !first { payload += "," }
                first = false
                payload += String(schema.numbers.number(of: id.entity))
                payload += ":"
                payload += String(key)
                if payload.utf8.count > Self.notificationPayloadLimit { return source + "*" }
            }
        }
        return payload
    }

    /// The longest payload a notification carries (PostgreSQL's limit is 8,000 bytes).
    static let notificationPayloadLimit = 7_900
}

extension PostgresStore: WriteObservingStoreBackend {
    /// True: a PostgreSQL store announced other coordinators' saves before the option existed, and still does.
    package var watchesForWritesByDefault: Bool { true }

    /// The listener started with the store; from now on the saves it hears are kept and told of.
    package func startWatchingForWrites(_ changed: @escaping @Sendable () -> Void) throws {
        foreignWrites.setHandler(changed)
    }

    package func stopWatchingForWrites() { foreignWrites.setHandler(nil) }

    /// The saves other coordinators announced since the last call, with the records they changed (or
    /// ``StoreWrite/everything`` for a save too large to list).
    package func takeForeignWrites() throws -> StoreWrite? { foreignWrites.take() }
}
