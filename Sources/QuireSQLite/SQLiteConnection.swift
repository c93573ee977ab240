import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

/// A connection to one SQLite database file, with a cache of prepared statements.
///
/// Not thread-safe: its store uses it only under the coordinator's lock.
package final class SQLiteConnection {
    /// The SQLite library version in use, such as `3.40.1`.
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    package let url: URL
    private(set) var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (and, unless read-only, creates) a database.
    ///
    /// A read-only connection to a WAL database that no connection has open (no `-wal` or `-shm` file) opens
    /// it with SQLite's `immutable=1`, so it creates neither file (see ``SQLiteFileCheck/opensImmutable(_:)``).
    package init(url: URL, readOnly: Bool, create: Bool) throws {
        self.url = url
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let immutable = readOnly && SQLiteFileCheck.opensImmutable(url)
        var name = url.path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = url.standardizedFileURL.absoluteString + "?immutable=1"
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(name, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteConnection.error(code: code, message: message, url: url, action: "open")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// Finalizes every statement and closes the database (SQLite checkpoints and removes the WAL file when
    /// this is the last connection).
    package func close() {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs SQL without results (several statements allowed).
    package func execute(_ sql: String) throws {
        guard let handle else { throw closedError() }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteConnection.error(
                code: code, message: text, url: url, action: "execute '\(sql.prefix(80))'",
                systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// How many statements were handed out by ``cachedStatement(_:)``: every store request makes at least
    /// one, so tests count requests with it.
    package private(set) var statementCount = 0

    /// A prepared statement for SQL, reused from the cache when it was prepared before; reset and unbound.
    ///
    /// A cached statement still stepping belongs to a request in progress (application code that a fetch
    /// runs, such as a managed object's initializer, made another request): that request gets a statement
    /// of its own, finalized when it is released, rather than resetting the one in use.
    package func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        statementCount += 1
        if let statement = statements[sql] {
            if sqlite3_stmt_busy(statement.raw) != 0 {
                let owned = try prepare(sql)
                owned.isOutsideCache = true
                return owned
            }
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// A statement ``cachedStatement(_:)`` handed out before for `sql`, reset and unbound again without looking
    /// its SQL up (or a new one when it is still stepping, or was finalized).
    package func reuse(_ statement: SQLiteStatement, sql: String) throws -> SQLiteStatement {
        // A statement of another connection (a query generation's, see SQLiteStore+QueryGenerations.swift) would
        // read that connection's view: this connection prepares its own. `raw` is checked first: a statement
        // whose connection closed was finalized, and its unowned connection must not be read.
        guard statement.raw != nil, statement.connection === self, sqlite3_stmt_busy(statement.raw) == 0 else {
            return try cachedStatement(sql)
        }
        statementCount += 1
        statement.reset()
        return statement
    }

    /// A new prepared statement the caller owns.
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        guard let handle else { throw closedError() }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw SQLiteConnection.error(
                code: code, message: String(cString: sqlite3_errmsg(handle)), url: url, action: "prepare '\(sql.prefix(120))'")
        }
        return SQLiteStatement(raw, connection: self)
    }

    /// A journal mode to switch to before the next transaction: switching writes the file's header and syncs
    /// it, so a store opened and closed without a change never pays for it (see `SQLiteStore.applyPragmas`).
    var deferredJournalMode: String?

    /// Begins a write transaction (`BEGIN IMMEDIATE`), switching the journal mode first when one was deferred.
    func beginImmediate() throws {
        if let mode = deferredJournalMode {
            try execute("PRAGMA journal_mode = \(mode)")
            deferredJournalMode = nil
        }
        try execute("BEGIN IMMEDIATE")
    }

    /// Runs a block in a transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolling back when it throws; switches the
    /// journal mode first when one was deferred.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try beginImmediate()
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// The names of the tables in the database.
    package func tableNames() throws -> Set<String> {
        let statement = try prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        defer { statement.finalize() }
        var names = Set<String>()
        while try statement.step() { names.insert(statement.string(at: 0) ?? "") }
        return names
    }

    /// The column names of a table.
    func columnNames(of table: String) throws -> Set<String> {
        let statement = try prepare("PRAGMA table_info(\(SQLDialect.sqlite.quote(table)))")
        defer { statement.finalize() }
        var names = Set<String>()
        while try statement.step() { names.insert(statement.string(at: 1) ?? "") }
        return names
    }

    func lastError(_ code: Int32, action: String) -> QuireError {
        SQLiteConnection.error(
            code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed", url: url, action: action,
            systemErrno: handle.map { sqlite3_system_errno($0) } ?? 0)
    }

    private func closedError() -> QuireError {
        QuireError(.persistentStoreOperation, "The SQLite store at '\(url.path)' is closed.", context: .init(file: url))
    }

    /// Maps an SQLite result code to Quire's error codes.
    ///
    /// - Parameter systemErrno: The operating system's error behind an I/O error (`sqlite3_system_errno`), so a
    ///   full disk (`ENOSPC`) or a file size limit (`EFBIG`) reads as out of space.
    package static func error(code: Int32, message: String, url: URL, action: String, systemErrno: Int32 = 0) -> QuireError {
        let primary = code & 0xff
        let quireCode: QuireError.Code
        let sentence: String
        switch primary {
        case SQLITE_NOTADB:
            quireCode = .fileReadCorruptFile
            sentence = "The file '\(url.path)' is not an SQLite database"
        case SQLITE_CORRUPT:
            quireCode = .fileReadCorruptFile
            sentence = "The SQLite database '\(url.path)' is corrupt or truncated"
        case SQLITE_CANTOPEN:
            quireCode = .persistentStoreOpen
            sentence = "The SQLite database '\(url.path)' cannot be opened"
        case SQLITE_READONLY, SQLITE_PERM:
            quireCode = .fileWriteNoPermission
            sentence = "The SQLite database '\(url.path)' is read-only"
        case SQLITE_FULL:
            quireCode = .fileWriteOutOfSpace
            sentence = "The disk holding '\(url.path)' is full"
        case SQLITE_BUSY, SQLITE_LOCKED:
            quireCode = .persistentStoreTimeout
            sentence = "The SQLite database '\(url.path)' is locked by another connection"
        case SQLITE_IOERR:
            let outOfSpace = code == (SQLITE_IOERR | (13 << 8)) || systemErrno == ENOSPC || systemErrno == EFBIG
            quireCode = outOfSpace ? .fileWriteOutOfSpace : .sqlite
            sentence = "An I/O error occurred in the SQLite database '\(url.path)'"
        default:
            quireCode = .sqlite
            sentence = "SQLite failed in '\(url.path)'"
        }
        return QuireError(
            quireCode, "\(sentence) (\(action): \(message), code \(code)).",
            context: .init(file: url), underlying: SQLiteResultCode(rawValue: code))
    }
}

/// An SQLite result code, as the underlying cause of a ``QuireError``.
public struct SQLiteResultCode: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code.
    public var rawValue: Int32
    /// The code's description from SQLite.
    public var description: String { "SQLite error \(rawValue): \(String(cString: sqlite3_errstr(rawValue)))" }
}
