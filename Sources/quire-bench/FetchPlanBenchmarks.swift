import Foundation
import Quire
import QuireCore

/// `fetch-repeated-shape`: what one fetch costs beyond its rows, where compiling the predicate and taking the
/// coordinator's lock show: 2,000 fetches of `tag == %@` with a limit of 1 (one row from the index each), for
/// 100 values, on an open store; the baseline prepares and steps the same SELECT on an open raw connection.
enum FetchPlanBench {
    static func repeatedShape(quireURL: URL, rawURL: URL, runs: Int) throws -> BenchmarkRow {
        let tags = (0..<2_000).map { Int64($0 % 100) }
        let raw = try RawSQLite.open(at: rawURL)
        defer { raw.close() }
        var rawCount = 0
        let rawTime = try measure(bestOf: runs) {
            rawCount = 0
            for tag in tags { rawCount += try RawSQLite.select(raw, "WHERE t0.ZTAG = ?1 LIMIT 1", tag).count }
        }
        let (coordinator, context) = try openStack(quireURL)
        defer { try? closeStack(coordinator) }
        let predicates = try tags.map { try QueryPredicate(format: "tag == %@", $0) }
        var quireCount = 0
        let quireTime = try measure(bestOf: runs) {
            quireCount = 0
            try context.performAndWait {
                for predicate in predicates {
                    let request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.predicate = predicate
                    request.fetchLimit = 1
                    quireCount += try context.fetch(request).count
                }
            }
        }
        precondition(rawCount == quireCount && quireCount == tags.count, "fetch-repeated-shape: raw \(rawCount), Quire \(quireCount)")
        return BenchmarkRow(
            name: "fetch-repeated-shape", quireMilliseconds: quireTime, baselineMilliseconds: rawTime,
            note: "2,000 fetches of tag == %@ (100 values), limit 1; raw: prepare, bind, step, finalize")
    }
}
