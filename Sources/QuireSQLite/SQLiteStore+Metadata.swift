import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// Reads the model embedded in a closed store file (`Z_QUIREMODEL`, absent from stores Core Data wrote).
    package static func readModel(at url: URL) throws -> Data? {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
            throw QuireError(
                .persistentStoreIncompatibleSchema, "The file '\(url.path)' is not an SQLite store.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        guard try connection.tableNames().contains("Z_QUIREMODEL") else { return nil }
        let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_QUIREMODEL WHERE Z_VERSION = 1")
        defer { statement.finalize() }
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        let model = statement.data(at: 0)
        guard model.count <= StoreKind.maximumModelSize else {
            throw QuireError(
                .fileReadCorruptFile,
                "The model embedded in '\(url.path)' is \(model.count) bytes long, more than the \(StoreKind.maximumModelSize) allowed.",
                context: .init(file: url))
        }
        return model
    }

    /// Writes `model` into the open store's `Z_QUIREMODEL` (creating the table in a store Core Data wrote), so that
    /// the file opens without the application: what Save As does to a copy of a store's file.
    package func embedModel(_ model: ManagedObjectModel) throws {
        guard !options.isReadOnly else { throw readOnlyError() }
        let data = try model.serializedRepresentation()
        let connection = try db()
        try connection.transaction {
            try connection.execute("CREATE TABLE IF NOT EXISTS Z_QUIREMODEL (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)")
            let insert = try connection.prepare("INSERT OR REPLACE INTO Z_QUIREMODEL (Z_VERSION, Z_CONTENT) VALUES (1, ?)")
            defer { insert.finalize() }
            insert.bind(data, at: 1)
            try insert.run()
        }
    }

    /// Reads the compiled model Core Data keeps in `Z_MODELCACHE` (stores written since 2017), read-only; nil
    /// when the store has none.
    package static func readModelCache(at url: URL) throws -> Data? {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
            throw QuireError(
                .persistentStoreIncompatibleSchema, "The file '\(url.path)' is not an SQLite store.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        guard try connection.tableNames().contains("Z_MODELCACHE") else { return nil }
        let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        defer { statement.finalize() }
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        let cache = statement.data(at: 0)
        guard cache.count <= StoreKind.maximumModelSize else {
            throw QuireError(
                .fileReadCorruptFile,
                "The model cache of '\(url.path)' is \(cache.count) bytes long, more than the \(StoreKind.maximumModelSize) allowed.",
                context: .init(file: url))
        }
        return cache
    }

    /// Readies a closed store file to be replaced: leaves write-ahead logging, which only the sole connection
    /// can do, proving nobody else has it open.
    package static func prepareForReplacement(_ url: URL) throws {
        // Nothing to ready where no database is (a missing or empty file, or another type's store).
        guard (try? SQLiteFileCheck.check(url, readOnly: true)) == .database else { return }
        let inUse = QuireError(
            .migrationManagerDestinationStore,
            "The store '\(url.path)' is open elsewhere; close it before it is replaced by its migrated version.",
            context: .init(file: url))
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        try connection.execute("PRAGMA busy_timeout = 0")
        let statement = try connection.prepare("PRAGMA journal_mode = DELETE")
        defer { statement.finalize() }
        do {
            guard try statement.step(), statement.string(at: 0)?.lowercased() == "delete" else { throw inUse }
        } catch let error as QuireError where error.code != .migrationManagerDestinationStore {
            throw inUse
        }
    }

    /// What SQLite's integrity check reports of a closed store file, read-only; empty when it is sound.
    static func integrityProblems(at url: URL) throws -> [String] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        let statement = try connection.prepare("PRAGMA integrity_check")
        defer { statement.finalize() }
        var problems: [String] = []
        while try statement.step() {
            let line = statement.string(at: 0) ?? ""
            if line != "ok" { problems.append("SQLite integrity check: \(line)") }
        }
        return problems
    }

    /// Moves what a store file's write-ahead log holds into the file itself, so the file alone is the store.
    package static func checkpoint(_ url: URL) throws {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database,
            FileManager.default.fileExists(atPath: url.path + "-wal")
        else { return }
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Reads the `Z_METADATA` row of a store file without opening it as a store.
    package static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
            throw QuireError(.fileReadCorruptFile, "The SQLite store '\(url.path)' is empty.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        return try readMetadata(connection, url: url)
    }

    /// Replaces the `Z_METADATA` row of a store file in one transaction.
    package static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        guard try SQLiteFileCheck.check(url, readOnly: false) == .database else {
            throw QuireError(.fileReadCorruptFile, "The SQLite store '\(url.path)' is empty.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        let existing = try readMetadata(connection, url: url)
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .sqlite)
        try connection.transaction { try write(merged, connection) }
    }

    /// Writes a metadata dictionary into `Z_METADATA` (inside the caller's transaction): the UUID in `Z_UUID`
    /// and every other key, known to Quire or not, in `Z_PLIST`, as Core Data does.
    package static func write(_ metadata: [String: PropertyListValue], _ connection: SQLiteConnection) throws {
        var plistKeys = metadata
        plistKeys[StoreMetadataKey.storeUUID] = nil
        let plist = try PropertyListValue.encode(plistKeys, format: .binary)
        let update = try connection.cachedStatement("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1")
        update.bind(metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "", at: 1)
        update.bind(plist, at: 2)
        try update.run()
    }
}
