import QuireCore
import CSQLite
import Foundation

/// The statements that write an entity's rows, and which slots they bind in order. A class, so that the
/// per-row lookup retains one object, and so that it can keep its prepared statements.
package final class WritePlan {
    package let insertSQL: String
    package let updateSQL: String
    /// Attribute slots, and whether each uses Core Data's external-storage encoding.
    package let attributeSlots: [(Int, Bool)]
    /// To-one relationship slots, and whether each also stores the destination's entity number.
    package let relationshipSlots: [(Int, Bool)]
    /// The prepared statements, owned by the connection's cache (cleared with the plans on close).
    var insertStatement: SQLiteStatement?
    var updateStatement: SQLiteStatement?

    package init(insertSQL: String, updateSQL: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)]) {
        self.insertSQL = insertSQL
        self.updateSQL = updateSQL
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
    }
}

/// The SQLite store: incremental, in Core Data's schema (see ``SQLiteSchema``), WAL by default and
/// checkpointed on close.
///
/// Used only under the coordinator's lock.
package final class SQLiteStore: ImportingStoreBackend {
    /// The handle this backend answers for. `unowned(unsafe)`: the handle owns its backend and is the only
    /// way to reach it, so the handle outlives every use; no reference counting on the per-row paths.
    package unowned(unsafe) let store: PersistentStore
    package private(set) var connection: SQLiteConnection?
    /// This store's entry in ``OpenFiles`` while its connection is open.
    private var openFileToken: AnyHashable?
    package let schema: SQLiteSchema
    /// Per entity: how to read its rows.
    var readers: [ObjectIdentifier: RowReader] = [:]
    /// The same readers by entity number (`Z_ENT`), for the per-row lookup.
    var readersByNumber: [RowReader?] = []
    /// Per entity: how to write its rows.
    var writePlans: [ObjectIdentifier: WritePlan] = [:]
    /// Per table: the select list and the select of one row by key.
    var selectLists: [ObjectIdentifier: String] = [:]
    var rowByKeySQL: [ObjectIdentifier: String] = [:]
    /// The external data files of the save in progress.
    var blobWrites: ExternalDataWrites?
    /// The lengths of external data files carried into the store by an import.
    var importedLengths: [String: Int64] = [:]

    package init(store: PersistentStore) {
        self.store = store
        self.schema = SQLiteSchema(model: store.model)
    }

    package var storeURL: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    package func db() throws -> SQLiteConnection {
        guard let connection else {
            throw QuireError(.persistentStoreOperation, "The SQLite store at '\(storeURL.path)' is closed.", context: .init(file: storeURL))
        }
        return connection
    }

    // MARK: Opening

    package func load() throws {
        let state = try SQLiteFileCheck.check(storeURL, readOnly: options.isReadOnly)
        let connection = try SQLiteConnection(url: storeURL, readOnly: options.isReadOnly, create: state == .missing)
        do {
            try SQLiteFunctions.register(on: connection)
            if state == .database {
                // Reading the schema proves the file is a database before anything is written.
                let tables = try connection.tableNames()
                try verifySchema(connection, tables: tables)
                try applyPragmas(connection)
            } else {
                try applyPragmas(connection)
                try createSchema(connection)
            }
        } catch {
            connection.close()
            if state == .missing { removeCreatedFiles() }
            throw error
        }
        self.connection = connection
        openFileToken = OpenFiles.opened(storeURL.path)
    }

    private func removeCreatedFiles() {
        for suffix in [""] + SQLiteFileCheck.sideFileSuffixes {
            try? FileManager.default.removeItem(atPath: storeURL.path + suffix)
        }
    }

    private func applyPragmas(_ connection: SQLiteConnection) throws {
        if !options.isReadOnly {
            try connection.execute("PRAGMA journal_mode = \(options.journalMode.rawValue)")
        }
        try connection.execute("PRAGMA synchronous = FULL")
        for (name, value) in options.sqlitePragmas.sorted(by: { $0.key < $1.key }) {
            let identifier = name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !name.isEmpty
            let plainValue = value.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !value.isEmpty
            guard identifier, plainValue else {
                throw QuireError(
                    .invalidArgument, "The SQLite pragma '\(name)' = '\(value)' is not a plain name and value.",
                    context: .init(file: storeURL))
            }
            try connection.execute("PRAGMA \(name) = \(value)")
        }
    }

    private func createSchema(_ connection: SQLiteConnection) throws {
        guard !options.isReadOnly else { throw readOnlyError() }
        let uuid = UUID().uuidString
        let metadata = StoreMetadataKey.standard(type: .sqlite, uuid: uuid, model: model)
        let plist = try PropertyListValue.encode(metadata, format: .binary)
        let modelData = try model.serializedRepresentation()
        try connection.transaction {
            for statement in schema.createStatements() { try connection.execute(statement) }
            let insertKey = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            defer { insertKey.finalize() }
            for entity in model.entitiesByNumber {
                insertKey.reset()
                insertKey.bind(Int64(entity.entityNumber), at: 1)
                insertKey.bind(entity.name, at: 2)
                insertKey.bind(Int64(entity.superentity?.entityNumber ?? 0), at: 3)
                try insertKey.run()
            }
            let insertMetadata = try connection.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            defer { insertMetadata.finalize() }
            insertMetadata.bind(uuid, at: 1)
            insertMetadata.bind(plist, at: 2)
            try insertMetadata.run()
            let insertModel = try connection.prepare("INSERT INTO Z_QUIREMODEL (Z_VERSION, Z_CONTENT) VALUES (1, ?)")
            defer { insertModel.finalize() }
            insertModel.bind(modelData, at: 1)
            try insertModel.run()
        }
        identifier = uuid
        self.metadata = metadata
    }

    private func verifySchema(_ connection: SQLiteConnection, tables: Set<String>) throws {
        guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
            throw QuireError(
                .persistentStoreIncompatibleSchema,
                "The SQLite database '\(storeURL.path)' is neither a Quire nor a Core Data store (it has no Z_METADATA "
                    + "and Z_PRIMARYKEY tables).",
                context: .init(file: storeURL))
        }
        let metadata = try SQLiteStore.readMetadata(connection, url: storeURL)
        let uuid = try checkTypeAndUUID(metadata, file: storeURL)
        let storedHashes = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.compactMapValues(\.dataValue)
        let sameModel = storedHashes == model.entityVersionHashesByName
        let missing = try missingColumns(connection, tables: tables)
        if !sameModel && (tables.contains("Z_QUIREMODEL") || !missing.isEmpty) { throw incompatibleModelError(storeURL) }
        if let first = missing.first {
            throw QuireError(
                .persistentStoreIncompatibleSchema,
                "The store '\(storeURL.path)' does not match its model: \(first).",
                context: .init(file: storeURL))
        }
        identifier = uuid
        self.metadata = metadata
    }

    private func missingColumns(_ connection: SQLiteConnection, tables: Set<String>) throws -> [String] {
        var missing: [String] = []
        for (table, columns) in schema.expectedColumns().sorted(by: { $0.key < $1.key }) {
            guard tables.contains(table) else {
                missing.append("table \(table) is missing")
                continue
            }
            let present = try connection.columnNames(of: table)
            for column in columns.sorted() where !present.contains(column) {
                missing.append("column \(table).\(column) is missing")
            }
        }
        return missing
    }

    /// Reads the metadata plist of an open database.
    package static func readMetadata(_ connection: SQLiteConnection, url: URL) throws -> [String: PropertyListValue] {
        let statement = try connection.prepare("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        defer { statement.finalize() }
        guard try statement.step(), !statement.isNull(at: 0) else {
            throw QuireError(
                .persistentStoreIncompatibleSchema, "The store '\(url.path)' has no metadata row.", context: .init(file: url))
        }
        do {
            return try PropertyListValue.decodeDictionary(from: statement.data(at: 0))
        } catch var error as QuireError {
            error.context.file = url
            error.message = "The metadata of the store '\(url.path)' is corrupt: " + error.message
            throw error
        }
    }

    /// Closes the connection, renames the store's files and reopens it at the new location.
    package func rename(to url: URL, kind: StoreKind) throws {
        guard let old = store.url else { return }
        try close()
        do {
            try kind.moveFiles(from: old, to: url)
        } catch {
            try? load()
            throw error
        }
        store.url = url
        try load()
    }

    /// Reopens the store at a new location, where its file must already be; back at the old one on failure.
    package func relocate(to url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw QuireError(
                .fileReadNoSuchFile, "There is no SQLite store at '\(url.path)'; move the store there before setting its URL.",
                context: .init(file: url))
        }
        let old = store.url
        try close()
        store.url = url
        do {
            try load()
        } catch {
            store.url = old
            try? load()
            throw error
        }
    }

    // MARK: Requests (implemented in SQLiteStore+Fetch and SQLiteStore+Save)

    package func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot] { try sqliteFetchRows(fetch) }
    package func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws {
        try sqliteVisitRows(fetch, body)
    }
    package func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        sqliteCanEvaluate(predicate, for: entity)
    }
    package func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] { try sqliteFetchObjectIDs(fetch) }
    package func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? {
        try sqliteFetchDictionaries(request)
    }
    package func count(_ fetch: StoreFetch) throws -> Int { try sqliteCount(fetch) }
    package func snapshot(for objectID: ObjectID) throws -> RowSnapshot? { try sqliteSnapshot(for: objectID) }
    package func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        try sqliteRelatedObjectIDs(of: objectID, relationship: relationship)
    }
    package func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] { try sqliteSnapshots(for: objectIDs) }
    package func relatedObjectIDs(
        of objectIDs: [ObjectID], relationship: RelationshipDescription
    ) throws -> [ObjectID: [ObjectID]] {
        try sqliteRelatedObjectIDs(of: objectIDs, relationship: relationship)
    }
    package func save(_ request: SaveRequest) throws -> SaveResult { try sqliteSave(request) }
    package func recordedLength(ofExternalData name: String) -> Int64? { sqliteRecordedLength(ofExternalData: name) }
    package func beginImport() throws { try sqliteBeginImport() }
    package func importRecords(_ rows: [RowSnapshot]) throws { try sqliteImportRecords(rows) }
    package func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        try sqliteImportRelationships(owners)
    }
    package func importPass(for relationship: RelationshipDescription) -> Int { sqliteImportPass(for: relationship) }
    package func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws { try sqliteFinishImport(maximumKeys: maximumKeys) }

    package func close() throws {
        guard let connection else { return }
        if metadataIsDirty && !options.isReadOnly {
            try connection.transaction { try SQLiteStore.write(metadata, connection) }
            metadataIsDirty = false
        }
        if !options.isReadOnly && options.journalMode == .wal {
            // Checkpoint without waiting for other connections' readers; the last connection to close
            // checkpoints again and removes the -wal and -shm files.
            try? connection.execute("PRAGMA busy_timeout = 0; PRAGMA wal_checkpoint(TRUNCATE)")
        }
        connection.close()
        self.connection = nil
        OpenFiles.closed(openFileToken)
        openFileToken = nil
        readers = [:]
        readersByNumber = []
        writePlans = [:]
        selectLists = [:]
        rowByKeySQL = [:]
    }
}
