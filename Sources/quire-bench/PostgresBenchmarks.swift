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

    static let names = ["pg-insert-save-100k", "pg-fetch-all-100k", "pg-fetch-indexed-1pct", PostgresBlobBench.name]

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
        if names.dropLast().contains(where: wanted) {
            // The strongest of three baselines, each with binary parameters: one-row INSERTs pipelined, 1,000-row
            // INSERTs pipelined (as the store sends a save's runs), and COPY in binary form. The others are noted.
            // Each side's best wall-clock time, and apart from it the least processor time this process (the
            // client; the server is a process of its own) took in a run: the wall clock less the client's time is
            // roughly what the client waited for the server.
            var rawInserts: [(name: String, wall: Double, cpu: Double)] = []
            func timeRaw(_ name: String, _ body: () throws -> Void) throws {
                var cpu = Double.infinity
                let wall = try measure(bestOf: runs) { cpu = min(cpu, try MappingBench.cpuSeconds(body) * 1_000) }
                rawInserts.append((name, wall, cpu))
            }
            if wanted("pg-insert-save-100k") {
                try timeRaw("1-row INSERTs pipelined") { try raw.insert100kPipelined(rowsPerStatement: 1) }
                try timeRaw("1,000-row INSERTs pipelined") { try raw.insert100kPipelined(rowsPerStatement: 1_000) }
                try timeRaw("COPY binary") { try raw.insert100kCopy() }
            } else {
                try raw.insert100kCopy()
            }
            let strongest = rawInserts.min { $0.wall < $1.wall }
            var quireCPU = Double.infinity
            let quireInsert = try measure(bestOf: runs) {
                quireCPU = min(quireCPU, try MappingBench.cpuSeconds {
                    // The context is freed inside the timing, as `measureIncludingFreeing` does.
                    _ = try { () throws -> ManagedObjectContext? in
                        try StoreKinds.kind(for: .postgres).removeFiles(at: quireURL)
                        let (coordinator, context) = try openPostgres(quireURL)
                        return try insertSaveBenchItems(context, of: coordinator)
                    }()
                } * 1_000)
            }
            if let strongest {
                let others = rawInserts.filter { $0.name != strongest.name }.map { "\($0.name): \(Int($0.wall)) ms" }.joined(separator: ", ")
                rows.append(BenchmarkRow(
                    name: "pg-insert-save-100k", quireMilliseconds: quireInsert, baselineMilliseconds: strongest.wall, target: 1.3,
                    note: "libpq, binary parameters, one transaction: \(strongest.name) (\(others)); "
                        + String(format: "client CPU %.0f ms vs %.0f ms (%.2f×)", quireCPU, strongest.cpu, quireCPU / strongest.cpu)))
            }
            if wanted("pg-fetch-all-100k") {
                var counts = (0, 0)
                let rawFetch = try measureIncludingFreeing(bestOf: runs) { () -> [BenchRow] in
                    let rows = try raw.select("")
                    counts.0 = rows.count
                    return rows
                }
                let quireFetch = try measureIncludingFreeing(bestOf: runs) { () -> (ManagedObjectContext, [TypedBenchItem]) in
                    let (coordinator, context) = try openPostgres(quireURL, typed: true)
                    let request = FetchRequest<TypedBenchItem>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    let objects = try context.fetch(request)
                    let read = context.performAndWait { objects.reduce(0) { $0 &+ TypedReadBench.readEveryValue(of: $1) } }
                    precondition(read != 0, "read no values")
                    counts.1 = objects.count
                    try closeStack(coordinator)
                    return (context, objects)
                }
                precondition(counts.0 == BenchData.rowCount && counts.1 == BenchData.rowCount, "pg-fetch-all-100k: \(counts)")
                rows.append(BenchmarkRow(
                    name: "pg-fetch-all-100k", quireMilliseconds: quireFetch, baselineMilliseconds: rawFetch, target: 1.3,
                    note: "both sides read every value (Quire through @Managed properties); libpq: binary results"))
            }
            if wanted("pg-fetch-indexed-1pct") {
                let tags = (0..<10).map { Int64($0 * 7) }
                var rawCount = 0
                let rawTime = try measure(bestOf: runs) {
                    rawCount = 0
                    for tag in tags { rawCount += try raw.select(" WHERE ztag = $1", tag).count }
                }
                let (coordinator, context) = try openPostgres(quireURL, typed: true)
                defer { try? closeStack(coordinator) }
                let predicates = try tags.map { try QueryPredicate(format: "tag == %@", $0) }
                var quireCount = 0
                let quireTime = try measure(bestOf: runs) {
                    quireCount = 0
                    try context.performAndWait {
                        for predicate in predicates {
                            let request = FetchRequest<TypedBenchItem>(entityName: "Item")
                            request.predicate = predicate
                            request.returnsObjectsAsFaults = false
                            let objects = try context.fetch(request)
                            let read = objects.reduce(0) { $0 &+ TypedReadBench.readEveryValue(of: $1) }
                            precondition(read != 0, "read no values")
                            quireCount += objects.count
                        }
                    }
                }
                precondition(rawCount == quireCount && quireCount > 0, "pg-fetch-indexed-1pct: raw \(rawCount), Quire \(quireCount)")
                rows.append(BenchmarkRow(
                    name: "pg-fetch-indexed-1pct", quireMilliseconds: quireTime, baselineMilliseconds: rawTime, target: 1.3,
                    note: "10 queries, \(quireCount) rows; both sides read every value (Quire through @Managed properties); libpq: binary results"))
            }
        }
        if wanted(PostgresBlobBench.name) { rows.append(try PostgresBlobBench.row(raw: raw, quireURL: quireURL, runs: runs)) }
        try? StoreKinds.kind(for: .postgres).removeFiles(at: quireURL)
        return rows
    }

    /// A stack on the store at `url`; with `typed`, Item objects are ``TypedBenchItem``s.
    static func openPostgres(_ url: URL, typed: Bool = false) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let model = benchModel()
        if typed { model.entitiesByName["Item"]?.managedObjectClass = TypedBenchItem.self }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
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

    /// Selects rows (all, or with a condition on `$1`, sent in binary form) with binary results, and
    /// materializes each into a ``BenchRow``, reading every value.
    func select(_ condition: String, _ argument: Int64? = nil) throws -> [BenchRow] {
        let sql = "SELECT \(Self.columns) FROM bench_raw.zitem\(condition) ORDER BY z_pk"
        var parameter = (argument ?? 0).bigEndian
        var type: UInt32 = 20
        var length: Int32 = 8
        var format: Int32 = 1
        let result = withUnsafeBytes(of: &parameter) { bytes -> OpaquePointer? in
            var values: [UnsafePointer<CChar>?] = [bytes.baseAddress?.assumingMemoryBound(to: CChar.self)]
            return PQexecParams(connection, sql, argument == nil ? 0 : 1, &type, &values, &length, &format, 1)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw failure(sql) }
        let count = Int(PQntuples(result))
        var rows: [BenchRow] = []
        rows.reserveCapacity(count)
        func value(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
        }
        func text(_ row: Int32, _ column: Int32) -> String { String(decoding: value(row, column), as: UTF8.self) }
        func int(_ row: Int32, _ column: Int32) -> Int64 { Int64(bigEndian: value(row, column).loadUnaligned(as: Int64.self)) }
        func double(_ row: Int32, _ column: Int32) -> Double {
            Double(bitPattern: UInt64(bigEndian: value(row, column).loadUnaligned(as: UInt64.self)))
        }
        for r in 0..<Int32(count) {
            rows.append(BenchRow(
                primaryKey: int(r, 0), i1: int(r, 1), i2: int(r, 2), d1: double(r, 3), d2: double(r, 4), s1: text(r, 5),
                s2: text(r, 6), s3: text(r, 7), flag: int(r, 8) != 0, date: Date(timeIntervalSinceReferenceDate: double(r, 9)),
                blob: Data(value(r, 10)), tag: int(r, 11)))
        }
        return rows
    }
}
