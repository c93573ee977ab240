import QuireCore

extension SQLiteStore {
    /// Runs a save's transaction with the page cache of ``StoreOptions/largeSaveCacheSize`` when the save
    /// writes ``StoreOptions/largeSaveRowCount`` rows or more, and gives the cache its previous size back
    /// afterwards (SQLite then frees the pages beyond it), whether the save succeeded or not.
    ///
    /// Inserts into a big table's indexes land on pages all over them; with SQLite's default cache of 2 MB the
    /// pages a transaction dirtied are spilled and written again before it commits, so each batch of an
    /// import into a growing table costs more than the one before. A cache of your own (`cache_size` in
    /// ``StoreOptions/sqlitePragmas``) at least as large is kept as it is.
    func withSaveCache<T>(for request: SaveRequest, _ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        let rows = request.inserted.count + request.updated.count + request.deleted.count
        let wanted = options.largeSaveCacheSize
        guard wanted > 0, rows >= StoreOptions.largeSaveRowCount else { return try body() }
        let current = try connection.pragmaInteger("cache_size")
        // A positive cache_size counts pages, a negative one KiB.
        let currentBytes = current < 0 ? -current * 1024 : current * (try connection.pragmaInteger("page_size"))
        guard Int64(wanted) > currentBytes else { return try body() }
        try connection.execute("PRAGMA cache_size = -\(max(1, wanted / 1024))")
        defer { try? connection.execute("PRAGMA cache_size = \(current)") }
        return try body()
    }
}
