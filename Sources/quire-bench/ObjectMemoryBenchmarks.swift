import CQuireSupport
import Foundation
import Quire

/// object-bytes-100k: what one object of the benchmark's Item entity holds, counted as heap block sizes
/// rather than resident memory (which depends on how much freed heap earlier rows left to reuse, see
/// `faults-1m-memory`): glibc's bytes in allocated blocks (`mallinfo2().uordblks`) before and after, divided
/// by the number of objects, for 100,000 faults, the same objects after reading every value (fired faults),
/// and 100,000 objects fetched fully materialized. The baseline is the raw side's array of structs counted
/// the same way. Times are the fault fetch's against the raw fetch's.
enum ObjectMemoryBench {
    /// Bytes in glibc's allocated blocks (their sizes, headers included), or 0 where that is not available.
    static func allocatedBytes() -> Int { quire_heap_bytes_in_use() }

    /// Bytes per object: faults, the same objects fired (every value read), materialized objects.
    static func bytesPerObject(at url: URL) throws -> (fault: Double, fired: Double, materialized: Double) {
        let (coordinator, context) = try openStack(url)
        defer { try? closeStack(coordinator) }
        return try context.performAndWait {
            let start = allocatedBytes()
            let faults = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            let count = Double(max(faults.count, 1))
            let fault = Double(allocatedBytes() - start) / count
            let read = faults.reduce(0) { $0 &+ readEveryValue(of: $1) }
            precondition(read != 0, "read no values")
            let fired = Double(allocatedBytes() - start) / count
            withExtendedLifetime(faults) {}
            context.reset()
            let before = allocatedBytes()
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            let materialized = Double(allocatedBytes() - before) / count
            withExtendedLifetime(objects) {}
            return (fault, fired, materialized)
        }
    }

    /// The row, measured on the 100,000-item stores.
    static func row(quireURL: URL, rawURL: URL, runs: Int) throws -> BenchmarkRow {
        let rawBefore = allocatedBytes()
        let rawRows = try RawSQLite.fetchAll(at: rawURL)
        let raw = Double(allocatedBytes() - rawBefore) / Double(max(rawRows.count, 1))
        withExtendedLifetime(rawRows) {}
        let bytes = try bytesPerObject(at: quireURL)
        let rawTime = try measureIncludingFreeing(bestOf: runs) { try RawSQLite.fetchAll(at: rawURL) }
        let quireTime = try measureIncludingFreeing(bestOf: runs) { () -> (ManagedObjectContext, [ManagedObject]) in
            let (coordinator, context) = try openStack(quireURL)
            let faults = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            try closeStack(coordinator)
            return (context, faults)
        }
        let note = String(
            format: "heap bytes per object: fault %.0f (≤ 400), fired %.0f (≤ 600), materialized %.0f; raw row %.0f",
            bytes.fault, bytes.fired, bytes.materialized, raw)
        return BenchmarkRow(name: "object-bytes-100k", quireMilliseconds: quireTime, baselineMilliseconds: rawTime, note: note)
    }
}
