import CLibPQ
import Foundation
import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// The PostgreSQL rows: Quire's PostgreSQL store against raw libpq doing the same work on the same local
/// server, in the same run. The server is the one named by `QUIRE_BENCH_POSTGRES_URL` or
/// `QUIRE_TEST_POSTGRES_URL` (`scripts/with-postgres.sh swift run -c release quire-bench`); without one the
/// rows are skipped, saying so on standard error.
enum PostgresBench {
    static let serverURL: String? = {
        let environment = ProcessInfo.processInfo.environment
        return [environment["QUIRE_BENCH_POSTGRES_URL"], environment["QUIRE_TEST_POSTGRES_URL"]].compactMap { $0 }.first { !$0.isEmpty }
    }()

    static let names = ["pg-insert-save-100k", "pg-fetch-all-100k", "pg-fetch-indexed-1pct"]

    static func storeURL(schema: String) -> URL? {
        guard let serverURL else { return nil }
        return URL(string: serverURL + (serverURL.contains("?") ? "&" : "?") + "schema=" + schema)
    }

    /// The rows asked for (``names`` filtered by `wanted`), or none without a server.
    static func rows(runs: Int, wanted: (String) -> Bool) throws -> [BenchmarkRow] {
        guard names.contains(where: wanted) else { return [] }
        guard let serverURL, let quireURL = storeURL(schema: "bench_quire") else {
            FileHandle.standardError.write(Data("quire-bench: no PostgreSQL server (QUIRE_BENCH_POSTGRES_URL); pg-* rows skipped.\n".utf8))
            return []
        }
        let raw = try RawPostgres(serverURL)
        defer { raw.close() }
        var rows: [BenchmarkRow] = []
        // The baseline sends its INSERTs in pipeline mode as the store does; the one-by-one figure is reported beside it.
        let rawInsert = try measure(bestOf: runs) { try raw.insert100kPipelined() }
        let rawInsertOneByOne = wanted("pg-insert-save-100k") ? try measure(bestOf: runs) { try raw.insert100k() } : 0
        let quireInsert = try measureIncludingFreeing(bestOf: runs) { () -> ManagedObjectContext? in
            try StoreKinds.kind(for: .postgres).removeFiles(at: quireURL)
            let (coordinator, context) = try openPostgres(quireURL)
            guard let entity = coordinator.managedObjectModel.entitiesByName["Item"] else { return nil }
            try context.performAndWait {
                insertBenchItems(into: context, entity: entity)
                try context.save()
            }
            try closeStack(coordinator)
            return context
        }
        if wanted("pg-insert-save-100k") {
            rows.append(BenchmarkRow(
                name: "pg-insert-save-100k", quireMilliseconds: quireInsert, baselineMilliseconds: rawInsert, target: 1.5,
                note: "libpq: one transaction of 100k prepared INSERTs, pipelined (one by one: \(Int(rawInsertOneByOne)) ms)"))
        }
        if wanted("pg-fetch-all-100k") {
            var counts = (0, 0)
            let rawFetch = try measureIncludingFreeing(bestOf: runs) { () -> [BenchRow] in
                let rows = try raw.select("")
                counts.0 = rows.count
                return rows
            }
            let quireFetch = try measureIncludingFreeing(bestOf: runs) { () -> (ManagedObjectContext, [ManagedObject]) in
                let (coordinator, context) = try openPostgres(quireURL)
                let request = FetchRequest<ManagedObject>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                let objects = try context.fetch(request)
                counts.1 = objects.count
                try closeStack(coordinator)
                return (context, objects)
            }
            precondition(counts.0 == BenchData.rowCount && counts.1 == BenchData.rowCount, "pg-fetch-all-100k: \(counts)")
            rows.append(BenchmarkRow(name: "pg-fetch-all-100k", quireMilliseconds: quireFetch, baselineMilliseconds: rawFetch, target: 1.5))
        }
        if wanted("pg-fetch-indexed-1pct") {
            let tags = (0..<10).map { Int64($0 * 7) }
            var rawCount = 0
            let rawTime = try measure(bestOf: runs) {
                rawCount = 0
                for tag in tags { rawCount += try raw.select(" WHERE ztag = $1", tag).count }
            }
            let (coordinator, context) = try openPostgres(quireURL)
            defer { try? closeStack(coordinator) }
            let predicates = try tags.map { try QueryPredicate(format: "tag == %@", $0) }
            var quireCount = 0
            let quireTime = try measure(bestOf: runs) {
                quireCount = 0
                try context.performAndWait {
                    for predicate in predicates {
                        let request = FetchRequest<ManagedObject>(entityName: "Item")
                        request.predicate = predicate
                        quireCount += try context.fetch(request).count
                    }
                }
            }
            precondition(rawCount == quireCount && quireCount > 0, "pg-fetch-indexed-1pct: raw \(rawCount), Quire \(quireCount)")
            rows.append(BenchmarkRow(
                name: "pg-fetch-indexed-1pct", quireMilliseconds: quireTime, baselineMilliseconds: rawTime, target: 1.5,
                note: "10 queries, \(quireCount) rows"))
        }
        try? StoreKinds.kind(for: .postgres).removeFiles(at: quireURL)
        return rows
    }

    static func openPostgres(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: benchModel())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }
}

/// The baseline: libpq calls made directly, on a table shaped as the PostgreSQL store makes `Item`'s.
final class RawPostgres {
    private(set) var connection: OpaquePointer?

    init(_ url: String) throws {
        connection = PQconnectdb(url)
        guard let connection, PQstatus(connection) == CONNECTION_OK else { throw failure("connect") }
    }

    func close() {
        _ = try? exec("DROP SCHEMA IF EXISTS bench_raw CASCADE")
        PQfinish(connection)
        connection = nil
    }

    func failure(_ action: String) -> QuireError {
        QuireError(.postgres, "raw libpq failed to \(action): \(connection.map { String(cString: PQerrorMessage($0)) } ?? "")")
    }

    @discardableResult
    func exec(_ sql: String) throws -> OpaquePointer? {
        let result = PQexec(connection, sql)
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            PQclear(result)
            throw failure(sql)
        }
        return result
    }

    static let columns = "z_pk, zi1, zi2, zd1, zd2, zs1, zs2, zs3, zflag, zdate, zblob, ztag"

    /// The INSERT of one row, 12 parameters.
    static let insertSQL = "INSERT INTO zitem (z_pk, z_ent, z_opt, zi1, zi2, zd1, zd2, zs1, zs2, zs3, zflag, zdate, zblob, ztag) "
        + "VALUES ($1, 1, 1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"

    /// A fresh schema with the table shaped as the store makes `Item`'s.
    func createTable() throws {
        PQclear(try exec("""
            DROP SCHEMA IF EXISTS bench_raw CASCADE; CREATE SCHEMA bench_raw; SET search_path TO bench_raw;
            CREATE TABLE zitem (z_pk BIGINT PRIMARY KEY, z_ent BIGINT, z_opt BIGINT, zi1 BIGINT, zi2 BIGINT, zflag BIGINT,
              ztag BIGINT, zowner BIGINT, zd1 DOUBLE PRECISION, zd2 DOUBLE PRECISION, zdate DOUBLE PRECISION,
              zs1 TEXT COLLATE "C", zs2 TEXT COLLATE "C", zs3 TEXT COLLATE "C", zblob BYTEA);
            CREATE INDEX zitem_ztag_index ON zitem (ztag); CREATE INDEX zitem_zowner_index ON zitem (zowner)
            """))
    }

    /// Creates the table, begins the transaction and prepares ``insertSQL``; returns the statement's name.
    func beginInserting() throws -> String {
        try createTable()
        // BEGIN on its own: inside a multi-statement PQexec it would end with that implicit transaction.
        PQclear(try exec("BEGIN"))
        let name = "insert"
        PQclear(try exec("DEALLOCATE ALL"))
        let prepared = PQprepare(connection, name, Self.insertSQL, 12, nil)
        defer { PQclear(prepared) }
        guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { throw failure("prepare the insert") }
        return name
    }

    /// Creates the table and inserts the 100k rows in one transaction, one prepared INSERT per row, each
    /// waiting for its answer.
    func insert100k() throws {
        let name = try beginInserting()
        for index in 0..<BenchData.rowCount {
            let result = Self.withInsertParameters(ofRow: index) { values, lengths, formats in
                PQexecPrepared(connection, name, 12, values, lengths, formats, 0)
            }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                PQclear(result)
                throw failure("insert row \(index)")
            }
            PQclear(result)
        }
        PQclear(try exec("COMMIT"))
    }

    /// Calls `body` with the parameters of ``insertSQL`` for bench row `index` (generated here, as the Quire side
    /// generates its rows inside the timed insert): text, the blob binary.
    static func withInsertParameters<T>(
        ofRow index: Int, _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> T
    ) -> T {
        let row = BenchData.row(index)
        let texts = [
            String(index + 1), String(row.i1), String(row.i2), "\(row.d1)", "\(row.d2)", row.s1, row.s2, row.s3,
            row.flag ? "1" : "0", "\(row.date.timeIntervalSinceReferenceDate)",
        ]
        let buffers = texts.map { strdup($0) } + [nil, strdup(String(row.tag))]
        defer { for buffer in buffers { free(buffer) } }
        var formats = [Int32](repeating: 0, count: 12)
        formats[10] = 1
        return row.blob.withUnsafeBytes { blob in
            var lengths = [Int32](repeating: 0, count: 12)
            lengths[10] = Int32(blob.count)
            // The blob's bytes stay valid until `withUnsafeBytes` returns, after `body`.
            var values: [UnsafePointer<CChar>?] = buffers.map { $0.map { UnsafePointer($0) } }
            values[10] = blob.baseAddress?.assumingMemoryBound(to: CChar.self)
            return body(values, lengths, formats)
        }
    }

    /// Selects rows (all, or with a condition on `$1`) and materializes each into a ``BenchRow``.
    func select(_ condition: String, _ argument: Int64? = nil) throws -> [BenchRow] {
        let sql = "SELECT \(Self.columns) FROM bench_raw.zitem\(condition) ORDER BY z_pk"
        let parameter = argument.flatMap { strdup(String($0)) }
        defer { free(parameter) }
        let result: OpaquePointer?
        if let parameter {
            var values: [UnsafePointer<CChar>?] = [UnsafePointer(parameter)]
            result = PQexecParams(connection, sql, 1, nil, &values, nil, nil, 0)
        } else {
            result = PQexec(connection, sql)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw failure(sql) }
        let count = Int(PQntuples(result))
        var rows: [BenchRow] = []
        rows.reserveCapacity(count)
        func text(_ row: Int32, _ column: Int32) -> String { String(cString: PQgetvalue(result, row, column)) }
        func int(_ row: Int32, _ column: Int32) -> Int64 { strtoll(PQgetvalue(result, row, column), nil, 10) }
        func double(_ row: Int32, _ column: Int32) -> Double { strtod(PQgetvalue(result, row, column), nil) }
        for r in 0..<Int32(count) {
            var length = 0
            let blob = PQunescapeBytea(PQgetvalue(result, r, 10), &length)
            let data = blob.map { Data(bytes: $0, count: length) } ?? Data()
            PQfreemem(blob)
            rows.append(BenchRow(
                primaryKey: int(r, 0), i1: int(r, 1), i2: int(r, 2), d1: double(r, 3), d2: double(r, 4), s1: text(r, 5),
                s2: text(r, 6), s3: text(r, 7), flag: int(r, 8) != 0, date: Date(timeIntervalSinceReferenceDate: double(r, 9)),
                blob: data, tag: int(r, 11)))
        }
        return rows
    }
}
