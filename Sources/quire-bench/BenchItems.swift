import Foundation
import Quire
import QuireCore
import QuireStores

/// The keys of the benchmark's Item attributes, in ``BenchRow`` order.
let benchItemKeys = ["i1", "i2", "d1", "d2", "s1", "s2", "s3", "flag", "date", "blob", "tag"]

/// Inserts `count` objects of the benchmark's Item entity with the values of ``BenchData/row(_:)``, through
/// key-value access as an application would. Call it on the context's queue.
func insertBenchItems(into context: ManagedObjectContext, entity: EntityDescription, count: Int = BenchData.rowCount) {
    insertBenchItems(into: context, entity: entity, rows: (0..<count).map(BenchData.row))
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
/// object would; returns a number that depends on every value, so nothing is optimised away.
func readEveryValue(of item: ManagedObject) -> Int {
    var sum = 0
    for key in benchItemKeys {
        switch item.value(forKey: key) {
        case let value as Int64: sum &+= Int(truncatingIfNeeded: value)
        case let value as Double: sum &+= Int(value.bitPattern & 0xFF)
        case let value as String: sum &+= value.utf8.count
        case let value as Bool: sum &+= value ? 1 : 0
        case let value as Date: sum &+= Int(value.timeIntervalSinceReferenceDate) & 0xFF
        case let value as Data: sum &+= value.count
        default: break
        }
    }
    return sum | 1
}
