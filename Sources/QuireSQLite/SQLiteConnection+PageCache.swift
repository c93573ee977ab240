import CSQLite
import QuireCore
@_spi(QuireEngine) import QuireStores

extension SQLiteConnection {
    /// The integer a pragma answers (`PRAGMA cache_size`, `PRAGMA page_size`…); 0 when it answers no row.
    package func pragmaInteger(_ name: String) throws -> Int64 {
        let statement = try cachedStatement("PRAGMA \(name)")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    /// How many dirty pages SQLite wrote out before their transaction committed because the page cache was
    /// full (`SQLITE_DBSTATUS_CACHE_SPILL`), since the connection was opened; 0 once it is closed.
    package var cacheSpills: Int { cacheCounters.spills }

    /// SQLite's page-cache counters since the connection was opened (`sqlite3_db_status`): pages found in the
    /// cache, pages read from the file or journal, pages written at commits, and pages spilled before their
    /// transaction committed. All 0 once it is closed.
    package var cacheCounters: (hits: Int, misses: Int, writes: Int, spills: Int) {
        guard let handle else { return (0, 0, 0, 0) }
        func counter(_ kind: Int32) -> Int {
            var current: Int32 = 0
            var highest: Int32 = 0
            return sqlite3_db_status(handle, kind, &current, &highest, 0) == SQLITE_OK ? Int(current) : 0
        }
        return (
            counter(SQLITE_DBSTATUS_CACHE_HIT), counter(SQLITE_DBSTATUS_CACHE_MISS),
            counter(SQLITE_DBSTATUS_CACHE_WRITE), counter(SQLITE_DBSTATUS_CACHE_SPILL))
    }
}
