import CSQLite
import Foundation
import QuireCore
import QuireStores
import QuireSQLite
import Quire

// MARK: - Shared data

/// One benchmark record's values, as Quire's `Item` entity and the raw `ZITEM` table both hold them.
///
/// The attribute names match the columns: `i1` is `ZI1`, `s3` is `ZS3`, `flag` is `ZFLAG`, and so on.
struct BenchRow: Sendable, Hashable {
    /// The record's primary key (`Z_PK`): row `i` has key `i + 1`, as Core Data numbers from 1.
    var primaryKey: Int64
    /// The first integer attribute (`ZI1`).
    var i1: Int64
    /// The second integer attribute (`ZI2`).
    var i2: Int64
    /// The first double attribute (`ZD1`).
    var d1: Double
    /// The second double attribute (`ZD2`).
    var d2: Double
    /// The first string attribute (`ZS1`), 20 characters.
    var s1: String
    /// The second string attribute (`ZS2`), 20 characters.
    var s2: String
    /// The third string attribute (`ZS3`), 20 characters: `note-<index>-` and letters.
    var s3: String
    /// The Boolean attribute (`ZFLAG`, stored as 0 or 1).
    var flag: Bool
    /// The date attribute (`ZDATE`, stored as seconds since 2001-01-01).
    var date: Date
    /// The binary attribute (`ZBLOB`), 64 bytes.
    var blob: Data
    /// The indexed attribute (`ZTAG`): `index % 100`, so each value holds 1% of the rows.
    var tag: Int64
}

/// The benchmark's data, generated deterministically so Quire and the baseline store the very same values.
enum BenchData {
    /// How many records the benchmarks insert and fetch.
    static let rowCount = 100_000
    /// How many owners the records are spread over (`ZOWNER`, 100 records each), for key-path fetches.
    static let ownerCount = 1_000

    /// The record with index `index` (0-based); its primary key is `index + 1`.
    ///
    /// The values look random but depend only on `index`: strings of 20 ASCII characters, 64 bytes of data,
    /// dates spread over 2020–2023 with millisecond precision, `flag` true for every third row.
    ///
    /// ```swift
    /// for index in 0..<BenchData.rowCount {
    ///     let row = BenchData.row(index)
    ///     item.i1 = row.i1
    ///     // …
    /// }
    /// ```
    ///
    /// - Parameter index: The record's index, from 0.
    /// - Returns: The record's values.
    static func row(_ index: Int) -> BenchRow {
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9 &+ 0x5151)
        let i1 = Int64(index)
        let i2 = Int64(bitPattern: generator.next() >> 16) - (1 << 46)
        let d1 = Double(index) * 0.5 + 0.25
        let d2 = Double(generator.next() >> 11) / Double(1 << 53) * 1000
        let s1 = word(&generator, prefix: "name-")
        let s2 = word(&generator, prefix: "city-")
        let s3 = word(&generator, prefix: "note-\(index)-")
        let flag = index % 3 == 0
        // 2020-01-01 is 599_616_000 seconds after 2001-01-01; spread over four years, in milliseconds.
        let milliseconds = Double(generator.next() % (4 * 365 * 86_400_000))
        let date = Date(timeIntervalSinceReferenceDate: 599_616_000 + milliseconds / 1000)
        var bytes = [UInt8](repeating: 0, count: 64)
        for chunk in 0..<8 {
            let value = generator.next()
            for byte in 0..<8 {
                bytes[chunk * 8 + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte)))
            }
        }
        return BenchRow(
            primaryKey: Int64(index) + 1,
            i1: i1,
            i2: i2,
            d1: d1,
            d2: d2,
            s1: s1,
            s2: s2,
            s3: s3,
            flag: flag,
            date: date,
            blob: Data(bytes),
            tag: Int64(index % 100)
        )
    }

    /// The primary keys `1...count`, in order or shuffled deterministically (the same order in every run).
    ///
    /// - Parameters:
    ///   - count: How many keys; ``rowCount`` unless given.
    ///   - shuffled: Whether to shuffle them, so lookups jump around the table as fault firing does.
    /// - Returns: The keys.
    static func primaryKeys(count: Int = rowCount, shuffled: Bool) -> [Int64] {
        precondition(count >= 0, "primaryKeys(count:shuffled:) needs a count of 0 or more")
        var keys = (0..<count).map { Int64($0) + 1 }
        if shuffled {
            var generator = SplitMix64(seed: 0xB0A7_5EED)
            keys.shuffle(using: &generator)
        }
        return keys
    }

    /// `prefix`, then lowercase letters up to 20 ASCII characters.
    private static func word(_ generator: inout SplitMix64, prefix: String) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var bytes = Array(prefix.utf8)
        var bits = generator.next()
        while bytes.count < 20 {
            bytes.append(letters[Int(bits % 26)])
            bits /= 26
            if bits < 26 {
                bits = generator.next()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// SplitMix64 (Steele, Lea and Flood), a small fast generator, here for reproducible benchmark data.
struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state.
    private var state: UInt64

    /// Creates a generator whose output depends only on `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Raw SQLite baselines

/// An SQLite failure in a baseline: the result code, SQLite's message and the statement or step that failed.
struct RawSQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's (extended) result code.
    var code: Int32
    /// SQLite's message for the error.
    var message: String
    /// What the baseline was doing.
    var operation: String

    /// The operation, the message and the code, in one line.
    var description: String {
        "SQLite error \(code) during \(operation): \(message)"
    }
}

/// The baselines: the benchmarks' work done with the raw sqlite3 C API, as fast as plain code allows.
///
/// Every connection is opened with `SQLITE_OPEN_NOMUTEX` (one thread uses it) and configured with
/// `PRAGMA journal_mode=WAL` and `PRAGMA synchronous=FULL`, Core Data's defaults; the Quire side uses the same
/// pragmas. Each function opens and closes its own connection, and the time of both is part of the work
/// (closing the last connection checkpoints the WAL into the database file).
///
/// ```swift
/// let url = try RawSQLite.temporaryStoreURL()
/// try RawSQLite.insert((0..<BenchData.rowCount).map(BenchData.row), at: url)
/// let rows = try RawSQLite.fetchAll(at: url)
/// let found = try RawSQLite.fetchByPrimaryKey(at: url, keys: BenchData.primaryKeys(shuffled: true))
/// ```
enum RawSQLite {
    /// The pragmas run on every connection, in order.
    static let pragmas = ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL"]

    /// The tables, shaped as Core Data makes them for an entity `Item` with the benchmark's attributes (`tag`
    /// indexed) and a to-one `owner`, and an entity `Owner` with a `name`; the foreign key is indexed too.
    static let createTable = """
        CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZI1 INTEGER, ZI2 INTEGER, \
        ZD1 FLOAT, ZD2 FLOAT, ZS1 VARCHAR, ZS2 VARCHAR, ZS3 VARCHAR, ZFLAG INTEGER, ZDATE TIMESTAMP, ZBLOB BLOB, \
        ZTAG INTEGER, ZOWNER INTEGER);
        CREATE INDEX ZITEM_ZTAG_INDEX ON ZITEM (ZTAG);
        CREATE INDEX ZITEM_ZOWNER_INDEX ON ZITEM (ZOWNER);
        CREATE TABLE ZOWNER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)
        """

    /// Untimed setup after the inserts, the same on both stores: ``BenchData/ownerCount`` owners named
    /// `owner-<key>` (entity number 2), and record `k` owned by owner `(k - 1) % 1000 + 1`.
    static let linkOwners = """
        BEGIN;
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(BenchData.ownerCount))
        INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT x, 2, 1, 'owner-' || x FROM c;
        UPDATE ZITEM SET ZOWNER = (Z_PK - 1) % \(BenchData.ownerCount) + 1;
        COMMIT;
        """

    /// The columns read back, in `BenchRow` order.
    static let columns = "Z_PK, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG"

    /// Returns a path for a store in a new temporary folder of its own.
    ///
    /// - Parameter name: The store file's name.
    /// - Returns: The store's URL; the file does not exist yet.
    /// - Throws: The file manager's error if the folder cannot be created.
    static func temporaryStoreURL(name: String = "bench.sqlite") throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }

    /// Removes the store file at `url` with its `-wal`, `-shm` and `-journal` companions, if they exist.
    ///
    /// - Parameter url: The store's URL.
    /// - Throws: The file manager's error if an existing file cannot be removed.
    static func removeStore(at url: URL) throws {
        for suffix in [""] + StoreKind.sqlite.sideFileSuffixes {
            let file = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.removeItem(at: file)
            }
        }
    }

    /// Baseline (a): inserts `rows` (generated before the clock starts, as the Quire side's are) in one transaction, with one
    /// prepared statement. Without `owners`, any store at `url` is removed first and the schema is created in
    /// the same transaction (as a Quire store creates its schema and saves); with `owners`, the rows are added
    /// to an existing store and row `k` gets owner `(k - 1) % owners + 1` (`ZOWNER`), as the Quire side's
    /// to-one sets it. `Z_ENT` is 1 and `Z_OPT` 1, as Core Data writes a new object of the model's first
    /// entity.
    ///
    /// - Parameters:
    ///   - rows: The rows.
    ///   - url: The store.
    ///   - owners: How many owners rows are spread over; nil to create a new store.
    ///   - cacheBytes: The page cache for the transaction, in bytes; 0 for SQLite's default (2 MB).
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func insert(_ rows: [BenchRow], at url: URL, owners: Int? = nil, cacheBytes: Int = 0) throws {
        if owners == nil { try removeStore(at: url) }
        let connection = try RawConnection(url: url, create: owners == nil)
        defer { connection.close() }
        try insert(rows, into: connection, owners: owners, cacheBytes: cacheBytes)
    }

    /// ``insert(_:at:owners:cacheBytes:)`` on a connection the caller keeps open from one batch to the next, as
    /// a Quire store keeps its own; with `logBytes`, the transaction lets the write-ahead log grow to that size
    /// before its commit checkpoints (what a large Quire save does, `StoreOptions.largeSaveWALSize`), and both
    /// settings go back to SQLite's afterwards.
    ///
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func insert(
        _ rows: [BenchRow], into connection: RawConnection, owners: Int?, cacheBytes: Int, logBytes: Int = 0
    ) throws {
        // The page cache a Quire save of these rows gets (`StoreOptions.largeSaveCacheSize`), when compared.
        if cacheBytes > 0 { try connection.execute("PRAGMA cache_size = -\(cacheBytes / 1024)") }
        if logBytes > 0 { try connection.execute("PRAGMA wal_autocheckpoint = \(logBytes / 4096)") }
        defer {
            if cacheBytes > 0 { try? connection.execute("PRAGMA cache_size = -2000") }
            if logBytes > 0 { try? connection.execute("PRAGMA wal_autocheckpoint = 1000") }
        }
        try connection.execute("BEGIN IMMEDIATE")
        if owners == nil { try connection.execute(createTable) }
        let statement = try connection.prepare("""
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG, ZOWNER) \
            VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        defer { sqlite3_finalize(statement) }
        for row in rows {
            try bind(row, to: statement, from: 0, owner: owners.map { (row.primaryKey - 1) % Int64($0) + 1 }, connection)
            try connection.check(sqlite3_step(statement), "inserting row \(row.primaryKey)", expecting: SQLITE_DONE)
            try connection.check(sqlite3_reset(statement), "resetting the insert")
        }
        try connection.execute("COMMIT")
    }

    /// Binds one row's 13 parameters of the insert, from parameter `base + 1` on.
    private static func bind(_ row: BenchRow, to statement: OpaquePointer, from base: Int32, owner: Int64?, _ connection: RawConnection) throws {
        try connection.check(sqlite3_bind_int64(statement, base + 1, row.primaryKey), "binding Z_PK")
        try connection.check(sqlite3_bind_int64(statement, base + 2, row.i1), "binding ZI1")
        try connection.check(sqlite3_bind_int64(statement, base + 3, row.i2), "binding ZI2")
        try connection.check(sqlite3_bind_double(statement, base + 4, row.d1), "binding ZD1")
        try connection.check(sqlite3_bind_double(statement, base + 5, row.d2), "binding ZD2")
        try connection.check(sqlite3_bind_text(statement, base + 6, row.s1, -1, benchSQLiteTransient), "binding ZS1")
        try connection.check(sqlite3_bind_text(statement, base + 7, row.s2, -1, benchSQLiteTransient), "binding ZS2")
        try connection.check(sqlite3_bind_text(statement, base + 8, row.s3, -1, benchSQLiteTransient), "binding ZS3")
        try connection.check(sqlite3_bind_int64(statement, base + 9, row.flag ? 1 : 0), "binding ZFLAG")
        try connection.check(sqlite3_bind_double(statement, base + 10, row.date.timeIntervalSinceReferenceDate), "binding ZDATE")
        let blobResult = row.blob.withUnsafeBytes { bytes in
            sqlite3_bind_blob(statement, base + 11, bytes.baseAddress, Int32(bytes.count), benchSQLiteTransient)
        }
        try connection.check(blobResult, "binding ZBLOB")
        try connection.check(sqlite3_bind_int64(statement, base + 12, row.tag), "binding ZTAG")
        if let owner {
            try connection.check(sqlite3_bind_int64(statement, base + 13, owner), "binding ZOWNER")
        } else {
            try connection.check(sqlite3_bind_null(statement, base + 13), "binding ZOWNER")
        }
    }

    /// Baseline (a) written the way Quire's SQLite store writes inserts: `rowsPerStatement` rows a statement
    /// (`INSERT OR FAIL … VALUES (…), (…), …`), the rest one by one, into a new store; for comparison only (the
    /// row's ratio is against ``insert(_:at:owners:cacheBytes:)``, one row a statement, as a plain program does).
    ///
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func insert(_ rows: [BenchRow], at url: URL, rowsPerStatement: Int) throws {
        try removeStore(at: url)
        let connection = try RawConnection(url: url, create: true)
        defer { connection.close() }
        try connection.execute("BEGIN IMMEDIATE")
        try connection.execute(createTable)
        let values = "(?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        func prepare(_ count: Int) throws -> OpaquePointer {
            try connection.prepare("""
                INSERT OR FAIL INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG, ZOWNER) \
                VALUES \(Array(repeating: values, count: count).joined(separator: ", "))
                """)
        }
        let batch = try prepare(rowsPerStatement)
        defer { sqlite3_finalize(batch) }
        let single = try prepare(1)
        defer { sqlite3_finalize(single) }
        var start = 0
        while start < rows.count {
            let count = rows.count - start >= rowsPerStatement ? rowsPerStatement : 1
            let statement = count == 1 ? single : batch
            for offset in 0..<count {
                try bind(rows[start + offset], to: statement, from: Int32(offset * 13), owner: nil, connection)
            }
            try connection.check(sqlite3_step(statement), "inserting rows from \(start)", expecting: SQLITE_DONE)
            try connection.check(sqlite3_reset(statement), "resetting the insert")
            start += count
        }
        try connection.execute("COMMIT")
    }

    /// A new store with the schema and ``BenchData/ownerCount`` owners named `owner-<key>`, in one transaction
    /// (import-1m-related's first step).
    ///
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func insertOwners(at url: URL) throws {
        try removeStore(at: url)
        let connection = try RawConnection(url: url, create: true)
        defer { connection.close() }
        try connection.execute("BEGIN IMMEDIATE;\n\(createTable);\n" + linkOwners.replacingOccurrences(of: "BEGIN;", with: "")
            .replacingOccurrences(of: "UPDATE ZITEM SET ZOWNER = (Z_PK - 1) % \(BenchData.ownerCount) + 1;", with: ""))
    }

    /// Baseline (b): selects every row of `ZITEM` and materializes every column into a ``BenchRow``.
    ///
    /// Strings are decoded from UTF-8 with their byte counts, blobs copied into `Data`, dates built from their
    /// seconds since 2001: the work an object mapper does to turn rows into objects.
    ///
    /// - Parameter url: A store written by ``insert(_:at:owners:)``.
    /// - Returns: The rows, in primary-key order.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func fetchAll(at url: URL) throws -> [BenchRow] {
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        let statement = try connection.prepare("SELECT \(columns) FROM ZITEM ORDER BY Z_PK")
        defer { sqlite3_finalize(statement) }
        var rows = [BenchRow]()
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            try connection.check(result, "fetching all rows", expecting: SQLITE_ROW)
            rows.append(readRow(statement))
        }
        return rows
    }

    /// documents-10k-own-models' baseline: reads every column of every row of every entity table (`Z…`, not
    /// Core Data's `Z_…` bookkeeping) into values, as a tool that knows no model would.
    ///
    /// - Parameter url: A store.
    /// - Returns: How many rows were read.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func readEveryTable(at url: URL) throws -> Int {
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        let tables = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z[A-Z]*'")
        var names: [String] = []
        while sqlite3_step(tables) == SQLITE_ROW {
            if let text = sqlite3_column_text(tables, 0) { names.append(String(cString: text)) }
        }
        sqlite3_finalize(tables)
        var count = 0
        for name in names {
            let statement = try connection.prepare("SELECT * FROM \"\(name)\"")
            defer { sqlite3_finalize(statement) }
            while true {
                let result = sqlite3_step(statement)
                if result == SQLITE_DONE { break }
                try connection.check(result, "reading \(name)", expecting: SQLITE_ROW)
                var values: [Any?] = []
                for column in 0..<sqlite3_column_count(statement) {
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: values.append(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: values.append(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT: values.append(sqlite3_column_text(statement, column).map { String(cString: $0) })
                    case SQLITE_BLOB:
                        let bytes = sqlite3_column_blob(statement, column)
                        values.append(bytes.map { Data(bytes: $0, count: Int(sqlite3_column_bytes(statement, column))) })
                    default: values.append(nil)
                    }
                }
                withExtendedLifetime(values) { count += 1 }
            }
        }
        return count
    }

    /// iterate-1m's baseline: selects every row of `ZITEM`, materializing every column of each row into a
    /// ``BenchRow`` that is dropped before the next (a walk in bounded memory, as a batched fetch is).
    ///
    /// - Parameter url: A store.
    /// - Returns: How many rows were read.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func readAll(at url: URL) throws -> Int {
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        let statement = try connection.prepare("SELECT \(columns) FROM ZITEM ORDER BY Z_PK")
        defer { sqlite3_finalize(statement) }
        var count = 0
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            try connection.check(result, "reading all rows", expecting: SQLITE_ROW)
            withExtendedLifetime(readRow(statement)) { count += 1 }
        }
        return count
    }

    /// Baseline (c): fetches one row per key with `SELECT … WHERE Z_PK = ?`, reusing one prepared statement,
    /// and materializes each row, as firing faults one by one does.
    ///
    /// Each lookup runs in its own implicit transaction (no `BEGIN`), as separate fault firings would.
    ///
    /// - Parameters:
    ///   - url: A store written by ``insert(_:at:owners:)``.
    ///   - keys: The primary keys to look up, such as ``BenchData/primaryKeys(count:shuffled:)``.
    /// - Returns: The rows found, in the order of `keys`; keys without a row are skipped.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    @discardableResult
    static func fetchByPrimaryKey(at url: URL, keys: [Int64]) throws -> [BenchRow] {
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        let statement = try connection.prepare("SELECT \(columns) FROM ZITEM WHERE Z_PK = ?")
        defer { sqlite3_finalize(statement) }
        var rows = [BenchRow]()
        rows.reserveCapacity(keys.count)
        for key in keys {
            try connection.check(sqlite3_bind_int64(statement, 1, key), "binding Z_PK")
            let result = sqlite3_step(statement)
            if result == SQLITE_ROW {
                rows.append(readRow(statement))
            } else {
                try connection.check(result, "fetching row \(key)", expecting: SQLITE_DONE)
            }
            try connection.check(sqlite3_reset(statement), "resetting the lookup")
        }
        return rows
    }

    /// Reads the current row of a statement selecting ``columns``.
    static func readRow(_ statement: OpaquePointer) -> BenchRow {
        BenchRow(
            primaryKey: sqlite3_column_int64(statement, 0),
            i1: sqlite3_column_int64(statement, 1),
            i2: sqlite3_column_int64(statement, 2),
            d1: sqlite3_column_double(statement, 3),
            d2: sqlite3_column_double(statement, 4),
            s1: columnString(statement, 5),
            s2: columnString(statement, 6),
            s3: columnString(statement, 7),
            flag: sqlite3_column_int64(statement, 8) != 0,
            date: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 9)),
            blob: columnData(statement, 10),
            tag: sqlite3_column_int64(statement, 11)
        )
    }

    /// Runs SQL that needs no bound values on a store (the untimed owner setup), on a connection of its own.
    ///
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func execute(_ sql: String, at url: URL) throws {
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        try connection.execute(sql)
    }

    /// An open connection for timing queries without the cost of opening one.
    ///
    /// - Parameter url: A store written by ``insert(_:at:owners:)``.
    /// - Returns: The connection; close it when done.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func open(at url: URL) throws -> RawQueryConnection {
        RawQueryConnection(connection: try RawConnection(url: url, create: false))
    }

    /// Baselines (d)–(f): the rows of a `SELECT` of every record column with one bound parameter, each
    /// materialized into a ``BenchRow``, as the Quire side's fetch materializes its rows.
    ///
    /// - Parameters:
    ///   - connection: An open connection.
    ///   - condition: The SQL after `FROM ZITEM t0`, with `?1` for the parameter, such as `WHERE t0.ZTAG = ?1`.
    ///   - parameter: The parameter's value: an `Int64` or a `String`.
    /// - Returns: The rows.
    /// - Throws: ``RawSQLiteError`` if SQLite fails.
    static func select(_ connection: RawQueryConnection, _ condition: String, _ parameter: Any) throws -> [BenchRow] {
        let list = columns.split(separator: ",").map { "t0." + $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ", ")
        let statement = try connection.connection.prepare("SELECT \(list) FROM ZITEM t0 \(condition)")
        defer { sqlite3_finalize(statement) }
        if let integer = parameter as? Int64 {
            try connection.connection.check(sqlite3_bind_int64(statement, 1, integer), "binding")
        } else if let text = parameter as? String {
            try connection.connection.check(sqlite3_bind_text(statement, 1, text, -1, benchSQLiteTransient), "binding")
        }
        var rows = [BenchRow]()
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            try connection.connection.check(result, "selecting", expecting: SQLITE_ROW)
            rows.append(readRow(statement))
        }
        return rows
    }

    /// A text column, decoded as UTF-8 (invalid bytes repaired); empty for NULL.
    private static func columnString(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A blob column's bytes, copied; empty for NULL or an empty blob.
    private static func columnData(_ statement: OpaquePointer, _ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the bind call returns.
let benchSQLiteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An open raw connection handed to the query baselines.
final class RawQueryConnection {
    let connection: RawConnection

    fileprivate init(connection: RawConnection) {
        self.connection = connection
    }

    /// Closes the connection.
    func close() {
        connection.close()
    }
}

/// One sqlite3 connection, used by one thread for one baseline.
final class RawConnection {
    /// The connection handle, `nil` once closed.
    private var handle: OpaquePointer?

    /// Opens the store at `url` and runs ``RawSQLite/pragmas``.
    init(url: URL, create: Bool) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let result = sqlite3_open_v2(url.path, &handle, flags, nil)
        self.handle = handle
        guard result == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            self.handle = nil
            throw RawSQLiteError(code: result, message: message, operation: "opening \(url.path)")
        }
        sqlite3_extended_result_codes(handle, 1)
        for pragma in RawSQLite.pragmas {
            try execute(pragma)
        }
        // journal_mode answers with the mode in force; make sure WAL took.
        let statement = try prepare("PRAGMA journal_mode")
        defer { sqlite3_finalize(statement) }
        try check(sqlite3_step(statement), "reading journal_mode", expecting: SQLITE_ROW)
        let mode = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
        guard mode == "wal" else {
            throw RawSQLiteError(code: SQLITE_ERROR, message: "journal_mode is \(mode), not wal", operation: "PRAGMA")
        }
    }

    deinit {
        close()
    }

    /// Closes the connection (checkpointing the WAL if it is the last one); later calls do nothing.
    func close() {
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// Runs SQL that needs no bound values, such as a pragma or `BEGIN`.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// Prepares one statement; the caller finalizes it.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        guard let statement else {
            throw RawSQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL", operation: sql)
        }
        return statement
    }

    /// Throws unless `result` is `expected` (`SQLITE_OK` by default).
    func check(_ result: Int32, _ operation: @autoclosure () -> String, expecting expected: Int32 = SQLITE_OK) throws {
        guard result != expected else { return }
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the connection is closed"
        throw RawSQLiteError(code: result, message: message, operation: operation())
    }
}

extension RawQueryConnection {
    /// Runs SQL statements on the open connection (the one-change baseline's transaction).
    func execute(_ sql: String) throws { try connection.execute(sql) }
}
