import CQuireSupport
import Foundation
import Quire
import QuireCore
import QuireStores
import QuireTestSupport

/// The scale rows of issue 15 this file owns: many documents in one process (memory must come back), and a
/// sorted fetch while the context has an unsaved change.
enum DocumentScaleBench {
    /// `documents-10k`: 10,000 times, a small store is opened the way `quire dump` opens a document
    /// (``ObjectGraphDump``: the model read from the store, a coordinator, the store added read-only, every
    /// object and value read, the store removed), cycling through 10 store files of 20 items; the baseline
    /// opens the same files with raw SQLite, reads every row into structs and closes them. The note gives the
    /// resident memory's growth from document 1,000 to document 10,000 (target ≤ 1 MB).
    static func documents(in folder: URL, count: Int = 10_000) throws -> BenchmarkRow {
        let model = benchModel()
        var urls: [URL] = []
        for index in 0..<10 {
            let url = folder.appendingPathComponent("document-\(index).sqlite")
            StoreBench.removeStore(url)
            let (coordinator, context) = try StoreBench.openStack(url, type: .sqlite, model: model)
            StoreBench.fill(context, coordinator, count: 20)
            try context.performAndWait { try context.save() }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            urls.append(url)
        }
        defer { for url in urls { StoreBench.removeStore(url) } }
        var rssAtThousand = 0
        var objects = 0
        let quire = try measure {
            for index in 0..<count {
                if index == 1_000 { rssAtThousand = PeakMemory.residentBytes() }
                objects += try ObjectGraphDump(storeAt: urls[index % urls.count], type: .sqlite).objects.count
            }
        }
        let growth = PeakMemory.residentBytes() - rssAtThousand
        precondition(objects == count * 20, "read \(objects) objects")
        let raw = try measure {
            for index in 0..<count { _ = try RawSQLite.fetchAll(at: urls[index % urls.count]) }
        }
        return BenchmarkRow(
            name: "documents-10k", quireMilliseconds: quire, baselineMilliseconds: raw,
            note: String(
                format: "RSS growth after the first 1,000: %.2f MB (target ≤ 1 MB); ObjectGraphDump of 20-item stores; "
                    + "stores alive after: %d, models alive after: %d",
                Double(growth) / 1_048_576, StoreHandles.shared.liveCount, ManagedObjectModel.liveCount))
    }

    /// `documents-10k-own-models`: 10,000 documents, each opened with the model read from it (or from the model
    /// file beside it) through one of the public ways to get a model (``ModelPerDocument``), in turn: document `i`
    /// through entry point `i % 10`. The note gives the heap's growth per document from document 1,000 to 10,000
    /// (glibc's bytes in use; target ≤ 200) and the models still alive after. The compiled-model entry points read
    /// the documents' model as Quire compiles it (`.mom`, model cache). The baseline opens the same SQLite files
    /// with raw SQLite.
    static func documentsWithOwnModels(in folder: URL, count: Int = 10_000) throws -> BenchmarkRow {
        let root = folder.appendingPathComponent("own-models")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        var sets: [ModelPerDocument] = []
        for entryPoint in ModelPerDocument.EntryPoint.allCases {
            let place = root.appendingPathComponent(entryPoint.rawValue)
            try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
            sets.append(try ModelPerDocument(folder: place, entryPoint: entryPoint))
        }
        var heapAtThousand = 0
        var modelsAtThousand = 0
        var objects = 0
        let quire = try measure {
            for index in 0..<count {
                if index == 1_000 {
                    heapAtThousand = quire_heap_bytes_in_use()
                    modelsAtThousand = ManagedObjectModel.liveCount
                }
                objects += try sets[index % sets.count].open(index / sets.count)
            }
        }
        let growth = Double(quire_heap_bytes_in_use() - heapAtThousand) / Double(count - 1_000)
        let sqliteFiles = sets.filter { $0.entryPoint != .persistentDocument && $0.entryPoint != .embeddedXML && $0.entryPoint != .embeddedBinary }
            .flatMap(\.documents)
        let raw = try measure {
            for index in 0..<count { _ = try RawSQLite.readEveryTable(at: sqliteFiles[index % sqliteFiles.count]) }
        }
        return BenchmarkRow(
            name: "documents-10k-own-models", quireMilliseconds: quire, baselineMilliseconds: raw,
            note: String(
                format: "heap growth after the first 1,000: %.0f bytes a document (target ≤ 200); %d entry points in turn, "
                    + "%d objects read; models alive after: %d (at document 1,000: %d)",
                growth, sets.count, objects, ManagedObjectModel.liveCount, modelsAtThousand))
    }

    /// `fetch-sorted-with-pending-change`: 10 fetches of the 10 items with the largest `d1` (sorted, limit 10)
    /// from the 100,000-item store while the context has an inserted `Owner` and an updated `Item`, against the
    /// same fetches with no change.
    static func fetchSortedWithPendingChange(at url: URL, runs: Int) throws -> BenchmarkRow {
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("d1", ascending: false)]
        request.fetchLimit = 10
        func fetchTen() throws -> [ManagedObject] {
            var last: [ManagedObject] = []
            for _ in 0..<10 { last = try context.fetch(request) }
            return last
        }
        var clean: [ManagedObject] = []
        let without = try measure(bestOf: runs) { clean = try context.performAndWait { try fetchTen() } }
        var changed: [ManagedObject] = []
        context.performAndWait {
            guard let owner = coordinator.managedObjectModel.entitiesByName["Owner"] else { return }
            ManagedObject(entity: owner, insertInto: context).setValue("new owner", forKey: "name")
            // The top item moves to the end of the order: the merged answer must leave it out.
            clean.first?.setValue(-1.0, forKey: "d1")
        }
        let with = try measure(bestOf: runs) { changed = try context.performAndWait { try fetchTen() } }
        context.performAndWait { context.fetchesPendingChangesThroughStore = false }
        var inMemory: [ManagedObject] = []
        let wholly = try measure(bestOf: 1) { inMemory = try context.performAndWait { try fetchTen() } }
        context.performAndWait { context.fetchesPendingChangesThroughStore = true }
        let moved = clean.first
        let values = changed.map { $0.value(forKey: "d1") as? Double ?? .nan }
        var check = "answer checked: the moved item left out, the rest in order"
        if changed.count != 10 || changed.contains(where: { $0 === moved }) || values != values.sorted(by: >) {
            check = "ANSWER CHECK FAILED: d1 \(values)"
            FileHandle.standardError.write(Data((check + "\n").utf8))
        }
        if inMemory.map(\.objectID) != changed.map(\.objectID) {
            check += "; the wholly in-memory pass differs (d1 \(inMemory.map { $0.value(forKey: "d1") as? Double ?? .nan }))"
        }
        context.performAndWait { context.rollback() }
        return BenchmarkRow(
            name: "fetch-sorted-with-pending-change", quireMilliseconds: with, baselineMilliseconds: without, target: 1.5,
            note: String(
                format: "10 fetches sorted by d1, limit 10, with an inserted Owner and an updated Item (wholly in memory: %.0f ms); "
                    + "baseline: the same fetches with no change; %@", wholly, check))
    }
}
