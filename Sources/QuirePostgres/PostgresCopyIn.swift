import CLibPQ
import QuireCore
import QuireStores
import Foundation

/// Rows sent with `COPY … FROM STDIN (FORMAT binary)`: PostgreSQL's binary copy format (a signature and two
/// zero words, then per row its field count and each field as a length and its bytes, -1 for NULL, and a
/// trailer of -1), written into a buffer of its own handed to libpq every ``flushBytes`` bytes, so memory stays
/// bounded however many rows go (a value longer than the buffer goes to libpq on its own). Every field is written
/// in its column's binary form (``PostgresConnection/TypeOID``): `bigint` and `double precision` as 8 big-endian
/// bytes, `text` as UTF-8 bytes, `bytea` as its bytes.
///
/// A row is written field by field (``beginRow(fields:describe:)``, ``append(_:type:describe:)``,
/// ``endRow(describe:)``),
/// so a save writes its objects' values straight into the buffer without gathering each row in an array first.
///
/// Made by ``PostgresConnection/copyIn(_:describeRow:_:)``; not thread-safe, like its connection.
package final class PostgresCopyIn {
    static let flushBytes = 256 * 1024
    /// The buffer's size: a row is flushed after once ``flushBytes`` are written, and a field mid-row when
    /// fewer than ``fieldRoom`` bytes are left.
    private static let capacity = flushBytes + 4096
    /// The most bytes a field's fixed-size parts (its length and an 8-byte number), or a row's field count, take.
    private static let fieldRoom = 16
    private let connection: PostgresConnection
    private let handle: OpaquePointer
    /// The buffer: ``capacity`` bytes, of which `used` are written and not yet handed to libpq.
    private let storage: UnsafeMutableRawPointer
    private var used = 0
    /// The fields the current row declared, and those written so far.
    private var declaredFields = 0
    private var writtenFields = 0
    /// The rows written so far.
    private(set) var rows = 0

    fileprivate init(_ connection: PostgresConnection, _ handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
        // Owned by this object alone (never handed out; libpq copies what it is given), freed in `deinit`.
        storage = UnsafeMutableRawPointer.allocate(byteCount: Self.capacity, alignment: 8)
        for byte: UInt8 in [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00] {  // PGCOPY\n\377\r\n\0
            storage.storeBytes(of: byte, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        put32(0)
        put32(0)
    }

    deinit { storage.deallocate() }

    // The fixed-size writes store at `used` without checking: safe because each caller made room first
    // (``makeRoom()`` before a row's field count, before each field, and before the trailer, leaving at least
    // ``fieldRoom`` bytes, more than any of them writes: 2, 4 + 8, 2), and the constructor's 19 bytes fit an
    // empty buffer. `storeBytes(of:toByteOffset:as:)` takes unaligned offsets for these trivial types.
    @inline(__always)
    private func makeRoom() throws {
        if Self.capacity - used < Self.fieldRoom { try flush() }
    }
    @inline(__always)
    private func put16(_ value: Int16) {
        storage.storeBytes(of: value.bigEndian, toByteOffset: used, as: Int16.self)
        used += 2
    }
    @inline(__always)
    private func put32(_ value: Int32) {
        storage.storeBytes(of: value.bigEndian, toByteOffset: used, as: Int32.self)
        used += 4
    }
    @inline(__always)
    private func put64(_ value: UInt64) {
        storage.storeBytes(of: value.bigEndian, toByteOffset: used, as: UInt64.self)
        used += 8
    }

    /// Writes `bytes` (after their length), flushing first when they do not fit; bytes longer than the buffer
    /// go to libpq directly (a COPY's data need not be sent in whole rows).
    private func putBytes(_ bytes: UnsafeRawBufferPointer) throws {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if bytes.count > Self.capacity - used {
            try flush()
            if bytes.count > Self.capacity {
                try send(bytes)
                return
            }
        }
        // Safe: the bytes fit what is left of the buffer (checked above, after a flush when needed).
        storage.advanced(by: used).copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
    }

    /// Writes one row: `values` in the columns' types `types` (as many of each as the COPY's columns).
    ///
    /// - Throws: ``QuireError/Code/postgres`` for a value its column's type cannot take (text holding a NUL, a
    ///   real where an integer belongs that is not a whole number, …), naming `describe()`; the connection's
    ///   errors when libpq cannot send.
    func appendRow(_ values: [PostgresConnection.Value], types: [UInt32], describe: () -> String) throws {
        try beginRow(fields: values.count, describe: describe)
        for index in values.indices {
            try append(values[index], type: index < types.count ? types[index] : PostgresConnection.TypeOID.unknown, describe: describe)
        }
        try endRow(describe: describe)
    }

    /// Starts a row of `fields` fields, which ``append(_:type:describe:)`` then writes one by one.
    ///
    /// - Throws: ``QuireError/Code/postgres`` for more fields than a row can have, naming `describe()`.
    func beginRow(fields: Int, describe: () -> String) throws {
        // A table has at most 1,600 columns; a row of more is refused by the server, never cut short here.
        guard let count = Int16(exactly: fields) else { throw refused(0, "more fields than a row can have", describe) }
        declaredFields = fields
        writtenFields = 0
        try makeRoom()
        put16(count)
    }

    /// Writes the row's next field: `value` in its column's type `type`.
    ///
    /// - Throws: ``QuireError/Code/postgres`` for a value the type cannot take, or a field past the row's
    ///   declared count, naming `describe()`; the connection's errors when libpq cannot send.
    func append(_ value: PostgresConnection.Value, type: UInt32, describe: () -> String) throws {
        let index = writtenFields
        guard index < declaredFields else { throw refused(index, "a field past the row's \(declaredFields)", describe) }
        writtenFields += 1
        try makeRoom()
        switch (value, type) {
        case (.null, _):
            put32(-1)
        case (.integer(let v), PostgresConnection.TypeOID.int8):
            put32(8)
            put64(UInt64(bitPattern: v))
        case (.integer(let v), PostgresConnection.TypeOID.float8):
            put32(8)
            put64(Double(v).bitPattern)
        case (.double(let v), PostgresConnection.TypeOID.float8):
            put32(8)
            put64(v.bitPattern)
        case (.double(let v), PostgresConnection.TypeOID.int8):
            guard let whole = Int64(exactly: v) else { throw refused(index, "the real \(v) where an integer belongs", describe) }
            put32(8)
            put64(UInt64(bitPattern: whole))
        case (.text(var v), PostgresConnection.TypeOID.text):
            try v.withUTF8 { utf8 in
                guard let length = Int32(exactly: utf8.count) else { throw refused(index, "text longer than one value can take", describe) }
                guard utf8.withUnsafeBytes({ bytes in bytes.baseAddress.flatMap { memchr($0, 0, bytes.count) } }) == nil else {
                    throw refused(index, "text holding a NUL character (U+0000), which PostgreSQL's text cannot store", describe)
                }
                put32(length)
                try putBytes(UnsafeRawBufferPointer(utf8))
            }
        case (.bytes(let v), PostgresConnection.TypeOID.bytea):
            guard let length = Int32(exactly: v.count) else { throw refused(index, "\(v.count) bytes, more than one value can take", describe) }
            put32(length)
            try v.withUnsafeBytes { try putBytes($0) }
        default:
            throw refused(index, "a value its column's type (\(type)) does not take", describe)
        }
    }

    /// Ends the row, handing the buffer to libpq once it holds ``flushBytes`` or more.
    ///
    /// - Throws: ``QuireError/Code/postgres`` when fewer fields were written than the row declared (the COPY
    ///   cannot go on: the caller ends it with an error); the connection's errors when libpq cannot send.
    func endRow(describe: () -> String) throws {
        guard writtenFields == declaredFields else {
            throw refused(writtenFields, "\(writtenFields) of the row's \(declaredFields) fields", describe)
        }
        rows += 1
        if used >= Self.flushBytes { try flush() }
    }

    private func refused(_ index: Int, _ what: String, _ describe: () -> String) -> QuireError {
        QuireError(
            .postgres,
            "Column \(index + 1) of the row holds \(what) (the store '\(connection.url.redacted)'). Refused while \(describe()).")
    }

    /// Hands the buffer to libpq.
    private func flush() throws {
        try send(UnsafeRawBufferPointer(start: storage, count: used))
        used = 0
    }

    /// Hands `bytes` to libpq (which copies them into its output buffer, sending as the socket takes them).
    private func send(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let sent = PQputCopyData(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        guard sent == 1 else { throw connection.failure(sqlState: "", message: lastError(), action: "sending COPY data") }
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
        try makeRoom()
        put16(-1)
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
