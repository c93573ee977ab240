import CLibPQ
import QuireCore
import QuireStores
import Foundation

/// Rows sent with `COPY … FROM STDIN (FORMAT binary)`: PostgreSQL's binary copy format (a signature and two
/// zero words, then per row its field count and each field as a length and its bytes, -1 for NULL, and a
/// trailer of -1), written into a buffer handed to libpq every ``flushBytes`` bytes, so memory stays bounded
/// however many rows go. Every field is written in its column's binary form (``PostgresConnection/TypeOID``):
/// `bigint` and `double precision` as 8 big-endian bytes, `text` as UTF-8 bytes, `bytea` as its bytes.
///
/// Made by ``PostgresConnection/copyIn(_:describeRow:_:)``; not thread-safe, like its connection.
package final class PostgresCopyIn {
    static let flushBytes = 256 * 1024
    private let connection: PostgresConnection
    private let handle: OpaquePointer
    private var buffer: [UInt8] = []
    /// The rows written so far.
    private(set) var rows = 0

    fileprivate init(_ connection: PostgresConnection, _ handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
        buffer.reserveCapacity(Self.flushBytes + 4096)
        buffer.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])  // PGCOPY\n\377\r\n\0
        append32(0)
        append32(0)
    }

    @inline(__always)
    private func append16(_ value: Int16) { withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) } }
    @inline(__always)
    private func append32(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) } }
    @inline(__always)
    private func append64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) } }

    /// Writes one row: `values` in the columns' types `types` (as many of each as the COPY's columns).
    ///
    /// - Throws: ``QuireError/Code/postgres`` for a value its column's type cannot take (text holding a NUL, a
    ///   real where an integer belongs that is not a whole number, …), naming `describe()`; the connection's
    ///   errors when libpq cannot send.
    func appendRow(_ values: [PostgresConnection.Value], types: [UInt32], describe: () -> String) throws {
        // A table has at most 1,600 columns; a row of more is refused by the server, never cut short here.
        guard let fields = Int16(exactly: values.count) else { throw refused(0, "more fields than a row can have", describe) }
        append16(fields)
        for index in values.indices {
            let type = index < types.count ? types[index] : PostgresConnection.TypeOID.unknown
            switch (values[index], type) {
            case (.null, _):
                append32(-1)
            case (.integer(let v), PostgresConnection.TypeOID.int8):
                append32(8)
                append64(UInt64(bitPattern: v))
            case (.integer(let v), PostgresConnection.TypeOID.float8):
                append32(8)
                append64(Double(v).bitPattern)
            case (.double(let v), PostgresConnection.TypeOID.float8):
                append32(8)
                append64(v.bitPattern)
            case (.double(let v), PostgresConnection.TypeOID.int8):
                guard let whole = Int64(exactly: v) else { throw refused(index, "the real \(v) where an integer belongs", describe) }
                append32(8)
                append64(UInt64(bitPattern: whole))
            case (.text(var v), PostgresConnection.TypeOID.text):
                try v.withUTF8 { utf8 in
                    guard !utf8.contains(0) else {
                        throw refused(index, "text holding a NUL character (U+0000), which PostgreSQL's text cannot store", describe)
                    }
                    guard let length = Int32(exactly: utf8.count) else { throw refused(index, "text longer than one value can take", describe) }
                    append32(length)
                    buffer.append(contentsOf: utf8)
                }
            case (.bytes(let v), PostgresConnection.TypeOID.bytea):
                guard v.count <= Int(Int32.max) else { throw refused(index, "\(v.count) bytes, more than one value can take", describe) }
                append32(Int32(v.count))
                buffer.append(contentsOf: v)
            default:
                throw refused(index, "a value its column's type (\(type)) does not take", describe)
            }
        }
        rows += 1
        if buffer.count >= Self.flushBytes { try flush() }
    }

    private func refused(_ index: Int, _ what: String, _ describe: () -> String) -> QuireError {
        QuireError(
            .postgres,
            "Column \(index + 1) of the row holds \(what) (the store '\(connection.url.redacted)'). Refused while \(describe()).")
    }

    /// Hands the buffer to libpq.
    private func flush() throws {
        let sent = buffer.withUnsafeBytes { bytes in
            PQputCopyData(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        guard sent == 1 else { throw connection.failure(sqlState: "", message: lastError(), action: "sending COPY data") }
        buffer.removeAll(keepingCapacity: true)
    }

    private func lastError() -> String {
        let message = String(cString: PQerrorMessage(handle))
        return message.isEmpty ? "libpq could not send" : message
    }

    /// Sends the trailer and ends the COPY, reading its answer.
    ///
    /// - Throws: the server's error, its action from `describeRow` with the failing row's number (0-based) when
    ///   the server names the line, or `describeAll`.
    fileprivate func finish(describeRow: (Int?) -> String) throws {
        append16(-1)
        try flush()
        guard PQputCopyEnd(handle, nil) == 1 else { throw connection.failure(sqlState: "", message: lastError(), action: describeRow(nil)) }
        try readAnswer(describeRow: describeRow)
    }

    /// Ends the COPY with an error (the server discards its rows, and the transaction fails), reading the answer.
    fileprivate func abort() {
        guard PQputCopyEnd(handle, "refused by Quire") == 1 else { return }
        _ = try? readAnswer(describeRow: { _ in "" })
    }

    private func readAnswer(describeRow: (Int?) -> String) throws {
        var failure: QuireError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            guard PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil else { continue }
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = String(cString: PQresultErrorMessage(result))
            let context = PQresultErrorField(result, Int32(UInt8(ascii: "W"))).map { String(cString: $0) } ?? ""
            failure = connection.failure(sqlState: state, message: message, action: describeRow(Self.line(in: context).map { $0 - 1 }))
        }
        if let failure { throw failure }
        if !connection.isUsable { throw connection.failure(sqlState: "08006", message: lastError(), action: describeRow(nil)) }
    }

    /// The line a COPY error's context names ("COPY zitem, line 702"), 1-based.
    static func line(in context: String) -> Int? {
        guard let range = context.range(of: ", line ") else { return nil }
        return Int(context[range.upperBound...].prefix { $0.isNumber })
    }
}

extension PostgresConnection {
    /// Runs `COPY table (columns) FROM STDIN (FORMAT binary)` with the rows `body` writes
    /// (``PostgresCopyIn/appendRow(_:types:describe:)``). Meant inside ``transaction(_:)``, outside a pipeline.
    ///
    /// - Parameter describeRow: Names a row by its number in this COPY (0-based; nil when the server's error
    ///   names none) for errors: "inserting the Item with z_pk 12".
    /// - Throws: what `body` throws (the COPY is ended with an error first); the server's error naming the row;
    ///   ``QuireError/Code/postgresConnectionLost`` when the connection dropped.
    package func copyIn(_ sql: String, describeRow: (Int?) -> String, _ body: (PostgresCopyIn) throws -> Void) throws {
        guard let handle = rawHandle else { throw closedError() }
        statementCount += 1
        guard let start = PQexec(handle, sql) else {
            throw failure(sqlState: "", message: String(cString: PQerrorMessage(handle)), action: sql)
        }
        let status = PQresultStatus(start)
        if status != PGRES_COPY_IN {
            let state = PQresultErrorField(start, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = String(cString: PQresultErrorMessage(start))
            PQclear(start)
            throw failure(sqlState: state, message: message, action: sql)
        }
        PQclear(start)
        let copy = PostgresCopyIn(self, handle)
        do {
            try body(copy)
        } catch {
            copy.abort()
            throw error
        }
        try copy.finish(describeRow: describeRow)
    }
}
