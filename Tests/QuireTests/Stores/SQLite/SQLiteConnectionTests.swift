// Unit tests of the SQLite connection's statement cache, which has no public face: uses QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireStores

/// The connection the SQLite store runs its SQL on.
@Suite struct SQLiteConnectionTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func aRequestMadeWhileTheSameQueryStepsGetsAStatementOfItsOwn() throws {
        let connection = try SQLiteConnection(url: folder.file("Reentry.sqlite"), readOnly: false, create: true)
        defer { connection.close() }
        try connection.execute("CREATE TABLE T (X INTEGER); INSERT INTO T VALUES (1), (2), (3)")
        let sql = "SELECT X FROM T ORDER BY X"
        let outer = try connection.cachedStatement(sql)
        #expect(try outer.step() && outer.int64(at: 0) == 1)
        // The same SQL asked for while the first request is half-way: a second statement, read to the end,
        // leaves the first where it was.
        let inner = try connection.cachedStatement(sql)
        #expect(inner !== outer)
        var seen: [Int64] = []
        while try inner.step() { seen.append(inner.int64(at: 0)) }
        #expect(seen == [1, 2, 3])
        #expect(try outer.step() && outer.int64(at: 0) == 2)
        #expect(try outer.step() && outer.int64(at: 0) == 3)
        #expect(try !outer.step())
        // Once done, the cached statement is handed out again.
        #expect(try connection.cachedStatement(sql) === outer)
    }
}
