import CLibPQ
import Foundation
import QuireCore

extension RawPostgres {
    /// Creates the table and inserts the 100k rows in one transaction as ``insert100k()`` does, the prepared
    /// INSERTs sent in libpq's pipeline mode as the PostgreSQL store's save sends them: a flush request every 256
    /// statements, answers read a window behind, one sync at the end.
    func insert100kPipelined() throws {
        try createTable()
        PQclear(try exec("BEGIN"))
        let name = "insert"
        PQclear(try exec("DEALLOCATE ALL"))
        let prepared = PQprepare(connection, name, Self.insertSQL, 12, nil)
        defer { PQclear(prepared) }
        guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { throw failure("prepare the insert") }
        guard PQenterPipelineMode(connection) == 1 else { throw failure("enter pipeline mode") }
        let window = 256
        var unanswered = 0
        var failed = false
        func readAnswer() throws {
            guard let result = PQgetResult(connection) else { throw failure("read an answer") }
            if PQresultStatus(result) != PGRES_COMMAND_OK { failed = true }
            PQclear(result)
            while let extra = PQgetResult(connection) { PQclear(extra) }
            unanswered -= 1
        }
        var formats = [Int32](repeating: 0, count: 12)
        formats[10] = 1
        for index in 0..<BenchData.rowCount {
            let row = BenchData.row(index)
            let texts = [
                String(index + 1), String(row.i1), String(row.i2), "\(row.d1)", "\(row.d2)", row.s1, row.s2, row.s3,
                row.flag ? "1" : "0", "\(row.date.timeIntervalSinceReferenceDate)",
            ]
            var buffers = texts.map { strdup($0) } + [nil, strdup(String(row.tag))]
            defer { for buffer in buffers { free(buffer) } }
            let sent = row.blob.withUnsafeBytes { blob -> Int32 in
                var lengths = [Int32](repeating: 0, count: 12)
                lengths[10] = Int32(blob.count)
                var values: [UnsafePointer<CChar>?] = buffers.map { $0.map { UnsafePointer($0) } }
                values[10] = blob.baseAddress?.assumingMemoryBound(to: CChar.self)
                return PQsendQueryPrepared(connection, name, 12, values, lengths, formats, 0)
            }
            buffers[10] = nil
            guard sent == 1 else { throw failure("send row \(index)") }
            unanswered += 1
            if (index + 1) % window == 0 {
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
