import CSQLite
import QuireCore

extension SQLiteConnection {
    /// The integer a pragma answers (`PRAGMA cache_size`, `PRAGMA page_size`…); 0 when it answers no row.
    package func pragmaInteger(_ name: String) throws -> Int64 {
        let statement = try cachedStatement("PRAGMA \(name)")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    /// How many dirty pages SQLite wrote out before their transaction committed because the page cache was
    /// full (`SQLITE_DBSTATUS_CACHE_SPILL`), since the connection was opened; 0 once it is closed.
    package var cacheSpills: Int {
        guard let handle else { return 0 }
        var current: Int32 = 0
        var highest: Int32 = 0
        guard sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_SPILL, &current, &highest, 0) == SQLITE_OK else { return 0 }
        return Int(current)
    }
}
