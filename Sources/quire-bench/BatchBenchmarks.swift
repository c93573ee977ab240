import Foundation
import Quire
import QuireCore
import QuireStores

/// The batch-request rows: a batch delete and a batch update of the 100,000 items against the same SQL
/// statement run by raw SQLite, each side on a fresh copy of the same store file, opening and closing it.
enum BatchBench {
    /// The predicate both sides evaluate: every item (a scan of a column without an index, so that neither
    /// side gets SQLite's whole-table truncation).
    static let predicateFormat = "i1 >= 0"

    /// The rows that were asked for, measured on copies of `source` (a closed store of the 100,000 items).
    static func rows(source: URL, folder: URL, runs: Int, wanted: (String) -> Bool) throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        let work = folder.appendingPathComponent("batch.sqlite")
        func fresh() throws {
            try RawSQLite.removeStore(at: work)
            try FileManager.default.copyItem(at: source, to: work)
        }
        if wanted("batch-delete-100k") {
            let raw = try measure(bestOf: runs, setUp: fresh) {
                try RawSQLite.execute("DELETE FROM ZITEM WHERE ZI1 >= 0", at: work)
            }
            let quire = try measure(bestOf: runs, setUp: fresh) {
                try run(at: work) { context in
                    let fetch = FetchRequest<ManagedObject>(entityName: "Item")
                    fetch.predicate = try QueryPredicate(format: predicateFormat)
                    let request = BatchDeleteRequest(fetchRequest: fetch)
                    request.resultType = .count
                    let deleted = try context.execute(request).count
                    precondition(deleted == BenchData.rowCount, "batch delete removed \(deleted ?? -1) items")
                }
            }
            rows.append(BenchmarkRow(
                name: "batch-delete-100k", quireMilliseconds: quire, baselineMilliseconds: raw, target: 1.5,
                note: "open + BatchDeleteRequest(\(predicateFormat)) + close; baseline: open + the same DELETE + close"))
        }
        if wanted("batch-update-100k") {
            let raw = try measure(bestOf: runs, setUp: fresh) {
                try RawSQLite.execute("UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZD2 = 1.5, ZS1 = 'updated' WHERE ZI1 >= 0", at: work)
            }
            let quire = try measure(bestOf: runs, setUp: fresh) {
                try run(at: work) { context in
                    let request = BatchUpdateRequest(entityName: "Item")
                    request.predicate = try QueryPredicate(format: predicateFormat)
                    request.propertiesToUpdate = ["d2": 1.5, "s1": "updated"]
                    request.resultType = .count
                    let updated = try context.execute(request).count
                    precondition(updated == BenchData.rowCount, "batch update changed \(updated ?? -1) items")
                }
            }
            rows.append(BenchmarkRow(
                name: "batch-update-100k", quireMilliseconds: quire, baselineMilliseconds: raw, target: 1.5,
                note: "open + BatchUpdateRequest of 2 attributes + close; baseline: open + the same UPDATE + close"))
        }
        try? RawSQLite.removeStore(at: work)
        return rows
    }

    /// Opens a stack on the store, runs `body` in its context and closes the store.
    private static func run(at url: URL, _ body: (ManagedObjectContext) throws -> Void) throws {
        let (coordinator, context) = try openStack(url)
        try body(context)
        try closeStack(coordinator)
    }
}
