import Foundation
import Quire
import QuireCore
import QuireStores

/// The rows of saving one change into a large store of each type, and of Save As of a million objects into
/// each type, with the process's peak memory during the Save As (``PeakMemory``).
enum SaveBench {
    // MARK: One change in 100,000 objects

    /// The fastest of `runs` saves of one changed object in a store of `type` that holds the benchmark's
    /// 100,000 items (already written at `url`): the object is fetched and changed before the clock starts;
    /// the clock covers `context.save()`.
    static func saveOneChange(_ url: URL, type: StoreType, runs: Int) throws -> Double {
        let (coordinator, context) = try StoreBench.openStack(url, type: type)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        var best = Double.infinity
        for run in 0..<runs {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try QueryPredicate(format: "tag == %@", Int64(run * 7 + 3))
            request.fetchLimit = 1
            let item = try context.performAndWait { try context.fetch(request).first }
            guard let item else { break }
            context.performAndWait { item.setValue(Int64(run) + 1_000_000_000, forKey: "i1") }
            best = min(best, try measure { try context.performAndWait { try context.save() } })
        }
        return best
    }

    /// The baseline: one `UPDATE` of one row in a transaction on an open raw connection (WAL,
    /// `synchronous=FULL`, as Quire's SQLite store).
    static func rawOneChange(_ url: URL, runs: Int) throws -> Double {
        let connection = try RawSQLite.open(at: url)
        defer { connection.close() }
        return try measure(bestOf: runs) {
            try connection.execute("BEGIN IMMEDIATE; UPDATE ZITEM SET ZI1 = ZI1 + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = 4242; COMMIT")
        }
    }

    // MARK: Save As of a million objects

    /// Makes an SQLite store of the benchmark model holding ten copies of the 100,000 items at `source`
    /// (1,000,000 objects), by SQL on a copy of the file: untimed setup.
    static func makeMillionStore(from source: URL, at url: URL) throws {
        StoreBench.removeStore(url)
        try FileManager.default.copyItem(at: source, to: url)
        var sql = "BEGIN;"
        for copy in 1..<10 {
            sql += """
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG, ZOWNER)
                SELECT Z_PK + \(copy * BenchData.rowCount), Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG, ZOWNER
                FROM ZITEM WHERE Z_PK <= \(BenchData.rowCount);
                """
        }
        sql += "UPDATE Z_PRIMARYKEY SET Z_MAX = \(10 * BenchData.rowCount) WHERE Z_ENT = 1; COMMIT;"
        try RawSQLite.execute(sql, at: url)
    }

    /// One Save As of the store at `source` into a new store of `type`: the time and the peak resident
    /// memory while it ran (the stack is opened before the clock starts and closed after it stops).
    static func saveAs(_ source: URL, to target: URL, type: StoreType) throws -> (milliseconds: Double, peakBytes: Int) {
        StoreBench.removeStore(target)
        try? FileManager.default.removeItem(at: target)
        let (coordinator, _) = try StoreBench.openStack(source, type: .sqlite)
        guard let store = coordinator.persistentStores.first else { return (0, 0) }
        PeakMemory.resetPeak()
        let elapsed = try measure { _ = try coordinator.migratePersistentStore(store, to: target, type: type) }
        let peak = PeakMemory.peakBytes()
        for attached in coordinator.persistentStores { try coordinator.remove(attached) }
        return (elapsed, peak)
    }

    /// The baseline of Save As between SQLite stores: copying the file.
    static func copyFile(_ source: URL, to target: URL, runs: Int) throws -> Double {
        try measure(bestOf: runs, setUp: { try? FileManager.default.removeItem(at: target) }) {
            try FileManager.default.copyItem(at: source, to: target)
        }
    }
}

extension SaveBench {
    static let storeTypes: [(type: StoreType, name: String, fileExtension: String)] = [
        (.sqlite, "sqlite", "sqlite"), (.binary, "binary", "quire"), (.xml, "xml", "xml"),
    ]

    /// The rows this file adds, those that ``wanted(_:)`` asks for.
    @MainActor
    static func rows(folder: URL, rawURL: URL, sqliteURL: URL, binaryURL: URL, xmlURL: URL, runs: Int) throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        let changeRuns = max(runs, 5)
        if storeTypes.contains(where: { wanted("save-one-change-100k-\($0.name)") }) {
            let raw = try rawOneChange(rawURL, runs: changeRuns)
            let sqlite = try saveOneChange(sqliteURL, type: .sqlite, runs: changeRuns)
            if wanted("save-one-change-100k-sqlite") {
                rows.append(BenchmarkRow(
                    name: "save-one-change-100k-sqlite", quireMilliseconds: sqlite, baselineMilliseconds: raw,
                    note: "target ≤ 5 ms; one changed object saved; baseline: one UPDATE in a transaction"))
            }
            for (type, url, name) in [(StoreType.binary, binaryURL, "binary"), (.xml, xmlURL, "xml")] where wanted("save-one-change-100k-\(name)") {
                if !FileManager.default.fileExists(atPath: url.path) { _ = try StoreBench.save(url, type: type, runs: 1) }
                let time = try saveOneChange(url, type: type, runs: changeRuns)
                rows.append(BenchmarkRow(
                    name: "save-one-change-100k-\(name)", quireMilliseconds: time, baselineMilliseconds: sqlite,
                    target: type == .binary ? 10 : nil,
                    note: type == .binary
                        ? "appended to the change log; baseline: the same save into the SQLite store"
                        : "the XML store rewrites its file whole, as Core Data's does; baseline: the SQLite store"))
            }
        }
        if storeTypes.contains(where: { wanted("save-as-1m-\($0.name)") }) {
            let million = folder.appendingPathComponent("million.sqlite")
            try makeMillionStore(from: sqliteURL, at: million)
            defer { StoreBench.removeStore(million) }
            let copyTarget = folder.appendingPathComponent("million-copy.sqlite")
            let copy = try copyFile(million, to: copyTarget, runs: runs)
            try? FileManager.default.removeItem(at: copyTarget)
            for (type, name, fileExtension) in storeTypes where wanted("save-as-1m-\(name)") {
                let target = folder.appendingPathComponent("million-saved.\(fileExtension)")
                let (time, peak) = try saveAs(million, to: target, type: type)
                StoreBench.removeStore(target)
                try? FileManager.default.removeItem(at: target)
                rows.append(BenchmarkRow(
                    name: "save-as-1m-\(name)", quireMilliseconds: time, baselineMilliseconds: copy, target: type == .sqlite ? 2 : nil,
                    note: "peak RSS \(peak / 1_000_000) MB (target ≤ 300 MB); 1,000,000 objects from SQLite; baseline: copying the SQLite file"))
            }
        }
        return rows
    }
}
