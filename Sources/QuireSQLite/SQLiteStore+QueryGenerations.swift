import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// Query generations: each is a connection of its own on the store's file, holding a read transaction open.
/// In WAL mode a read transaction sees the database as it was when it began, and writers on other
/// connections pass it; ``db()`` hands that connection to the reads a pinned context makes.
extension SQLiteStore: QueryGenerationBackend {
    package func openQueryGeneration(_ number: UInt64) throws {
        // A read-only store never changes while it is open: its own connection is every generation's view.
        guard !options.isReadOnly, generationConnections[number] == nil else { return }
        let main = try db()
        if let mode = main.deferredJournalMode {
            // The journal mode cannot change while another connection is open: switch it now.
            try main.execute("PRAGMA journal_mode = \(mode)")
            main.deferredJournalMode = nil
        }
        let mode = try journalMode(main)
        guard mode == "wal" else {
            throw QuireError(
                .persistentStoreOperation,
                "The SQLite store at '\(storeURL.path)' cannot hold a query generation: its journal mode is '\(mode)', and generations need WAL (a reader would block every save).",
                context: .init(file: storeURL))
        }
        let pinned = try SQLiteConnection(url: storeURL, readOnly: true, create: false)
        do {
            try SQLiteFunctions.register(on: pinned)
            try pinned.execute("BEGIN")
            // The read transaction starts at its first read; from then on it sees this moment's data.
            let first = try pinned.prepare("SELECT count(*) FROM sqlite_master")
            defer { first.finalize() }
            _ = try first.step()
        } catch {
            pinned.close()
            throw error
        }
        generationConnections[number] = pinned
    }

    package func closeQueryGeneration(_ number: UInt64) {
        guard let pinned = generationConnections.removeValue(forKey: number) else { return }
        try? pinned.execute("COMMIT")
        pinned.close()
    }

    /// Ends every generation (the store is closing).
    func closeQueryGenerations() {
        for number in Array(generationConnections.keys) { closeQueryGeneration(number) }
    }

    private func journalMode(_ connection: SQLiteConnection) throws -> String {
        let statement = try connection.prepare("PRAGMA journal_mode")
        defer { statement.finalize() }
        return try statement.step() ? (statement.string(at: 0) ?? "").lowercased() : ""
    }
}
