import CSQLite
import Foundation
import Quire
import QuireCore
import QuireStores

// Scale rows (issue 15): a million objects. They run only when named (`--only NAME`) or with `--scale`: each
// takes from seconds to minutes.

/// The scale rows: importing a million related objects in batches, iterating a million objects, and the
/// memory a million faults hold.
enum ScaleBench {
    /// How many objects the scale rows make.
    static let objectCount = 1_000_000
    /// How many objects one import batch holds (the context is reset between batches).
    static let batchSize = 10_000

    /// The batch's rows, generated before its clock starts.
    static func rows(ofBatch batch: Int) -> [BenchRow] {
        (batch * batchSize..<(batch + 1) * batchSize).map(BenchData.row)
    }

    /// import-1m-related through Quire: ``BenchData/ownerCount`` owners saved first, then ``objectCount`` items
    /// in batches of ``batchSize``, each item's `owner` set to owner `index % 1000` (fetched by the batch, as an
    /// importer looks its owners up), saved, and the context reset. Returns each batch's milliseconds.
    static func quireImportRelated(at url: URL) throws -> [Double] {
        try RawSQLite.removeStore(at: url)
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        guard let item = coordinator.managedObjectModel.entitiesByName["Item"],
            let owner = coordinator.managedObjectModel.entitiesByName["Owner"]
        else { return [] }
        try context.performAndWait {
            for index in 1...BenchData.ownerCount {
                ManagedObject(entity: owner, insertInto: context).setValue("owner-\(index)", forKey: "name")
            }
            try context.save()
            context.reset()
        }
        var times: [Double] = []
        let phases = ProcessInfo.processInfo.environment["QUIRE_BENCH_PHASES"] != nil
        for batch in 0..<objectCount / batchSize {
            let rows = rows(ofBatch: batch)
            var split: [Double] = []
            try times.append(measure {
                try context.performAndWait {
                    var owners: [ManagedObject] = []
                    try split.append(measure {
                        let request = FetchRequest<ManagedObject>(entityName: "Owner")
                        owners = try context.fetch(request)
                    })
                    split.append(measure {
                        insertBenchItems(into: context, entity: item, rows: rows) { index, object in
                            object.setValue(owners[index % owners.count], forKey: "owner")
                        }
                    })
                    try split.append(measure { try context.save() })
                    split.append(measure { context.reset() })
                }
            })
            if phases {
                FileHandle.standardError.write(Data(String(
                    format: "batch %d: %.1f ms (owners %.1f, insert %.1f, save %.1f, reset %.1f)\n", batch, times.last ?? 0,
                    split[0], split[1], split[2], split[3]).utf8))
            }
        }
        return times
    }

    /// import-1m-related's baseline: the same owners, then the same rows with `ZOWNER` set, one transaction per
    /// batch (as each Quire save is one), through one prepared INSERT. Returns the total milliseconds.
    static func rawImportRelated(at url: URL) throws -> (owners: Double, batches: [Double]) {
        let owners = try measure { try RawSQLite.insertOwners(at: url) }
        var batches: [Double] = []
        for batch in 0..<objectCount / batchSize {
            let rows = rows(ofBatch: batch)
            batches.append(try measure { try RawSQLite.insert(rows, at: url, owners: BenchData.ownerCount) })
        }
        return (owners, batches)
    }

    /// iterate-1m through Quire: a batched fetch (``FetchRequest/fetchBatchSize`` 1,000) of every item, reading
    /// every value of every object. Returns how many objects were read.
    static func quireIterate(at url: URL) throws -> Int {
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.fetchBatchSize = 1_000
        let items = try context.fetchBatched(request)
        var count = 0
        var checksum = 0
        context.performAndWait {
            for item in items {
                checksum &+= readEveryValue(of: item)
                count += 1
            }
        }
        withExtendedLifetime(checksum) {}
        return count
    }

    /// faults-1m-memory: the bytes one fault holds, from the resident set before and after fetching every item
    /// as a fault (the default), the objects kept. The baseline is the raw side's array of rows read the same way.
    static func bytesPerFault(at url: URL) throws -> (quire: Double, raw: Double) {
        let rawBefore = PeakMemory.residentBytes()
        var rows: [BenchRow]? = try RawSQLite.fetchAll(at: url)
        let raw = Double(PeakMemory.residentBytes() - rawBefore) / Double(rows?.count ?? 1)
        rows = nil
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        let before = PeakMemory.residentBytes()
        let faults = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        let quire = Double(PeakMemory.residentBytes() - before) / Double(faults.count)
        withExtendedLifetime(faults) {}
        return (quire, raw)
    }

    /// The scale rows `wanted` names, in order: import-1m-related (which writes the store the others read),
    /// iterate-1m and faults-1m-memory. Empty when none is wanted.
    static func rows(in folder: URL, wanted: (String) -> Bool) throws -> [BenchmarkRow] {
        let names = ["import-1m-related", "iterate-1m", "faults-1m-memory"]
        guard names.contains(where: wanted) else { return [] }
        let url = folder.appendingPathComponent("million.sqlite")
        let rawURL = folder.appendingPathComponent("million-raw.sqlite")
        defer { try? RawSQLite.removeStore(at: url); try? RawSQLite.removeStore(at: rawURL) }
        var rows: [BenchmarkRow] = []
        _ = PeakMemory.takePeakMegabytes()
        let raw = try rawImportRelated(at: rawURL)
        let batches = try quireImportRelated(at: url)
        // The median of the first five and of the last five batches: one batch alone is at the mercy of the
        // machine's other work.
        func median(_ times: ArraySlice<Double>) -> Double {
            let sorted = times.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        let first = median(batches.prefix(5)), last = median(batches.suffix(5))
        let rawFirst = median(raw.batches.prefix(5)), rawLast = median(raw.batches.suffix(5))
        if wanted("import-1m-related") {
            rows.append(BenchmarkRow(
                name: "import-1m-related", quireMilliseconds: batches.reduce(0, +),
                baselineMilliseconds: raw.owners + raw.batches.reduce(0, +), target: 2,
                note: String(
                    format: "batches of 10k (medians of the first and last 5): first %.0f ms, last %.0f ms (last/first %.2f, target ≤ 1.5); raw: first %.0f ms, last %.0f ms (%.2f)",
                    first, last, first > 0 ? last / first : 0, rawFirst, rawLast, rawFirst > 0 ? rawLast / rawFirst : 0)))
        }
        if wanted("iterate-1m") {
            let rawTime = try measure { _ = try RawSQLite.readAll(at: rawURL) }
            _ = PeakMemory.takePeakMegabytes()
            var count = 0
            let time = try measure { count = try quireIterate(at: url) }
            let peak = PeakMemory.takePeakMegabytes()
            rows.append(BenchmarkRow(
                name: "iterate-1m", quireMilliseconds: time, baselineMilliseconds: rawTime,
                note: String(format: "%d objects, batches of 1,000, every value read; Quire's peak %.0f MB (target ≤ 150)", count, peak),
                peakMegabytes: peak))
        }
        if wanted("faults-1m-memory") {
            let (quire, raw) = try bytesPerFault(at: url)
            rows.append(BenchmarkRow(
                name: "faults-1m-memory", quireMilliseconds: quire, baselineMilliseconds: raw,
                note: "bytes per object, not ms: a fault (target ≤ 400) against a row of the raw side's array of structs"))
        }
        return rows
    }
}
