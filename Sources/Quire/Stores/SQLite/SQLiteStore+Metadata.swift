import Foundation

extension SQLiteStore {
    /// Reads the `Z_METADATA` row of a store file without opening it as a store.
    static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
            throw QuireError(.fileReadCorruptFile, "The SQLite store '\(url.path)' is empty.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        return try readMetadata(connection, url: url)
    }

    /// Replaces the `Z_METADATA` row of a store file in one transaction.
    static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        guard try SQLiteFileCheck.check(url, readOnly: false) == .database else {
            throw QuireError(.fileReadCorruptFile, "The SQLite store '\(url.path)' is empty.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        let existing = try readMetadata(connection, url: url)
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .sqlite)
        try connection.transaction { try write(merged, connection) }
    }

    /// Writes a metadata dictionary into `Z_METADATA` (inside the caller's transaction).
    static func write(_ metadata: [String: PropertyListValue], _ connection: SQLiteConnection) throws {
        let plist = try PropertyListValue.encode(metadata, format: .binary)
        let update = try connection.cachedStatement("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1")
        update.bind(metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "", at: 1)
        update.bind(plist, at: 2)
        try update.run()
    }
}
