import CLibPQ
import Foundation
import QuireCore

/// The parameters of the raw baselines' INSERTs in PostgreSQL's binary form, written into buffers kept from
/// statement to statement: `bigint` and `double precision` as 8 big-endian bytes, text as its UTF-8 bytes, the
/// blob as its bytes. One row is ``RawPostgres/insertTypes``' 12 parameters.
struct RawBinaryParameters {
    private var bytes: [UInt8] = []
    private var offsets: [Int] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []
    private var pointers: [UnsafePointer<CChar>?] = []

    /// The number of parameters written.
    var count: Int { offsets.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ length: Int) {
        offsets.append(bytes.count - length)
        lengths.append(Int32(length))
    }

    mutating func int8(_ value: Int64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        append(8)
    }

    mutating func float8(_ value: Double) { int8(Int64(bitPattern: value.bitPattern)) }

    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { bytes.append(contentsOf: $0) }
        append(value.utf8.count)
    }

    mutating func bytea(_ value: Data) {
        bytes.append(contentsOf: value)
        append(value.count)
    }

    /// Appends bench row `index`'s 12 parameters (generated here, as the Quire side generates its rows inside the
    /// timed insert).
    mutating func appendRow(_ index: Int) {
        let row = BenchData.row(index)
        int8(Int64(index + 1))
        int8(row.i1)
        int8(row.i2)
        float8(row.d1)
        float8(row.d2)
        text(row.s1)
        text(row.s2)
        text(row.s3)
        int8(row.flag ? 1 : 0)
        float8(row.date.timeIntervalSinceReferenceDate)
        bytea(row.blob)
        int8(row.tag)
    }

    /// Calls `body` with libpq's arrays (values, lengths, formats) for the parameters written.
    mutating func withArrays<T>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T
    ) -> T {
        if formats.count < count { formats = [Int32](repeating: 1, count: count) }
        pointers.removeAll(keepingCapacity: true)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)
            for offset in offsets { pointers.append(base.map { UnsafePointer(($0 + offset).assumingMemoryBound(to: CChar.self)) }) }
            // The pointers point into `bytes`, valid until this closure returns, after `body`.
            return pointers.withUnsafeBufferPointer { p in
                lengths.withUnsafeBufferPointer { l in formats.withUnsafeBufferPointer { f in body(p.baseAddress, l.baseAddress, f.baseAddress) } }
            }
        }
    }
}

extension RawPostgres {
    /// The parameter types of ``insertSQL``: `bigint`, `double precision`, `text`, `bytea`.
    static let insertTypes: [UInt32] = [20, 20, 20, 701, 701, 25, 25, 25, 20, 701, 17, 20]

    /// An INSERT of `rows` rows, ``insertTypes`` for each.
    static func multiRowInsertSQL(rows: Int) -> String {
        let tuples = (0..<rows).map { row in
            let base = row * 12
            let marks = (1...12).map { "$\(base + $0)" }
            return "(\(marks[0]), 1, 1, \(marks[1...].joined(separator: ", ")))"
        }
        return "INSERT INTO zitem (z_pk, z_ent, z_opt, zi1, zi2, zd1, zd2, zs1, zs2, zs3, zflag, zdate, zblob, ztag) VALUES "
            + tuples.joined(separator: ", ")
    }

    /// Prepares `sql` with `rows` rows' parameter types under `name`.
    func prepareInsert(_ name: String, _ sql: String, rows: Int) throws {
        let types = [UInt32]((0..<rows).map { _ in Self.insertTypes }.joined())
        let prepared = types.withUnsafeBufferPointer { PQprepare(connection, name, sql, Int32($0.count), $0.baseAddress) }
        defer { PQclear(prepared) }
        guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { throw failure("prepare \(name)") }
    }

    /// Creates the table and inserts the 100k rows in one transaction, `rowsPerStatement` rows to a prepared
    /// INSERT with binary parameters, the statements sent in libpq's pipeline mode as the PostgreSQL store's save
    /// sends them: a flush request every 256 statements, answers read a window behind, one sync at the end.
    func insert100kPipelined(rowsPerStatement: Int) throws {
        try createTable()
        // BEGIN on its own: inside a multi-statement PQexec it would end with that implicit transaction.
        PQclear(try exec("BEGIN"))
        PQclear(try exec("DEALLOCATE ALL"))
        try prepareInsert("insert", Self.multiRowInsertSQL(rows: rowsPerStatement), rows: rowsPerStatement)
        let rest = BenchData.rowCount % rowsPerStatement
        if rest > 0 { try prepareInsert("rest", Self.multiRowInsertSQL(rows: rest), rows: rest) }
        guard PQenterPipelineMode(connection) == 1 else { throw failure("enter pipeline mode") }
        let window = 256
        var unanswered = 0
        var sentSinceFlush = 0
        var failed = false
        func readAnswer() throws {
            guard let result = PQgetResult(connection) else { throw failure("read an answer") }
            if PQresultStatus(result) != PGRES_COMMAND_OK { failed = true }
            PQclear(result)
            while let extra = PQgetResult(connection) { PQclear(extra) }
            unanswered -= 1
        }
        var parameters = RawBinaryParameters()
        var start = 0
        while start < BenchData.rowCount {
            let rows = min(rowsPerStatement, BenchData.rowCount - start)
            parameters.removeAll()
            for index in start..<(start + rows) { parameters.appendRow(index) }
            let name = rows == rowsPerStatement ? "insert" : "rest"
            let sent = parameters.withArrays { values, lengths, formats in
                PQsendQueryPrepared(connection, name, Int32(rows * 12), values, lengths, formats, 0)
            }
            guard sent == 1 else { throw failure("send rows from \(start)") }
            start += rows
            unanswered += 1
            sentSinceFlush += 1
            if sentSinceFlush == window {
                sentSinceFlush = 0
                guard PQsendFlushRequest(connection) == 1, PQflush(connection) == 0 else { throw failure("flush") }
                while unanswered > window { try readAnswer() }
            }
        }
        guard PQpipelineSync(connection) == 1 else { throw failure("sync") }
        while unanswered > 0 { try readAnswer() }
        guard let sync = PQgetResult(connection) else { throw failure("read the sync") }
        PQclear(sync)
        guard PQexitPipelineMode(connection) == 1, !failed else { throw failure("insert the rows") }
        PQclear(try exec("COMMIT"))
    }
}
