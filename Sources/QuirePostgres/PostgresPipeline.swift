import CLibPQ
import QuireCore
import QuireStores
import Foundation

/// Statements sent to the server without waiting for each one's answer (libpq's pipeline mode, libpq 14 and
/// later): the server runs them back to back while the client builds the next ones, instead of one network
/// round trip per statement. A save sends its INSERTs and UPDATEs this way.
///
/// Answers are read a window behind what was sent (``window`` statements, flushed with a flush request), so the
/// server's answers never pile up unread. The first statement that fails stops the rest (the server skips
/// them, and nothing more is sent); ``PostgresConnection/pipelined(describe:_:)`` then throws its error, named
/// by the caller's description of that statement, and the caller's transaction rolls back as for any failed
/// statement. Made only by ``PostgresConnection/pipelined(describe:_:)``; not thread-safe, like its connection.
package final class PostgresPipeline {
    /// How many statements may be sent and unanswered before the oldest answers are read.
    static let window = 256

    /// One message sent whose answer is still to be read.
    private struct Pending {
        /// The SQL a prepare message prepared (forgotten by the connection if it failed); nil for a statement.
        var prepared: String?
        /// The caller's number for the statement (``PostgresConnection/pipelined(describe:_:)``'s `describe`).
        var label: Int
        /// Whether the statement must change exactly one row (an optimistic-locked UPDATE).
        var expectsOneRow: Bool
    }

    private let connection: PostgresConnection
    private let handle: OpaquePointer
    private let describe: (Int) -> String
    private var pending: [Pending] = []
    private var head = 0
    private var sentSinceFlush = 0
    /// The statement the previous `send` used: its SQL and its prepared statement.
    private var lastPrepared: (sql: String, statement: PostgresConnection.Prepared)?
    /// The first error an answer reported.
    private(set) var error: QuireError?
    /// The labels of statements that expected one row and changed none.
    private(set) var unchanged: [Int] = []

    fileprivate init(_ connection: PostgresConnection, _ handle: OpaquePointer, describe: @escaping (Int) -> String) {
        self.connection = connection
        self.handle = handle
        self.describe = describe
    }

    /// Sends one statement with parameters (prepared on the connection on first use, as
    /// ``PostgresConnection/query(_:_:binaryResult:)`` does); its answer is checked later. Nothing is sent
    /// once a statement has failed.
    ///
    /// - Parameters:
    ///   - label: The caller's number for the statement, given to `describe` if it fails or changes no row.
    ///   - expectsOneRow: Whether a statement that changes no row is reported in ``unchanged``.
    /// - Throws: ``QuireError/Code/postgresConnectionLost`` when the connection cannot take the statement.
    package func send(_ sql: String, _ values: [PostgresConnection.Value], label: Int, expectsOneRow: Bool = false) throws {
        guard error == nil else { return }
        let statement: PostgresConnection.Prepared
        if let last = lastPrepared, last.sql == sql {
            // The same statement as the previous one (a save's run of INSERTs of one entity): the same string
            // compares without hashing its text. A prepare that fails stops the pipeline (`error`), as before.
            statement = last.statement
        } else if let existing = connection.prepared[sql] {
            statement = existing
            lastPrepared = (sql, existing)
        } else {
            statement = PostgresConnection.Prepared(name: connection.nextStatementName(), types: PostgresConnection.declaredTypes(values))
            let prepared = statement.types.withUnsafeBufferPointer { types in
                PQsendPrepare(handle, statement.name, sql, Int32(types.count), types.baseAddress)
            }
            guard prepared == 1 else { throw sendFailure(sql) }
            connection.prepared[sql] = statement
            pending.append(Pending(prepared: sql, label: label, expectsOneRow: false))
            lastPrepared = (sql, statement)
        }
        let sent: Int32
        do {
            sent = try connection.withParameters(values, types: statement.types) { count, pointers, lengths, formats in
                PQsendQueryPrepared(handle, statement.name, count, pointers, lengths, formats, 0)
            }
        } catch let error as QuireError {
            throw QuireError(error.code, error.message + " Refused while \(describe(label)).", underlying: error.underlying)
        }
        guard sent == 1 else { throw sendFailure(sql) }
        pending.append(Pending(prepared: nil, label: label, expectsOneRow: expectsOneRow))
        connection.statementCount += 1
        sentSinceFlush += 1
        if sentSinceFlush >= Self.window {
            sentSinceFlush = 0
            guard PQsendFlushRequest(handle) == 1, PQflush(handle) == 0 else { throw sendFailure(sql) }
            // Everything sent is flushed: read what is more than a window old, so the server keeps working on
            // the newest window while this side builds the next.
            while pending.count - head > Self.window { try readAnswer() }
            if head > 4096 {
                pending.removeFirst(head)
                head = 0
            }
        }
    }

    /// Ends the pipeline: a sync point, every answer read, pipeline mode left.
    ///
    /// - Throws: ``QuireError/Code/postgresConnectionLost`` when the connection dropped.
    fileprivate func finish() throws {
        guard PQpipelineSync(handle) == 1 else { throw sendFailure("the end of a pipeline") }
        while head < pending.count { try readAnswer() }
        pending = []
        head = 0
        guard let sync = PQgetResult(handle) else { throw lost("the end of a pipeline") }
        let status = PQresultStatus(sync)
        PQclear(sync)
        guard status == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else { throw lost("the end of a pipeline") }
    }

    /// Reads the answer of the oldest message sent.
    private func readAnswer() throws {
        let entry = pending[head]
        head += 1
        guard let result = PQgetResult(handle) else { throw lost(describe(entry.label)) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            if entry.expectsOneRow, Int(PQcmdTuples(result).map { String(cString: $0) } ?? "") != 1 {
                unchanged.append(entry.label)
            }
        case PGRES_PIPELINE_ABORTED:
            // Skipped because an earlier statement failed: that one's error is the save's.
            if let sql = entry.prepared { connection.prepared[sql] = nil }
        default:
            if let sql = entry.prepared { connection.prepared[sql] = nil }
            if error == nil {
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
                let message = String(cString: PQresultErrorMessage(result))
                error = connection.failure(sqlState: state, message: message, action: describe(entry.label))
            }
        }
        PQclear(result)
        // Each statement's answer ends with a null result.
        while let extra = PQgetResult(handle) { PQclear(extra) }
        if !connection.isUsable { throw lost(describe(entry.label)) }
    }

    /// The error of a message libpq could not send (the connection is gone, or out of memory).
    private func sendFailure(_ action: String) -> QuireError {
        let message = String(cString: PQerrorMessage(handle))
        return connection.failure(sqlState: "", message: message.isEmpty ? "libpq could not send" : message, action: action)
    }

    /// The error of a connection that stopped answering in the middle of a pipeline.
    private func lost(_ action: String) -> QuireError {
        let message = String(cString: PQerrorMessage(handle))
        connection.close()
        return connection.failure(sqlState: "08006", message: message.isEmpty ? "no answer" : message, action: action)
    }
}

extension PostgresConnection {
    /// Runs `body`, whose statements (``PostgresPipeline/send(_:_:label:expectsOneRow:)``) go to the server
    /// without waiting for one another, then reads every answer; returns the labels of the statements that
    /// expected to change one row and changed none. Meant inside ``transaction(_:)``: a failure rolls the
    /// whole transaction back.
    ///
    /// - Parameter describe: Names the statement of a label in errors ("inserting Item 12").
    /// - Throws: the first failed statement's error (``QuireError/Code/postgres``, its action named by
    ///   `describe`), after every answer was read; ``QuireError/Code/postgresConnectionLost`` when the
    ///   connection dropped (it is closed; the server rolls the transaction back); what `body` throws.
    package func pipelined(describe: @escaping (Int) -> String, _ body: (PostgresPipeline) throws -> Void) throws -> [Int] {
        guard let handle = rawHandle else { throw closedError() }
        guard PQenterPipelineMode(handle) == 1 else {
            throw failure(sqlState: "", message: String(cString: PQerrorMessage(handle)), action: "entering pipeline mode")
        }
        let pipeline = PostgresPipeline(self, handle, describe: describe)
        do {
            try body(pipeline)
            try pipeline.finish()
        } catch {
            // Leave pipeline mode with every answer read, or drop the connection (the server rolls back).
            if isUsable, (try? pipeline.finish()) == nil { close() }
            throw error
        }
        if let error = pipeline.error { throw error }
        return pipeline.unchanged
    }
}
