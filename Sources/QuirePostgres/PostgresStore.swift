import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// The PostgreSQL store: incremental, in Core Data's table layout (``CoreDataSchema``'s tables, columns and
/// entity numbers) in a schema of its own, its predicates compiled by ``SQLPredicateCompiler`` in the
/// PostgreSQL dialect, optimistic locking with `Z_OPT` across every process and machine that shares it.
///
/// Used only under the coordinator's lock.
package final class PostgresStore: ImportingStoreBackend, SQLStore {
    /// The handle this backend answers for; it owns the backend and outlives every use.
    package unowned(unsafe) let store: PersistentStore
    /// The open connection; nil before `load`, after `close`, and after a lost connection until the next request.
    var connection: PostgresConnection?
    /// The schema, with the store's own entity numbers once loaded.
    package private(set) var schema: CoreDataSchema
    /// Per entity: how to read its rows.
    var readers: [ObjectIdentifier: RowReader] = [:]
    /// Per table: the select list.
    var selectLists: [ObjectIdentifier: String] = [:]
    /// Per entity: the INSERT and UPDATE of its rows.
    var writePlans: [ObjectIdentifier: WritePlan] = [:]
    /// Per entity and row count: the SQL of a multi-row INSERT.
    var multiRowInserts: [MultiRowInsertKey: String] = [:]
    /// Per entity: the column types its COPY writes; empty when a column has no binary form it writes.
    var copyTypesByEntity: [ObjectIdentifier: [UInt32]] = [:]
    /// The SQL of fetches by shape, with their prepared statements (``runPlanned(_:_:plan:)``).
    package var fetchPlans = SQLFetchPlanCache<SQLFetchPlan>()
    /// Whether predicates compile, by shape (``SQLStore/canEvaluate(_:for:)``).
    package var evaluablePredicates = SQLFetchPlanCache<Bool>()
    /// How many times a fetch's SQL or a predicate was compiled: tests check that repeated shapes compile once.
    package var fetchCompilations = 0
    /// The address, parsed once.
    private var address: PostgresURL?
    /// The thread that hears other coordinators' saves.
    var listener: PostgresChangeListener?
    /// The saves it heard, for the coordinator (PostgresStore+Notify.swift).
    let foreignWrites = PostgresForeignWrites()
    /// What this store instance signs its save announcements with.
    let notificationSource = UUID().uuidString.prefix(8).lowercased()

    package init(store: PersistentStore) {
        self.store = store
        self.schema = CoreDataSchema(model: store.model)
    }

    /// PostgreSQL's SQL (``SQLDialect/postgres``).
    package var dialect: SQLDialect { .postgres }

    /// The store's URL without its password, for messages.
    var displayURL: String { address?.redacted ?? url.map { PostgresURL.redact($0.absoluteString) } ?? "postgresql:" }

    /// The redacted URL errors carry as their file.
    var errorURL: URL? { url.map(PostgresURL.redactedURL) }

    /// The open connection, reconnecting when the last one was lost.
    ///
    /// - Throws: the errors of ``PostgresConnection/init(url:)`` when the server cannot be reached again.
    package func db() throws -> PostgresConnection {
        if let connection, connection.isUsable { return connection }
        guard let address else {
            throw QuireError(.persistentStoreOperation, "The PostgreSQL store '\(displayURL)' is closed.", context: .init(file: errorURL))
        }
        connection?.close()
        connection = nil
        let fresh = try PostgresConnection(url: address)
        try Self.holdOpenLock(fresh, schema: address.schema)
        connection = fresh
        return fresh
    }

    // MARK: Opening

    package func load() throws {
        guard let url else { throw QuireError(.persistentStoreOpen, "A PostgreSQL store needs a postgresql:// URL.") }
        let address = try PostgresURL(url)
        let connection = try PostgresConnection(url: address)
        do {
            let schemaName = address.schema
            try Self.holdOpenLock(connection, schema: schemaName)
            var tables = try Self.tableNames(connection, schema: schemaName)
            if !tables.contains("z_metadata") {
                guard try Self.schemaExists(connection, schemaName) || !options.isReadOnly else {
                    throw QuireError(
                        .postgresSchemaMissing,
                        "The schema '\(schemaName)' of the PostgreSQL store '\(address.redacted)' does not exist (the store was opened read-only, so it is not created).",
                        context: .init(file: errorURL))
                }
                guard !options.isReadOnly else { throw readOnlyError() }
                // Two processes creating the same store: the advisory lock makes the second wait, then find it made.
                try connection.transaction {
                    try connection.queryOnce("SELECT pg_advisory_xact_lock(hashtext($1::TEXT))", [.text("quire-create:" + schemaName)])
                    tables = try Self.tableNames(connection, schema: schemaName)
                    if !tables.contains("z_metadata") { try createSchema(connection, address: address) }
                }
                tables = try Self.tableNames(connection, schema: schemaName)
            }
            try verifySchema(connection, tables: tables)
            if !tables.contains(Self.externalDataTable), !options.isReadOnly { try connection.execute(Self.createExternalDataTable) }
        } catch {
            Self.closeReleasingOpenLock(connection, schema: address.schema)
            throw error
        }
        self.address = address
        self.connection = connection
        startListening(address)
    }

    static func schemaExists(_ connection: PostgresConnection, _ name: String) throws -> Bool {
        try connection.queryOnce("SELECT 1 FROM pg_namespace WHERE nspname = $1::TEXT", [.text(name)]).count > 0
    }

    /// The tables of a schema, lower case as PostgreSQL keeps them.
    static func tableNames(_ connection: PostgresConnection, schema: String) throws -> Set<String> {
        let result = try connection.queryOnce(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = $1::TEXT", [.text(schema)])
        return Set((0..<result.count).compactMap { result.string($0, 0) })
    }

    private func createSchema(_ connection: PostgresConnection, address: PostgresURL) throws {
        let uuid = UUID().uuidString
        let metadata = StoreMetadataKey.standard(type: .postgres, uuid: uuid, model: model)
        let plist = try PropertyListValue.encode(metadata.filter { $0.key != StoreMetadataKey.storeUUID }, format: .binary)
        let modelData = try model.serializedRepresentation()
        do {
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(SQLDialect.quoteRaw(address.schema))")
        } catch let error as QuireError {
            throw QuireError(
                .postgresSchemaMissing,
                "The schema '\(address.schema)' of the PostgreSQL store '\(address.redacted)' does not exist and cannot be created: \(error.message)",
                context: .init(file: errorURL), underlying: error)
        }
        for statement in PostgresSchema.createStatements(schema) { try connection.execute(statement) }
        for statement in PostgresDialect.functionStatements { try connection.execute(statement) }
        for entity in schema.numbers.entitiesInOrder {
            try connection.queryOnce(
                "INSERT INTO z_primarykey (z_ent, z_name, z_super, z_max) VALUES ($1::BIGINT, $2::TEXT, $3::BIGINT, 0)",
                [.integer(Int64(schema.numbers.number(of: entity))), .text(entity.name),
                 .integer(Int64(entity.superentity.map(schema.numbers.number(of:)) ?? 0))])
        }
        try connection.queryOnce(
            "INSERT INTO z_metadata (z_version, z_uuid, z_plist) VALUES (1, $1::TEXT, $2::BYTEA)", [.text(uuid), .bytes(plist)])
        try connection.queryOnce("INSERT INTO z_quiremodel (z_version, z_content) VALUES (1, $1::BYTEA)", [.bytes(modelData)])
    }

    private func verifySchema(_ connection: PostgresConnection, tables: Set<String>) throws {
        let metadata = try Self.readMetadata(connection, display: displayURL)
        guard metadata[StoreMetadataKey.storeType]?.stringValue == StoreType.postgres.rawValue else {
            throw QuireError(
                .persistentStoreTypeMismatch, "The schema of '\(displayURL)' holds no PostgreSQL store (its metadata says "
                    + "'\(metadata[StoreMetadataKey.storeType]?.stringValue ?? "none")').", context: .init(file: errorURL))
        }
        guard let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue, !uuid.isEmpty else {
            throw QuireError(.persistentStoreIncompatibleSchema, "The store '\(displayURL)' has no UUID in z_metadata.", context: .init(file: errorURL))
        }
        let storedHashes = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.compactMapValues(\.dataValue)
        guard model.hasVersionHashes(storedHashes) else {
            throw QuireError(
                .persistentStoreIncompatibleVersionHash,
                "The PostgreSQL store '\(displayURL)' was written with another model (or another version of it); its entity "
                    + "version hashes differ from the model's.",
                context: .init(file: errorURL))
        }
        let rows = try connection.queryOnce("SELECT z_ent, z_name, z_super FROM z_primarykey")
        let keys = (0..<rows.count).map {
            CoreDataEntityNumbers.Row(number: Int(rows.int64($0, 0)), name: rows.string($0, 1) ?? "", superNumber: Int(rows.int64($0, 2)))
        }
        let numbers = try CoreDataEntityNumbers.read(keys, model: model, url: errorURL ?? URL(fileURLWithPath: "/"))
        let columns = try connection.queryOnce(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()")
        var present: [String: Set<String>] = [:]
        var listed: [String: [String]] = [:]
        for row in 0..<columns.count {
            present[columns.string(row, 0) ?? "", default: []].insert(columns.string(row, 1) ?? "")
            listed[columns.string(row, 0) ?? "", default: []].append(columns.string(row, 1) ?? "")
        }
        // Join tables and columns named as the database has them (a store of an older Quire keeps a to-many
        // without an inverse in a join table).
        let schema = CoreDataSchema(model: model, numbers: numbers, storeTables: CoreDataSchema.StoreTables(listed))
        for (table, expected) in schema.expectedColumns().sorted(by: { $0.key < $1.key }) {
            guard let existing = present[table.lowercased()] else {
                throw QuireError(
                    .persistentStoreIncompatibleSchema, "The PostgreSQL store '\(displayURL)' does not match its model: table "
                        + "\(table.lowercased()) is missing.", context: .init(file: errorURL))
            }
            for column in expected.sorted() where !existing.contains(column.lowercased()) {
                throw QuireError(
                    .persistentStoreIncompatibleSchema, "The PostgreSQL store '\(displayURL)' does not match its model: column "
                        + "\(table.lowercased()).\(column.lowercased()) is missing.", context: .init(file: errorURL))
            }
        }
        self.schema = schema
        identifier = uuid
        self.metadata = metadata
    }

    /// The metadata of an open store: the `z_plist` property list, with the UUID from `z_uuid`.
    static func readMetadata(_ connection: PostgresConnection, display: String) throws -> [String: PropertyListValue] {
        let result = try connection.queryOnce("SELECT z_plist, z_uuid FROM z_metadata WHERE z_version = 1")
        guard result.count == 1, let plist = result.bytes(0, 0) else {
            throw QuireError(.persistentStoreIncompatibleSchema, "The PostgreSQL store '\(display)' has no metadata row.")
        }
        var metadata = try PropertyListValue.decodeDictionary(from: plist)
        if let uuid = result.string(0, 1), !uuid.isEmpty { metadata[StoreMetadataKey.storeUUID] = .string(uuid) }
        return metadata
    }

    /// Replaces the metadata row (inside the caller's transaction).
    static func write(_ metadata: [String: PropertyListValue], _ connection: PostgresConnection) throws {
        var plistKeys = metadata
        plistKeys[StoreMetadataKey.storeUUID] = nil
        let plist = try PropertyListValue.encode(plistKeys, format: .binary)
        try connection.query(
            "UPDATE z_metadata SET z_uuid = $1::TEXT, z_plist = $2::BYTEA WHERE z_version = 1",
            [.text(metadata[StoreMetadataKey.storeUUID]?.stringValue ?? ""), .bytes(plist)])
    }

    package func close() throws {
        stopListening()
        guard let connection else {
            address = nil
            return
        }
        if metadataIsDirty && !options.isReadOnly, connection.isUsable {
            try connection.transaction { try Self.write(metadata, connection) }
            metadataIsDirty = false
        }
        Self.closeReleasingOpenLock(connection, schema: address?.schema)
        self.connection = nil
        address = nil
        readers = [:]
        selectLists = [:]
        writePlans = [:]
        multiRowInserts = [:]
        copyTypesByEntity = [:]
        fetchPlans.removeAll()
    }

    // MARK: Files (a database has none)

    package var externalDataFolder: ExternalDataFolder? { nil }
    package var keepsExternalDataFiles: Bool { false }
    package func writeSnapshot(to destination: URL) throws { throw unsupported("a file snapshot of a PostgreSQL store") }

    /// Points the store at another schema or database, where a store must already be; back at the old one on failure.
    package func relocate(to url: URL) throws { try reopen(at: url) }

    /// Renames the store's schema (Save As writes into a temporary schema first).
    package func rename(to url: URL, kind: StoreKind) throws {
        guard let oldURL = store.url else { return }
        let old = try PostgresURL(oldURL)
        let new = try PostgresURL(url)
        guard old.connectionString == new.connectionString else {
            throw unsupported("moving a PostgreSQL store to another database")
        }
        let connection = try db()
        try connection.transaction {
            if try Self.schemaExists(connection, new.schema) {
                guard try Self.tableNames(connection, schema: new.schema).isEmpty else {
                    throw QuireError(
                        .persistentStoreOperation,
                        "The schema '\(new.schema)' of '\(new.redacted)' already holds tables; Save As needs a new schema.",
                        context: .init(file: PostgresURL.redactedURL(url)))
                }
                try connection.execute("DROP SCHEMA \(SQLDialect.quoteRaw(new.schema))")
            }
            try connection.execute(
                "ALTER SCHEMA \(SQLDialect.quoteRaw(old.schema)) RENAME TO \(SQLDialect.quoteRaw(new.schema))")
        }
        try close()
        store.url = url
        try load()
    }

    // MARK: Requests (PostgresStore+Fetch, +Save, +Import; SQLStore+Fetch for what engines share)

    package func snapshot(for objectID: ObjectID) throws -> RowSnapshot? { try snapshots(for: [objectID]).first }
    package func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        try relatedObjectIDs(of: [objectID], relationship: relationship)[objectID] ?? []
    }
}
