import Foundation
import Quire

/// The benchmark's Item as a typed subclass, read as an application that declares its classes reads it.
final class TypedBenchItem: ManagedObject {
    @Managed("i1") var i1: Int64
    @Managed("i2") var i2: Int64
    @Managed("d1") var d1: Double
    @Managed("d2") var d2: Double
    @Managed("s1") var s1: String
    @Managed("s2") var s2: String
    @Managed("s3") var s3: String
    @Managed("flag") var flag: Bool
    @Managed("date") var date: Date
    @Managed("blob") var blob: Data
    @Managed("tag") var tag: Int64
}

/// `fetch-all-100k-typed`: `fetch-all-100k` with every value read through `@Managed` properties of a subclass
/// instead of `value(forKey:)`, against the same baseline.
enum TypedReadBench {
    /// Reads every value of a typed item; returns a number that depends on every value.
    static func readEveryValue(of item: TypedBenchItem) -> Int {
        var sum = Int(truncatingIfNeeded: item.i1) &+ Int(truncatingIfNeeded: item.i2)
        sum &+= Int(item.d1.bitPattern & 0xFF) &+ Int(item.d2.bitPattern & 0xFF)
        sum &+= item.s1.utf8.count &+ item.s2.utf8.count &+ item.s3.utf8.count
        sum &+= item.flag ? 1 : 0
        sum &+= Int(item.date.timeIntervalSinceReferenceDate) & 0xFF
        sum &+= item.blob.count &+ Int(truncatingIfNeeded: item.tag)
        return sum | 1
    }

    /// Fetches every item materialized through a model whose Item class is ``TypedBenchItem`` and reads every
    /// value; the objects and context are returned to be freed inside the timing.
    static func fetchAll(at url: URL) throws -> (ManagedObjectContext, [TypedBenchItem]) {
        let model = benchModel()
        model.entitiesByName["Item"]?.managedObjectClass = TypedBenchItem.self
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let request = FetchRequest<TypedBenchItem>(entityName: "Item")
        request.returnsObjectsAsFaults = false
        let items = try context.fetch(request)
        let read = context.performAndWait { items.reduce(0) { $0 &+ readEveryValue(of: $1) } }
        precondition(read != 0 && items.count == BenchData.rowCount, "read no values")
        try closeStack(coordinator)
        return (context, items)
    }

    /// The row, against `fetch-all-100k`'s baseline measured again in the same run.
    static func row(quireURL: URL, rawURL: URL, runs: Int) throws -> BenchmarkRow {
        let raw = try measureIncludingFreeing(bestOf: runs) { try RawSQLite.fetchAll(at: rawURL) }
        let quire = try measureIncludingFreeing(bestOf: runs) { try fetchAll(at: quireURL) }
        return BenchmarkRow(
            name: "fetch-all-100k-typed", quireMilliseconds: quire, baselineMilliseconds: raw, target: 1.3,
            note: "every value read through @Managed properties of a subclass")
    }
}
