import CSQLite
import Foundation
import Quire

/// An SQLite file opened with SQLite's own C API rather than Quire's, to check the bytes a store wrote (or to
/// damage them).
final class RawSQLite {
    private var db: OpaquePointer?

    init(_ url: URL, readOnly: Bool = true) throws {
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        guard sqlite3_open_v2(url.path, &db, flags, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw QuireError(.sqlite, "Cannot open '\(url.path)': \(message)")
        }
    }

    deinit { sqlite3_close(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw QuireError(.sqlite, String(cString: sqlite3_errmsg(db)))
        }
    }

    /// The rows a query returns, each column read the ways SQLite converts it.
    func rows(_ sql: String) throws -> [[Column]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw QuireError(.sqlite, String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[Column]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw QuireError(.sqlite, String(cString: sqlite3_errmsg(db))) }
            rows.append((0..<sqlite3_column_count(statement)).map { index in
                let bytes = sqlite3_column_blob(statement, index)
                let count = Int(sqlite3_column_bytes(statement, index))
                return Column(
                    data: bytes.map { Data(bytes: $0, count: count) } ?? Data(), int64: sqlite3_column_int64(statement, index),
                    double: sqlite3_column_double(statement, index))
            })
        }
    }

    /// One column of a row: its bytes (empty for NULL), and its value as an integer and as a double.
    struct Column {
        var data: Data
        var int64: Int64
        var double: Double
    }
}
