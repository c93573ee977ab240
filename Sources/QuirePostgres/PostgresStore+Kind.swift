import QuireCore
import QuireStores
import Foundation

extension StoreKind {
    /// PostgreSQL: Core Data's tables in a schema of a database (`postgresql://user@host/db?schema=name`);
    /// metadata in `z_metadata`, the embedded model in `z_quiremodel`; no files.
    package static let postgres: StoreKind = {
        var kind = StoreKind(type: .postgresType, backend: PostgresStore.self)
        kind.stagingURL = { PostgresURL.withSchema($0) { PostgresURL.stagingSchema(for: $0) } }
        kind.removeStore = { try PostgresStore.dropSchema(at: $0) }
        kind.migrationStagingURL = { PostgresURL.withSchema($0) { PostgresURL.stagingSchema(for: $0, purpose: "migration") } }
        kind.replaceStore = { try PostgresStore.replaceSchema(at: $0, with: $1) }
        kind.urlSchemes = ["postgresql", "postgres"]
        kind.describeURL = { PostgresURL.storeDescription($0) }
        kind.safeURL = { PostgresURL.safeURL($0) }
        return kind
    }()
}

extension PostgresStore {
    /// A connection to the store at a URL, whose schema must hold a store.
    static func connectToExisting(_ url: URL) throws -> PostgresConnection {
        let address = try PostgresURL(url)
        let connection = try PostgresConnection(url: address)
        guard try tableNames(connection, schema: address.schema).contains("z_metadata") else {
            connection.close()
            throw QuireError(
                .postgresSchemaMissing, "The schema '\(address.schema)' of '\(address.redacted)' holds no store.",
                context: .init(file: PostgresURL.redactedURL(url)))
        }
        return connection
    }

    /// Reads the metadata of a store without a coordinator.
    package static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        let connection = try connectToExisting(url)
        defer { connection.close() }
        return try readMetadata(connection, display: connection.url.redacted)
    }

    /// Replaces the metadata of a store without a coordinator, merged with what it has.
    package static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        let connection = try connectToExisting(url)
        defer { connection.close() }
        let existing = try readMetadata(connection, display: connection.url.redacted)
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .postgres)
        try connection.transaction { try write(merged, connection) }
    }

    /// Removes a store: drops its schema with everything in it.
    package static func dropSchema(at url: URL) throws {
        let address = try PostgresURL(url)
        let connection = try PostgresConnection(url: address)
        defer { connection.close() }
        try connection.execute("DROP SCHEMA IF EXISTS \(SQLDialect.quoteRaw(address.schema)) CASCADE")
    }

    /// The model a store embeds (`z_quiremodel`).
    package static func readModel(at url: URL) throws -> Data? {
        let connection = try connectToExisting(url)
        defer { connection.close() }
        let result = try connection.queryOnce("SELECT z_content FROM z_quiremodel WHERE z_version = 1")
        return result.count == 1 ? result.bytes(0, 0) : nil
    }
}

extension PostgresStore: ClosedStoreAccess {}
