import Quire
import QuireCore
import QuireStores

/// Inserts `count` objects of the benchmark's Item entity with the values of ``BenchData/row(_:)``, through
/// key-value access as an application would. Call it on the context's queue.
func insertBenchItems(into context: ManagedObjectContext, entity: EntityDescription, count: Int = BenchData.rowCount) {
    for index in 0..<count {
        let row = BenchData.row(index)
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
    }
}
