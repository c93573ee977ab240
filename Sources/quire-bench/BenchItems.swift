import Foundation
import Quire
import QuireCore
import QuireStores

/// Inserts `count` objects of the benchmark's Item entity with the values of ``BenchData/row(_:)``, through
/// key-value access as an application would. Call it on the context's queue.
func insertBenchItems(into context: ManagedObjectContext, entity: EntityDescription, count: Int = BenchData.rowCount) {
    insertBenchItems(into: context, entity: entity, rows: (0..<count).map(BenchData.row))
}

/// Inserts the benchmark's items into `context`, saves them and closes the coordinator's stores: the timed part
/// of the insert-save rows. Returns the context, for the caller to release after the clock stops (nil when the
/// model has no Item entity).
func insertSaveBenchItems(_ context: ManagedObjectContext, of coordinator: PersistentStoreCoordinator) throws -> ManagedObjectContext? {
    guard let entity = coordinator.managedObjectModel.entitiesByName["Item"] else { return nil }
    try context.performAndWait {
        insertBenchItems(into: context, entity: entity)
        try context.save()
    }
    try closeStack(coordinator)
    return context
}

/// Inserts one Item object per row (generated beforehand, so that timing the insert leaves generating the
/// values out), through key-value access as an application would; `each` runs after each object is filled,
/// with the row's position. Call it on the context's queue.
func insertBenchItems(
    into context: ManagedObjectContext, entity: EntityDescription, rows: [BenchRow],
    each: (Int, ManagedObject) -> Void = { _, _ in }
) {
    for (index, row) in rows.enumerated() {
        let item = ManagedObject(entity: entity, insertInto: context)
        item.setValue(row.i1, forKey: "i1")
        item.setValue(row.i2, forKey: "i2")
        item.setValue(row.d1, forKey: "d1")
        item.setValue(row.d2, forKey: "d2")
        item.setValue(row.s1, forKey: "s1")
        item.setValue(row.s2, forKey: "s2")
        item.setValue(row.s3, forKey: "s3")
        item.setValue(row.flag, forKey: "flag")
        item.setValue(row.date, forKey: "date")
        item.setValue(row.blob, forKey: "blob")
        item.setValue(row.tag, forKey: "tag")
        each(index, item)
    }
}

/// Reads every attribute of a benchmark item (firing it when it is a fault), as an application showing the
/// object would: each value through `value(forKey:)` and cast to its attribute's type, once, as code that knows
/// its model writes it (until 2026-11-24 it tried the six types in turn, up to six casts a value, which an
/// application would not do). Returns a number that depends on every value, so nothing is optimised away.
func readEveryValue(of item: ManagedObject) -> Int {
    var sum = Int(truncatingIfNeeded: item.value(forKey: "i1") as? Int64 ?? 0)
    sum &+= Int(truncatingIfNeeded: item.value(forKey: "i2") as? Int64 ?? 0)
    sum &+= Int(((item.value(forKey: "d1") as? Double) ?? 0).bitPattern & 0xFF)
    sum &+= Int(((item.value(forKey: "d2") as? Double) ?? 0).bitPattern & 0xFF)
    sum &+= (item.value(forKey: "s1") as? String)?.utf8.count ?? 0
    sum &+= (item.value(forKey: "s2") as? String)?.utf8.count ?? 0
    sum &+= (item.value(forKey: "s3") as? String)?.utf8.count ?? 0
    sum &+= (item.value(forKey: "flag") as? Bool) == true ? 1 : 0
    sum &+= Int((item.value(forKey: "date") as? Date)?.timeIntervalSinceReferenceDate ?? 0) & 0xFF
    sum &+= (item.value(forKey: "blob") as? Data)?.count ?? 0
    sum &+= Int(truncatingIfNeeded: item.value(forKey: "tag") as? Int64 ?? 0)
    return sum | 1
}
