import CLibPQ
import Foundation
import QuireCore

extension RawPostgres {
    /// Creates the table and inserts the 100k rows in one transaction as ``insert100k()`` does, the prepared
    /// INSERTs sent in libpq's pipeline mode as the PostgreSQL store's save sends them: a flush request every 256
    /// statements, answers read a window behind, one sync at the end.
    func insert100kPipelined() throws {
        let name = try beginInserting()
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
        for index in 0..<BenchData.rowCount {
            let sent = Self.withInsertParameters(ofRow: index) { values, lengths, formats in
                PQsendQueryPrepared(connection, name, 12, values, lengths, formats, 0)
            }
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
