import Foundation
import Quire

// quire-bench: Quire's speed against raw SQLite, measured in the same run on the same data.
//   swift run -c release quire-bench [--json] [--runs N]

let arguments = CommandLine.arguments.dropFirst()
let asJSON = arguments.contains("--json")
var runs = 3
/// `--only NAME`: run one row (and what it needs), for profiling.
let only: String? = arguments.firstIndex(of: "--only").flatMap { flag in
    let next = arguments.index(after: flag)
    return next < arguments.endIndex ? arguments[next] : nil
}
func wanted(_ name: String) -> Bool { only == nil || only == name }
if let flag = arguments.firstIndex(of: "--runs") {
    let next = arguments.index(after: flag)
    guard next < arguments.endIndex, let value = Int(arguments[next]), (1...100).contains(value) else {
        FileHandle.standardError.write(Data("quire-bench: --runs takes a whole number from 1 to 100.\n".utf8))
        exit(2)
    }
    runs = value
}

/// The benchmark's entity: the 10 attributes of ``BenchRow``.
func benchModel() -> ManagedObjectModel {
    let item = EntityDescription(name: "Item", properties: [
        AttributeDescription(name: "i1", type: .integer64),
        AttributeDescription(name: "i2", type: .integer64),
        AttributeDescription(name: "d1", type: .double),
        AttributeDescription(name: "d2", type: .double),
        AttributeDescription(name: "s1", type: .string),
        AttributeDescription(name: "s2", type: .string),
        AttributeDescription(name: "s3", type: .string),
        AttributeDescription(name: "flag", type: .boolean),
        AttributeDescription(name: "date", type: .date),
        AttributeDescription(name: "blob", type: .binaryData),
    ])
    return ManagedObjectModel(entities: [item])
}

/// Opens a Quire stack on a store file.
func openStack(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
    let coordinator = try PersistentStoreCoordinator(managedObjectModel: benchModel())
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    let context = ManagedObjectContext()
    context.persistentStoreCoordinator = coordinator
    return (coordinator, context)
}

func closeStack(_ coordinator: PersistentStoreCoordinator) throws {
    for store in coordinator.persistentStores { try coordinator.remove(store) }
}

/// Inserts and saves the 100,000 rows through Quire, opening and closing the stack as the baseline does.
func quireInsert(at url: URL) throws {
    try RawSQLite.removeStore(at: url)
    let (coordinator, context) = try openStack(url)
    guard let entity = coordinator.managedObjectModel.entitiesByName["Item"] else { return }
    try context.performAndWait {
        for index in 0..<BenchData.rowCount {
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
        }
        try context.save()
    }
    try closeStack(coordinator)
}

/// Fetches every object fully materialized.
func quireFetchAll(at url: URL) throws -> Int {
    let (coordinator, context) = try openStack(url)
    let request = FetchRequest<ManagedObject>(entityName: "Item")
    request.returnsObjectsAsFaults = false
    let count = try context.fetch(request).count
    try closeStack(coordinator)
    return count
}

let folder = try RawSQLite.temporaryStoreURL().deletingLastPathComponent()
defer { try? FileManager.default.removeItem(at: folder) }
let rawURL = folder.appendingPathComponent("raw.sqlite")
let quireURL = folder.appendingPathComponent("quire.sqlite")
var rows: [BenchmarkRow] = []

// insert-save-100k (always run: the other rows read what it wrote)
let rawInsert = try measure(bestOf: wanted("insert-save-100k") ? runs : 1) { try RawSQLite.insert100k(at: rawURL) }
let quireInsertTime = try measure(bestOf: wanted("insert-save-100k") ? runs : 1) { try quireInsert(at: quireURL) }
if wanted("insert-save-100k") {
    rows.append(BenchmarkRow(name: "insert-save-100k", quireMilliseconds: quireInsertTime, baselineMilliseconds: rawInsert, target: 2))
}

// fetch-all-100k
var fetched = 0
if wanted("fetch-all-100k") {
let rawFetch = try measure(bestOf: runs) { fetched = try RawSQLite.fetchAll(at: rawURL).count }
let quireFetch = try measure(bestOf: runs) { fetched = try quireFetchAll(at: quireURL) }
precondition(fetched == BenchData.rowCount, "fetched \(fetched) objects")
rows.append(BenchmarkRow(name: "fetch-all-100k", quireMilliseconds: quireFetch, baselineMilliseconds: rawFetch, target: 2))
}

// fire-faults-100k: the same shuffled keys, one record at a time.
if wanted("fire-faults-100k") {
let keys = BenchData.primaryKeys(shuffled: true)
let rawFaults = try measure(bestOf: runs) { try RawSQLite.fetchByPrimaryKey(at: rawURL, keys: keys) }
var faultSeconds = Double.infinity
for _ in 0..<runs {
    let (coordinator, context) = try openStack(quireURL)
    guard let store = coordinator.persistentStores.first else { break }
    let ids = keys.compactMap { key in
        URL(string: "x-coredata://\(store.identifier)/Item/p\(key)").flatMap(coordinator.managedObjectID(forURIRepresentation:))
    }
    let faults = ids.map { context.object(with: $0) }
    let elapsed = measure {
        for fault in faults { _ = fault.value(forKey: "i1") }
    }
    precondition(faults.allSatisfy { !$0.isFault }, "a fault did not fire")
    faultSeconds = min(faultSeconds, elapsed)
    try closeStack(coordinator)
}
rows.append(BenchmarkRow(name: "fire-faults-100k", quireMilliseconds: faultSeconds, baselineMilliseconds: rawFaults))
}

let table = BenchmarkTable(rows: rows)
print(asJSON ? try table.json() : table.text())
