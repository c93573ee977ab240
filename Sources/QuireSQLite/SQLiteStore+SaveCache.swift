import QuireCore
@_spi(QuireEngine) import QuireStores

extension SQLiteStore {
    /// Runs a save's transaction with the page cache of ``StoreOptions/largeSaveCacheSize`` and the checkpoint
    /// interval of ``StoreOptions/largeSaveWALSize`` when the save writes ``StoreOptions/largeSaveRowCount`` rows
    /// or more, and gives both their previous values back afterwards (SQLite then frees the pages beyond the
    /// cache), whether the save succeeded or not.
    ///
    /// Inserts into a big table's indexes land on pages all over them; with SQLite's default cache of 2 MB the
    /// pages a transaction dirtied are spilled and written again before it commits, so each batch of an
    /// import into a growing table costs more than the one before. A cache of your own (`cache_size` in
    /// ``StoreOptions/sqlitePragmas``) at least as large is kept as it is. The commit's automatic checkpoint
    /// then copies every page the save dirtied into the database; with a larger interval the log takes several
    /// saves before one checkpoint copies each page once (SQLite checkpoints at the commit, while the larger
    /// interval is still set).
    func withSaveCache<T>(for request: SaveRequest, _ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        let rows = request.inserted.count + request.updated.count + request.deleted.count
        let cacheBytes = options.largeSaveCacheSize
        let logBytes = options.largeSaveWALSize
        guard rows >= StoreOptions.largeSaveRowCount, cacheBytes > 0 || logBytes > 0 else { return try body() }
        var restore: [String] = []
        defer { for statement in restore.reversed() { try? connection.execute(statement) } }
        let pageSize = try connection.pragmaInteger("page_size")
        if cacheBytes > 0 {
            let current = try connection.pragmaInteger("cache_size")
            // A positive cache_size counts pages, a negative one KiB.
            let currentBytes = current < 0 ? -current * 1024 : current * pageSize
            if Int64(cacheBytes) > currentBytes {
                try connection.execute("PRAGMA cache_size = -\(max(1, cacheBytes / 1024))")
                restore.append("PRAGMA cache_size = \(current)")
            }
        }
        if logBytes > 0, pageSize > 0 {
            // 0 (or less) turns automatic checkpoints off: the application's choice, kept like a larger interval.
            let current = try connection.pragmaInteger("wal_autocheckpoint")
            let pages = Int64(logBytes) / pageSize
            if current > 0, pages > current {
                try connection.execute("PRAGMA wal_autocheckpoint = \(pages)")
                restore.append("PRAGMA wal_autocheckpoint = \(current)")
            }
        }
        return try body()
    }
}
