import CSQLite
import Foundation
import Quire
import QuireCore
import QuireStores

#if canImport(Glibc)
import Glibc
#endif

// Scale rows (issue 15): a million objects. They run only when named (`--only NAME`) or with `--scale`: each
// takes from seconds to minutes.

/// The scale rows: importing a million related objects in batches, iterating a million objects, and the
/// memory a million faults hold.
enum ScaleBench {
    /// How many objects the scale rows make.
    static let objectCount = 1_000_000
    /// How many objects one import batch holds (the context is reset between batches).
    static let batchSize = 10_000

    /// The page cache of import-1m-related's saves, on both sides: Quire's default
    /// (``StoreOptions/largeSaveCacheSize``), or `QUIRE_BENCH_SAVE_CACHE_MB` megabytes (0: SQLite's default 2 MB).
    static let saveCacheSize: Int = {
        guard let text = ProcessInfo.processInfo.environment["QUIRE_BENCH_SAVE_CACHE_MB"], let megabytes = Int(text)
        else { return StoreOptions().largeSaveCacheSize }
        return max(0, megabytes) * 1_048_576
    }()

    /// How large import-1m-related's saves let the write-ahead log grow before checkpointing, on both sides:
    /// Quire's default (``StoreOptions/largeSaveWALSize``), or `QUIRE_BENCH_SAVE_WAL_MB` megabytes (0: SQLite's
    /// 1,000 pages).
    static let saveLogSize: Int = {
        guard let text = ProcessInfo.processInfo.environment["QUIRE_BENCH_SAVE_WAL_MB"], let megabytes = Int(text)
        else { return StoreOptions().largeSaveWALSize }
        return max(0, megabytes) * 1_048_576
    }()

    /// The batch's rows, generated before its clock starts.
    static func rows(ofBatch batch: Int) -> [BenchRow] {
        (batch * batchSize..<(batch + 1) * batchSize).map(BenchData.row)
    }

    /// import-1m-related through Quire: ``BenchData/ownerCount`` owners saved first, then ``objectCount`` items
    /// in batches of ``batchSize``, each item's `owner` set to owner `index % 1000` (fetched by the batch, as an
    /// importer looks its owners up), saved, and the context reset. Returns each batch's milliseconds.
    static func quireImportRelated(at url: URL) throws -> [Double] {
        try RawSQLite.removeStore(at: url)
        var options = StoreOptions()
        options.largeSaveCacheSize = saveCacheSize
        options.largeSaveWALSize = saveLogSize
        if ProcessInfo.processInfo.environment["QUIRE_BENCH_KEEP_CACHE"] != nil, saveCacheSize > 0 {
            // The cache kept between saves too (a `cache_size` pragma of the store's), for comparison.
            options.sqlitePragmas["cache_size"] = "-\(saveCacheSize / 1024)"
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: benchModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
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
        let connection = (coordinator.persistentStores.first?.backend as? SQLiteStore)?.connection
        var counters = connection?.cacheCounters ?? (hits: 0, misses: 0, writes: 0, spills: 0)
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
                // SQLite's page cache during the batch: pages read (not in the cache), written, spilled.
                let now = connection?.cacheCounters ?? (hits: 0, misses: 0, writes: 0, spills: 0)
                FileHandle.standardError.write(Data(String(
                    format: "batch %d: %.1f ms (owners %.1f, insert %.1f, save %.1f, reset %.1f; pages read %d, written %d, spilled %d)\n",
                    batch, times.last ?? 0, split[0], split[1], split[2], split[3],
                    now.misses - counters.misses, now.writes - counters.writes, now.spills - counters.spills).utf8))
                counters = now
            }
        }
        return times
    }

    /// import-1m-related's baseline: the same owners, then the same rows with `ZOWNER` set, one transaction per
    /// batch (as each Quire save is one), through one prepared INSERT, on one connection kept open as Quire's
    /// store keeps its own, with the page cache and checkpoint interval Quire's large saves get. Returns the
    /// owners' and each batch's milliseconds.
    static func rawImportRelated(at url: URL) throws -> (owners: Double, batches: [Double]) {
        let owners = try measure { try RawSQLite.insertOwners(at: url) }
        let connection = try RawConnection(url: url, create: false)
        defer { connection.close() }
        var batches: [Double] = []
        for batch in 0..<objectCount / batchSize {
            let rows = rows(ofBatch: batch)
            batches.append(try measure {
                try RawSQLite.insert(
                    rows, into: connection, owners: BenchData.ownerCount, cacheBytes: saveCacheSize, logBytes: saveLogSize)
            })
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
        probeMemory("before the ID fetch")
        let items = try context.fetchBatched(request)
        probeMemory("after the ID fetch")
        var count = 0
        var checksum = 0
        context.performAndWait {
            for item in items {
                checksum &+= readEveryValue(of: item)
                count += 1
                if count % 200_000 == 0 { probeMemory("\(count) read") }
            }
        }
        probeMemory("all read")
        withExtendedLifetime(checksum) {}
        return count
    }

    /// With `QUIRE_BENCH_MEMORY` set, prints the resident set, its peak and glibc's `malloc_stats()`.
    static func probeMemory(_ label: String) {
        guard ProcessInfo.processInfo.environment["QUIRE_BENCH_MEMORY"] != nil else { return }
        FileHandle.standardError.write(Data(String(
            format: "[memory] %@: resident %.1f MB, peak %.1f MB\n", label,
            Double(PeakMemory.residentBytes()) / 1_048_576, Double(PeakMemory.peakBytes()) / 1_048_576).utf8))
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_stats") {
            typealias Stats = @convention(c) () -> Void
            unsafeBitCast(symbol, to: Stats.self)()
        }
    }

    /// faults-1m-memory: the bytes one fault holds, from the resident set before and after fetching every item
    /// as a fault (the default), the objects kept. The baseline is the raw side's array of rows read the same way.
    ///
    /// The heap is trimmed before each side is measured: memory the process freed before (the import's, when the
    /// row runs alone) stays resident otherwise, and allocations reusing it do not grow the resident set.
    static func bytesPerFault(at url: URL) throws -> (quire: Double, raw: Double) {
        AtomicMemoryBench.trimHeap()
        let rawBefore = PeakMemory.residentBytes()
        var rows: [BenchRow]? = try RawSQLite.fetchAll(at: url)
        let raw = Double(PeakMemory.residentBytes() - rawBefore) / Double(rows?.count ?? 1)
        rows = nil
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        AtomicMemoryBench.trimHeap()
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
                    format: "batches of 10k (medians of the first and last 5): first %.0f ms, last %.0f ms (last/first %.2f, target ≤ 1.5), slowest of the last 10 %.0f ms, mean of the last 10 %.0f ms; raw: first %.0f ms, last %.0f ms (%.2f), slowest of the last 10 %.0f ms; save cache %d MB, log %d MB before a checkpoint, on both sides",
                    first, last, first > 0 ? last / first : 0, batches.suffix(10).max() ?? 0,
                    batches.suffix(10).reduce(0, +) / Double(max(1, batches.suffix(10).count)),
                    rawFirst, rawLast, rawFirst > 0 ? rawLast / rawFirst : 0, raw.batches.suffix(10).max() ?? 0,
                    saveCacheSize / 1_048_576, saveLogSize / 1_048_576)))
        }
        if wanted("iterate-1m") {
            let rawTime = try measure { _ = try RawSQLite.readAll(at: rawURL) }
            // The row's peak is its own: the heap the imports freed is handed back to the system first (glibc
            // keeps freed memory resident; the import leaves about 115 MB of it), then the peak starts afresh.
            let untrimmed = Double(PeakMemory.residentBytes()) / 1_048_576
            probeMemory("before iterate-1m")
            // `QUIRE_BENCH_NO_TRIM=1` leaves the heap as the import left it, to compare.
            if ProcessInfo.processInfo.environment["QUIRE_BENCH_NO_TRIM"] == nil { AtomicMemoryBench.trimHeap() }
            let start = Double(PeakMemory.residentBytes()) / 1_048_576
            probeMemory("trimmed")
            _ = PeakMemory.takePeakMegabytes()
            var count = 0
            let time = try measure { count = try quireIterate(at: url) }
            let peak = PeakMemory.takePeakMegabytes()
            rows.append(BenchmarkRow(
                name: "iterate-1m", quireMilliseconds: time, baselineMilliseconds: rawTime,
                note: String(
                    format: "%d objects, batches of 1,000, every value read; Quire's peak %.0f MB (target ≤ 150), from %.0f MB resident at the start (%.0f before the freed heap was trimmed)",
                    count, peak, start, untrimmed),
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
