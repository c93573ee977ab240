import QuireCore
import QuireStores
import CLibPQ
import Foundation

/// One connection to a PostgreSQL server through libpq, with its statements prepared once.
///
/// Values go as parameters, never into the SQL, in binary form where the statement's parameter types were
/// declared (``declaredTypes(_:)``): integers, reals, strings and bytes; decimals in text form. Results come back
/// in text or binary form as asked (``PostgresResult``). Not thread-safe: its store uses it only under the coordinator's
/// lock.
package final class PostgresConnection {
    /// A parameter value.
    package enum Value {
        case null
        case integer(Int64)
        case double(Double)
        case text(String)
        case bytes(Data)
        /// A decimal number in its text form, for a `NUMERIC` column (its type left to the server to infer).
        case numeric(String)

        /// PostgreSQL's text form of a double: the shortest text that reads back as the same double.
        static func text(of double: Double) -> String {
            if double.isNaN { return "NaN" }
            if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
            return "\(double)"
        }
    }

    /// The store URL this connection was made from (password removed), named by errors.
    package let url: PostgresURL
    private var handle: OpaquePointer?
    /// A statement prepared on this connection: its name and the parameter types it was prepared with.
    package struct Prepared {
        /// The statement's name.
        package let name: String
        /// The parameter types (``declaredTypes(_:)``); 0 where the server inferred the type.
        package let types: [UInt32]
    }

    /// SQL → prepared statement (``PostgresPipeline`` prepares into it too).
    var prepared: [String: Prepared] = [:]
    /// The memory parameters are written into, reused from statement to statement.
    let parameterBuffer = PostgresParameterBuffer()
    /// The number in the next prepared statement's name (never reused, even when a failed prepare is forgotten).
    private var statementNumber = 0
    /// How many statements were run: tests count requests with it.
    package internal(set) var statementCount = 0
    /// Whether a transaction is open.
    package private(set) var inTransaction = false

    /// Connects, and sets the search path to the store's schema (which need not exist yet).
    ///
    /// - Throws: ``QuireError/Code/postgresServerUnavailable``, ``QuireError/Code/postgresAuthenticationFailed``
    ///   or ``QuireError/Code/postgresDatabaseMissing``, each naming the URL without its password.
    package init(url: PostgresURL) throws {
        self.url = url
        let connection = PQconnectdb(url.connectionString)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw PostgresConnection.connectError(message, url: url)
        }
        handle = connection
        // Notices (such as "schema already exists, skipping") are not errors; keep them off stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        try execute("SET search_path TO \(SQLDialect.quoteRaw(url.schema)); SET client_min_messages TO warning")
    }

    deinit { close() }

    /// Closes the connection (the server rolls back an open transaction).
    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = [:]
        inTransaction = false
    }

    /// Whether the connection is still up (false once the server went away or closed it).
    package var isUsable: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server process serving this connection (`pg_backend_pid()`), for tests that end it.
    package var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The libpq connection, for `LISTEN`/`NOTIFY` and the benchmarks' raw comparisons.
    package var rawHandle: OpaquePointer? { handle }

    /// Runs SQL without parameters (several statements allowed); returns the last result.
    @discardableResult
    package func execute(_ sql: String) throws -> PostgresResult {
        guard let handle else { throw closedError() }
        statementCount += 1
        return try check(PQexec(handle, sql), action: sql)
    }

    /// Runs one statement with parameters, prepared on first use and reused after; with `binaryResult` the
    /// columns come back in PostgreSQL's binary form (``PostgresResult/binaryBytes(_:_:)``).
    @discardableResult
    package func query(_ sql: String, _ values: [Value] = [], binaryResult: Bool = false) throws -> PostgresResult {
        try runPrepared(try prepare(sql, values), sql: sql, values, binaryResult: binaryResult)
    }

    /// The statement prepared on this connection for `sql`, preparing it on first use with the parameter types
    /// of `values` (``declaredTypes(_:)``).
    package func prepare(_ sql: String, _ values: [Value]) throws -> Prepared {
        guard let handle else { throw closedError() }
        if let existing = prepared[sql] { return existing }
        let statement = Prepared(name: nextStatementName(), types: Self.declaredTypes(values))
        _ = try statement.types.withUnsafeBufferPointer { types in
            try check(PQprepare(handle, statement.name, sql, Int32(types.count), types.baseAddress), action: sql)
        }
        prepared[sql] = statement
        return statement
    }

    /// Runs a statement prepared on this connection (``prepare(_:_:)``); `sql` names it in errors.
    @discardableResult
    package func runPrepared(_ statement: Prepared, sql: String, _ values: [Value], binaryResult: Bool = false) throws -> PostgresResult {
        guard let handle else { throw closedError() }
        statementCount += 1
        return try withParameters(values, types: statement.types) { count, pointers, lengths, formats in
            try check(PQexecPrepared(handle, statement.name, count, pointers, lengths, formats, binaryResult ? 1 : 0), action: sql)
        }
    }

    /// A name no statement of this connection has had.
    func nextStatementName() -> String {
        statementNumber += 1
        return "q\(statementNumber)"
    }

    /// Runs one statement with parameters, unprepared (for statements run once).
    @discardableResult
    package func queryOnce(_ sql: String, _ values: [Value] = []) throws -> PostgresResult {
        guard let handle else { throw closedError() }
        statementCount += 1
        let types = Self.declaredTypes(values)
        return try types.withUnsafeBufferPointer { declared in
            try withParameters(values, types: types) { count, pointers, lengths, formats in
                try check(PQexecParams(handle, sql, count, declared.baseAddress, pointers, lengths, formats, 0), action: sql)
            }
        }
    }

    /// Runs a block in one transaction (`READ COMMITTED`: every optimistic-lock check re-reads the row as
    /// committed by others), rolling back when it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        inTransaction = true
        do {
            let result = try body()
            try execute("COMMIT")
            inTransaction = false
            return result
        } catch {
            inTransaction = false
            if isUsable { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    @discardableResult
    private func check(_ result: OpaquePointer?, action: String) throws -> PostgresResult {
        guard let result else {
            throw failure(sqlState: "", message: handle.map { String(cString: PQerrorMessage($0)) } ?? "no connection", action: action)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            throw failure(sqlState: state, message: message, action: action)
        }
    }

    func failure(sqlState: String, message: String, action: String) -> QuireError {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let cause = PostgresServerError(sqlState: sqlState, message: text)
        // 57P01 admin_shutdown (pg_terminate_backend), 57P02/57P03, 08xxx connection exceptions, or a connection
        // libpq found dead.
        if sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || !isUsable {
            close()
            return QuireError(
                .postgresConnectionLost,
                "The connection to the PostgreSQL store '\(url.redacted)' was lost (\(text)); the request was not "
                    + "carried out, and the next one reconnects.",
                underlying: cause)
        }
        return QuireError(
            .postgres, "PostgreSQL failed in the store '\(url.redacted)' (\(action.prefix(120)): \(text)).", underlying: cause)
    }

    func closedError() -> QuireError {
        QuireError(.postgresConnectionLost, "The connection to the PostgreSQL store '\(url.redacted)' is closed.")
    }

    /// The error for a connection that could not be made, told apart by libpq's message.
    static func connectError(_ message: String, url: PostgresURL) -> QuireError {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let cause = PostgresServerError(sqlState: "", message: text)
        if text.contains("password authentication failed") || text.contains("no password supplied")
            || text.contains("pg_hba.conf") || text.contains("authentication failed") || text.contains("role \"")
        {
            return QuireError(
                .postgresAuthenticationFailed,
                "The PostgreSQL server refused the credentials for '\(url.redacted)' (\(text)).", underlying: cause)
        }
        if text.contains("database \""), text.contains("does not exist") {
            return QuireError(
                .postgresDatabaseMissing, "The database of '\(url.redacted)' does not exist (\(text)).", underlying: cause)
        }
        return QuireError(
            .postgresServerUnavailable,
            "The PostgreSQL server of '\(url.redacted)' cannot be reached (\(text)).", underlying: cause)
    }
}

/// The rows of one statement's answer, in text or binary form (each accessor reads either), freed with the object.
package final class PostgresResult {
    /// The libpq result, which `PostgresRowCursor` reads column by column.
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { PQclear(raw) }

    /// The number of rows.
    package var count: Int { Int(PQntuples(raw)) }
    /// The rows an INSERT, UPDATE or DELETE changed.
    package var changes: Int {
        guard let text = PQcmdTuples(raw) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(raw, Int32(row), Int32(column)) != 0 }

    /// Whether a column came in binary form (``PostgresConnection/query(_:_:binaryResult:)``).
    @inline(__always)
    private func isBinary(_ column: Int) -> Bool { PQfformat(raw, Int32(column)) == 1 }

    /// An integer column: `bigint`, `integer`, `smallint` or `boolean` in binary form (big-endian), any in text
    /// form; 0 for a binary value of another length (callers check lengths first where it matters:
    /// `PostgresRowCursor.storageClass(of:)`).
    package func int64(_ row: Int, _ column: Int) -> Int64 {
        guard let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return 0 }
        guard isBinary(column) else { return strtoll(value, nil, 10) }
        let raw = UnsafeRawPointer(value)
        switch PQgetlength(self.raw, Int32(row), Int32(column)) {
        case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
        case 1: return Int64(raw.load(as: UInt8.self))
        default: return 0
        }
    }

    /// A `double precision` (or `real`) column, in either form.
    package func double(_ row: Int, _ column: Int) -> Double {
        guard let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return 0 }
        guard isBinary(column) else { return strtod(value, nil) }
        let raw = UnsafeRawPointer(value)
        switch PQgetlength(self.raw, Int32(row), Int32(column)) {
        case 8: return Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)))
        case 4: return Double(Float(bitPattern: UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self))))
        default: return 0
        }
    }

    package func string(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column), let text = PQgetvalue(raw, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(raw, Int32(row), Int32(column)))
        return text.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// A column of a result asked for in binary form: its bytes as they came (a `bytea`'s bytes themselves).
    package func binaryBytes(_ row: Int, _ column: Int) -> Data? {
        guard !isNull(row, column), let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return nil }
        return Data(bytes: value, count: Int(PQgetlength(raw, Int32(row), Int32(column))))
    }

    /// A `bytea` column: its bytes in binary form, or decoded from its hex text form (`\x0a1b…`).
    package func bytes(_ row: Int, _ column: Int) -> Data? {
        if isBinary(column) { return binaryBytes(row, column) }
        guard !isNull(row, column), let text = PQgetvalue(raw, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(raw, Int32(row), Int32(column)))
        return text.withMemoryRebound(to: UInt8.self, capacity: length) { p -> Data? in
            guard length >= 2, p[0] == UInt8(ascii: "\\"), p[1] == UInt8(ascii: "x") else { return nil }
            let count = (length - 2) / 2
            var data = Data(count: count)
            data.withUnsafeMutableBytes { out in
                guard let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for i in 0..<count { base[i] = PostgresResult.nibble(p[2 + 2 * i]) << 4 | PostgresResult.nibble(p[3 + 2 * i]) }
            }
            return data
        }
    }

    @inline(__always)
    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return 0
        }
    }
}
