import Foundation
import Quire
import QuireCore
import QuireStores

#if canImport(Glibc)
import Glibc
#endif

/// The rows of an atomic store's memory: the resident memory a binary or XML store of the benchmark's
/// 100,000 items holds once attached (records packed, see `AtomicRecordTable`), against its file's size.
enum AtomicMemoryBench {
    /// glibc's `malloc_trim(0)` (hands freed heap memory back to the system), looked up at run time: the Glibc
    /// module does not import `malloc.h`.
    static func trimHeap() {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// The resident bytes an attached store of `type` at `url` adds to the process (opened, its items counted,
    /// freed memory handed back to the system before and after), and the bytes its record table holds.
    static func residentBytes(_ url: URL, type: StoreType) throws -> (resident: Int, packed: Int) {
        trimHeap()
        let before = PeakMemory.residentBytes()
        let (coordinator, context) = try StoreBench.openStack(url, type: type)
        let count = try context.count(for: FetchRequest<ManagedObject>(entityName: "Item"))
        precondition(count == BenchData.rowCount, "loaded \(count) items")
        trimHeap()
        let after = PeakMemory.residentBytes()
        let packed = (coordinator.persistentStores.first?.backend as? AtomicStore)?.nodes.packedSize ?? 0
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return (after - before, packed)
    }

    /// `atomic-records-100k-binary` and `-xml`: resident megabytes (the "quire" column) against the file's
    /// megabytes (the "baseline" column); the target is a ratio of 2.
    static func rows(binaryURL: URL, xmlURL: URL) throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for (type, url, name) in [(StoreType.binary, binaryURL, "binary"), (.xml, xmlURL, "xml")] where wanted("atomic-records-100k-\(name)") {
            if !FileManager.default.fileExists(atPath: url.path) { _ = try StoreBench.save(url, type: type, runs: 1) }
            let fileSize = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 1
            let (resident, packed) = try residentBytes(url, type: type)
            rows.append(BenchmarkRow(
                name: "atomic-records-100k-\(name)", quireMilliseconds: Double(resident) / 1_000_000,
                baselineMilliseconds: Double(fileSize) / 1_000_000, target: 2,
                note: "columns in MB, not ms: resident memory of the attached store / file size; "
                    + "record table \(packed / 1_000_000) MB (\(packed / BenchData.rowCount) bytes a record)"))
        }
        return rows
    }
}
