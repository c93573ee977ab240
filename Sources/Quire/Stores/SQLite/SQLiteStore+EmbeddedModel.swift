import Foundation

extension SQLiteStore {
    /// Reads the model an SQLite store embeds (table `Z_QUIREMODEL`) without building a stack.
    ///
    /// - Throws: the file checks' errors for a missing, non-SQLite or truncated file;
    ///   ``QuireError/Code/persistentStoreIncompatibleSchema`` when the store embeds no model (a store written
    ///   by Core Data); ``QuireError/Code/invalidModel`` when the embedded model is malformed.
    static func embeddedModel(at url: URL) throws -> ManagedObjectModel {
        guard try SQLiteFileCheck.check(url, readOnly: true) == .database else {
            throw QuireError(.fileReadCorruptFile, "The file '\(url.path)' is empty, not an SQLite store.", context: .init(file: url))
        }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        guard try connection.tableNames().contains("Z_QUIREMODEL") else {
            throw QuireError(
                .persistentStoreIncompatibleSchema,
                "The store '\(url.path)' embeds no model (it was not written by Quire); open it with the application's model.",
                context: .init(file: url))
        }
        let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_QUIREMODEL WHERE Z_VERSION = 1")
        defer { statement.finalize() }
        guard try statement.step(), !statement.isNull(at: 0) else {
            throw QuireError(.persistentStoreIncompatibleSchema, "The store '\(url.path)' has an empty model table.", context: .init(file: url))
        }
        do {
            return try ManagedObjectModel(serializedRepresentation: statement.data(at: 0))
        } catch var error as QuireError {
            error.context.file = url
            error.message = "The model embedded in '\(url.path)' is unreadable: " + error.message
            throw error
        }
    }
}
