@_spi(QuireEngine) import QuireCore
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
    /// The prepared INSERT of several rows at once (SQLiteStore+BatchInsert.swift), owned like the others.
    var batchInsertStatement: SQLiteStatement?

    package init(insertSQL: String, updateSQL: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)]) {
        self.insertSQL = insertSQL
        self.updateSQL = updateSQL
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
    }
}

/// The SQLite store: incremental, in Core Data's schema (see ``CoreDataSchema``), WAL by default and
/// checkpointed on close.
///
/// Used only under the coordinator's lock.
package final class SQLiteStore: ImportingStoreBackend, SQLStore {
    /// The handle this backend answers for. `unowned(unsafe)`: the handle owns its backend and is the only
    /// way to reach it, so the handle outlives every use; no reference counting on the per-row paths.
    package unowned(unsafe) let store: PersistentStore
    package private(set) var connection: SQLiteConnection?
    /// This store's entry in ``OpenFiles`` while its connection is open.
    private var openFileToken: AnyHashable?
    /// The watch for other connections' commits, while the coordinator keeps one (SQLiteStore+WriteWatch.swift).
    var writeWatch: SQLiteWriteWatch?
    /// The schema: Core Data's numbering for a new store, the store's own `Z_PRIMARYKEY` numbers once an
    /// existing store is loaded.
    ///
    /// Its accesses, and those of ``blobWrites``, are not checked at run time (`@exclusivity(unchecked)`): the
    /// store is used only under the coordinator's lock, so no two accesses overlap, and a save reads both for
    /// every row it writes, where the checks cost more than the reads.
    @exclusivity(unchecked) package private(set) var schema: CoreDataSchema
    /// Per entity: how to read its rows.
    var readers: [ObjectIdentifier: RowReader] = [:]
    /// The same readers by entity number (`Z_ENT`), for the per-row lookup.
    var readersByNumber: [RowReader?] = []
    /// Per entity: how to write its rows.
    var writePlans: [ObjectIdentifier: WritePlan] = [:]
    /// Per table: the select list.
    var selectLists: [ObjectIdentifier: String] = [:]
    /// Per entity: the select of one row by key (firing a fault), with its statement once prepared.
    var rowByKey: [ObjectIdentifier: SQLiteRowByKeyQuery] = [:]
    /// The builder a fault's row is packed with (``faultRow(for:)``), reused from one fault to the next.
    let faultRowBuilder = PackedRowBuilder()
    /// The compiled SQL of recent fetches by shape, and whether recent predicates compile (SQLiteStore+FetchPlans).
    package var fetchPlans = SQLFetchPlanCache<SQLFetchPlan>()
    package var evaluablePredicates = SQLFetchPlanCache<Bool>()
    /// How many times a fetch's predicate was compiled to SQL (tests read it).
    package var fetchCompilations = 0
    /// The attributes the store's own triggers maintain (Core Data's derived attributes, `Z_DA_…` triggers):
    /// read like any other, never written by a save.
    var triggerMaintainedAttributes: Set<ObjectIdentifier> = []
    /// The external data files of the save in progress.
    @exclusivity(unchecked) var blobWrites: ExternalDataWrites?
    /// The lengths of external data files carried into the store by an import.
    var importedLengths: [String: Int64] = [:]
    /// Open query generations: a connection each, holding a read transaction (see
    /// SQLiteStore+QueryGenerations.swift).
    var generationConnections: [UInt64: SQLiteConnection] = [:]

    package init(store: PersistentStore) {
        self.store = store
        self.schema = CoreDataSchema(model: store.model)
    }

    package var storeURL: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    /// SQLite's SQL (``SQLDialect/sqlite``).
    package var dialect: SQLDialect { .sqlite }

    package func db() throws -> SQLiteConnection {
        if !generationConnections.isEmpty, let pinned = generationConnections[QueryGenerationScope.number] { return pinned }
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
            // Changing the journal mode writes and syncs the file (four fsyncs): done before the first write
            // transaction instead, so opening a store in another mode (a document's snapshot is in DELETE mode)
            // and closing it unchanged writes nothing.
            let current = try connection.prepare("PRAGMA journal_mode")
            defer { current.finalize() }
            let mode = try current.step() ? current.string(at: 0) ?? "" : ""
            if mode.lowercased() != options.journalMode.rawValue.lowercased() {
                connection.deferredJournalMode = options.journalMode.rawValue
            }
        }
        try connection.execute("PRAGMA synchronous = FULL")
        // `StoreOptions.timeout` (`NSPersistentStoreTimeoutOption`); a `busy_timeout` pragma of the options wins.
        let milliseconds = options.timeout.isNaN ? 0 : min(max(0, (options.timeout * 1000).rounded()), Double(Int32.max))
        try connection.execute("PRAGMA busy_timeout = \(Int(milliseconds))")
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
        // Core Data keeps the UUID in Z_UUID only, not in the plist.
        let plist = try PropertyListValue.encode(metadata.filter { $0.key != StoreMetadataKey.storeUUID }, format: .binary)
        let modelData = try model.serializedRepresentation()
        // The model in Core Data's form too (issue 27, item 6), for tools that read Core Data's cache; a model the
        // encoder does not write yet (see ModelCacheEncoder) leaves the store without one, as Core Data's before 2017.
        let modelCache = try? ModelCacheEncoder.modelCache(model)
        try connection.transaction {
            for statement in schema.createStatements() { try connection.execute(statement) }
            let insertKey = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            defer { insertKey.finalize() }
            for entity in schema.numbers.entitiesInOrder {
                insertKey.reset()
                insertKey.bind(Int64(schema.numbers.number(of: entity)), at: 1)
                insertKey.bind(entity.name, at: 2)
                insertKey.bind(Int64(entity.superentity.map(schema.numbers.number(of:)) ?? 0), at: 3)
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
            if let modelCache {
                try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
                let insertCache = try connection.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
                defer { insertCache.finalize() }
                insertCache.bind(modelCache, at: 1)
                try insertCache.run()
            }
        }
        triggerMaintainedAttributes = try Self.derivedAttributes(connection, model: model)
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
        let sameModel = model.hasVersionHashes(storedHashes)
        // The first difference between the store's schema and the model's, if any.
        var difference: QuireError?
        do {
            let (schema, differences) = try Self.resolvedSchema(connection, tables: tables, model: model, url: storeURL)
            if let first = differences.first {
                throw QuireError(
                    .persistentStoreIncompatibleSchema, "The store '\(storeURL.path)' does not match its model: \(first).",
                    context: .init(file: storeURL))
            }
            self.schema = schema
            triggerMaintainedAttributes = try Self.derivedAttributes(connection, model: model)
        } catch let error as QuireError where error.code == .persistentStoreIncompatibleSchema {
            difference = error
        }
        if !sameModel && (tables.contains("Z_QUIREMODEL") || difference != nil) {
            var error = incompatibleModelError(storeURL)
            if let difference { error.message += " " + difference.message }
            throw error
        }
        if let difference { throw difference }
        identifier = uuid
        self.metadata = metadata
    }

    /// The schema of a model in an open store, every name it has a choice about taken from the file (its entity
    /// numbers from `Z_PRIMARYKEY`, its join tables and columns from `PRAGMA table_info`; see
    /// ``CoreDataSchema/StoreTables``), and how the store's tables differ from it, first difference first.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleSchema`` when `Z_PRIMARYKEY` does not match the
    ///   model (naming the first difference).
    static func resolvedSchema(
        _ connection: SQLiteConnection, tables: Set<String>, model: ManagedObjectModel, url: URL
    ) throws -> (CoreDataSchema, differences: [String]) {
        let numbers = try CoreDataEntityNumbers.read(try primaryKeyRows(connection, url: url), model: model, url: url)
        var present: [String: [String]] = [:]
        for table in tables { present[table] = try connection.columnNames(of: table).sorted() }
        let storeTables = CoreDataSchema.StoreTables(present)
        let schema = CoreDataSchema(model: model, numbers: numbers, storeTables: storeTables)
        return (schema, schemaDifferences(schema, present: storeTables.columnsByTable))
    }

    /// The attributes a store's derived-attribute triggers maintain. Core Data names them
    /// `Z_DA_<table>_<Entity>_<attribute>_<INSERT | UPDATE | PARAMETER_INSERT | SOURCE_INSERT | …>` (see
    /// `CoreDataSchema.derivedAttributeTriggerStatements()`).
    static func derivedAttributes(_ connection: SQLiteConnection, model: ManagedObjectModel) throws -> Set<ObjectIdentifier> {
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'")
        defer { statement.finalize() }
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0) ?? "") }
        guard !names.isEmpty else { return [] }
        var result: Set<ObjectIdentifier> = []
        for entity in model.entitiesByNumber {
            for attribute in entity.allAttributes where attribute.entity === entity {
                let marker = "_\(entity.name)_\(attribute.name)_"
                if names.contains(where: { $0.contains(marker) }) {
                    result.insert(ObjectIdentifier(attribute))
                }
            }
        }
        return result
    }

    /// The rows of a store's `Z_PRIMARYKEY` table.
    package static func primaryKeyRows(_ connection: SQLiteConnection, url: URL) throws -> [CoreDataEntityNumbers.Row] {
        let statement = try connection.prepare("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")
        defer { statement.finalize() }
        var rows: [CoreDataEntityNumbers.Row] = []
        while try statement.step() {
            rows.append(.init(number: Int(statement.int64(at: 0)), name: statement.string(at: 1) ?? "", superNumber: Int(statement.int64(at: 2))))
        }
        return rows
    }

    /// The tables Core Data or Quire keep beside the entity and join tables, which no model describes.
    private static let bookkeepingTables: Set<String> = [
        "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "Z_QUIREMODEL", externalDataTable,
    ]

    /// How a store's tables differ from a schema's, first difference first: missing tables and columns, and
    /// columns or `Z`-prefixed tables the model does not have. Core Data's persistent-history tables (`A…`) and
    /// the bookkeeping tables are not the model's and are not compared.
    private static func schemaDifferences(_ schema: CoreDataSchema, present: [String: Set<String>]) -> [String] {
        var differences: [String] = []
        let expected = schema.expectedColumns()
        for (table, columns) in expected.sorted(by: { $0.key < $1.key }) {
            guard let existing = present[table] else {
                differences.append("table \(table) is missing")
                continue
            }
            for column in columns.sorted() where !existing.contains(column) {
                differences.append("column \(table).\(column) is missing")
            }
            if !bookkeepingTables.contains(table) {
                for column in existing.sorted() where !columns.contains(column) {
                    differences.append("the store has a column \(table).\(column) the model does not have")
                }
            }
        }
        for table in present.keys.sorted() where table.hasPrefix("Z") && expected[table] == nil && !bookkeepingTables.contains(table) {
            differences.append("the store has a table \(table) the model does not have")
        }
        return differences
    }

    /// Reads the metadata of an open database: the `Z_PLIST` property list, with the store's UUID
    /// (`NSStoreUUID`) from the `Z_UUID` column, where Core Data keeps it (its plist has no such key).
    package static func readMetadata(_ connection: SQLiteConnection, url: URL) throws -> [String: PropertyListValue] {
        let statement = try connection.prepare("SELECT Z_PLIST, Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1")
        defer { statement.finalize() }
        guard try statement.step(), !statement.isNull(at: 0) else {
            throw QuireError(
                .persistentStoreIncompatibleSchema, "The store '\(url.path)' has no metadata row.", context: .init(file: url))
        }
        var metadata: [String: PropertyListValue]
        do {
            metadata = try PropertyListValue.decodeDictionary(from: statement.data(at: 0))
        } catch var error as QuireError {
            error.context.file = url
            error.message = "The metadata of the store '\(url.path)' is corrupt: " + error.message
            throw error
        }
        if let uuid = statement.string(at: 1), !uuid.isEmpty {
            metadata[StoreMetadataKey.storeUUID] = .string(uuid)
        }
        return metadata
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
        try reopen(at: url)
    }

    // MARK: Requests (SQLiteStore+Fetch, +Batch, +Save, +Import; SQLStore+Fetch for what engines share)

    package func close() throws {
        closeQueryGenerations()
        stopWatchingForWrites()
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
        triggerMaintainedAttributes = []
        writePlans = [:]
        selectLists = [:]
        rowByKey = [:]
        fetchPlans.removeAll()
        evaluablePredicates.removeAll()
    }
}
