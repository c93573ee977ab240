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
        if wanted("history-100k") {
            let plainURL = folder.appendingPathComponent("history-off.sqlite")
            let trackedURL = folder.appendingPathComponent("history-on.sqlite")
            var plain = Double.infinity
            var tracked = Double.infinity
            // Alternated, so that both sides meet the same state of the machine.
            for _ in 0..<runs {
                plain = min(plain, try measureIncludingFreeing(bestOf: 1) { try insertSave(at: plainURL, tracking: false) })
                tracked = min(tracked, try measureIncludingFreeing(bestOf: 1) { try insertSave(at: trackedURL, tracking: true) })
            }
            try RawSQLite.removeStore(at: plainURL)
            try RawSQLite.removeStore(at: trackedURL)
            rows.append(BenchmarkRow(
                name: "history-100k", quireMilliseconds: tracked, baselineMilliseconds: plain, target: 1.3,
                note: "insert-save-100k with persistent history tracking (100k ACHANGE rows); baseline: the same without"))
        }
        try? RawSQLite.removeStore(at: work)
        return rows
    }

    /// insert-save-100k on a new store with or without history tracking; returns the context, released by
    /// the caller after the clock stops.
    private static func insertSave(at url: URL, tracking: Bool) throws -> ManagedObjectContext? {
        try RawSQLite.removeStore(at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: benchModel())
        var options = StoreOptions()
        options.persistentHistoryTracking = tracking
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try insertSaveBenchItems(context, of: coordinator)
    }

    /// Opens a stack on the store, runs `body` in its context and closes the store.
    private static func run(at url: URL, _ body: (ManagedObjectContext) throws -> Void) throws {
        let (coordinator, context) = try openStack(url)
        try body(context)
        try closeStack(coordinator)
    }
}
