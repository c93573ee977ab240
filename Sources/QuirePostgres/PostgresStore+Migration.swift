import QuireCore
import QuireStores
import Foundation

/// Migration of a PostgreSQL store between model versions, as the store kind's hooks
/// (``StoreKind/migrationStagingURL`` and ``StoreKind/replaceStore``) serve it: Quire's migration writes the new
/// version into a schema of its own beside the store's (`<schema>_migration_<8 hex digits>`), then this swaps it
/// in with one transaction, which PostgreSQL's transactional DDL makes atomic: the store's schema is renamed
/// away, the new one renamed to its name, and the old one dropped. Until that commits, the store is untouched.
///
/// Every connection that has a store open (a ``PostgresStore`` after `load`) holds a shared advisory lock named
/// after its schema for as long as the connection lives (a store that closes gives it back before it disconnects);
/// the swap takes the same lock exclusively, waiting at most ``openLockWait``, so it is refused, with nothing
/// changed, while any other coordinator in any process has the store open (as Core Data refuses to migrate a store
/// that is in use), and nobody opens the store halfway through the swap.
extension PostgresStore {
    /// The advisory lock that says a store is open, by schema name (advisory locks are per database).
    static func openLockKey(schema: String) -> String { "quire-open:" + schema }

    /// Holds the shared lock that says the store in `schema` is open, on this connection until it closes; waits
    /// while a migration swaps the schema (a few milliseconds).
    static func holdOpenLock(_ connection: PostgresConnection, schema: String) throws {
        try connection.queryOnce("SELECT pg_advisory_lock_shared(hashtext($1::TEXT))", [.text(openLockKey(schema: schema))])
    }

    /// Gives the open lock back, then closes the connection. Closing alone is not enough: the server process
    /// serving the connection releases its locks when it exits, after the client has gone on, so a migration
    /// that the same thread starts next (an automatic one, after the failed open; the next step of a chain, after
    /// its source store closed) could still find the lock held. The unlock returns once the lock is free.
    static func closeReleasingOpenLock(_ connection: PostgresConnection, schema: String?) {
        if let schema, connection.isUsable {
            _ = try? connection.queryOnce("SELECT pg_advisory_unlock_shared(hashtext($1::TEXT))", [.text(openLockKey(schema: schema))])
        }
        connection.close()
    }

    /// How long the swap waits for the open lock before it refuses (a store closed elsewhere a moment ago whose
    /// server process is still exiting gives it back within milliseconds; a store in use does not).
    static let openLockWait = "2s"

    /// Replaces the store at `target` by the finished store at `replacement`, a schema of the same database, in
    /// one transaction: the target's schema (if any) is renamed away and dropped, and the replacement's schema
    /// takes its name. After an error nothing has changed.
    ///
    /// - Throws: ``QuireError/Code/migrationManagerDestinationStore`` when another connection has the target open,
    ///   when the two are in different databases, when the replacement holds no store, or when the server fails.
    package static func replaceSchema(at target: URL, with replacement: URL) throws {
        let old = try PostgresURL(target)
        let new = try PostgresURL(replacement)
        func refusal(_ reason: String, underlying: QuireError? = nil) -> QuireError {
            QuireError(
                .migrationManagerDestinationStore,
                "Cannot put the migrated store in place of \(PostgresURL.storeDescription(target)): \(reason); the store is unchanged.",
                context: .init(file: PostgresURL.redactedURL(target)), underlying: underlying)
        }
        guard old.connectionString == new.connectionString else {
            throw refusal("the migrated store is in another database")
        }
        let connection = try PostgresConnection(url: new)
        defer { connection.close() }
        do {
            try connection.transaction {
                do {
                    try connection.execute("SET LOCAL lock_timeout = '\(openLockWait)'")
                    try connection.queryOnce("SELECT pg_advisory_xact_lock(hashtext($1::TEXT))", [.text(openLockKey(schema: old.schema))])
                } catch let error as QuireError where (error.underlying as? PostgresServerError)?.sqlState == "55P03" {
                    // lock_not_available: still held when the wait ran out.
                    throw refusal("it is open in another coordinator or process; close it everywhere before migrating")
                }
                guard try tableNames(connection, schema: new.schema).contains("z_metadata") else {
                    throw refusal("the schema '\(new.schema)' holds no store")
                }
                // The old schema is dropped with everything in it: refuse when it holds tables or views that are not
                // the store's (every table of a store is named `z…`: Core Data's layout and Quire's own).
                let foreign = try connection.queryOnce(
                    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::TEXT "
                        + "AND c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT starts_with(c.relname, 'z') ORDER BY 1",
                    [.text(old.schema)])
                guard foreign.count == 0 else {
                    let names = (0..<foreign.count).compactMap { foreign.string($0, 0) }
                    throw refusal(
                        "its schema also holds tables or views that are not the store's (\(names.joined(separator: ", "))), which "
                            + "replacing the schema would drop; keep the store in a schema of its own")
                }
                let q = SQLDialect.quoteRaw
                if try schemaExists(connection, old.schema) {
                    let retired = PostgresURL.stagingSchema(for: old.schema, purpose: "replaced")
                    try connection.execute("ALTER SCHEMA \(q(old.schema)) RENAME TO \(q(retired))")
                    try connection.execute("ALTER SCHEMA \(q(new.schema)) RENAME TO \(q(old.schema))")
                    try connection.execute("DROP SCHEMA \(q(retired)) CASCADE")
                } else {
                    try connection.execute("ALTER SCHEMA \(q(new.schema)) RENAME TO \(q(old.schema))")
                }
            }
        } catch let error as QuireError where error.code != .migrationManagerDestinationStore {
            throw refusal(error.message, underlying: error)
        }
    }
}
