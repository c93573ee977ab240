import Foundation
import Quire
import QuireCore
import QuireStores

// quire-bench: Quire's speed against raw SQLite, measured in the same run on the same data.
//   swift run -c release quire-bench [--json] [--runs N] [--only ROW] [--scale] (--help lists the options)

let arguments = CommandLine.arguments.dropFirst()
let usage = """
    USAGE: quire-bench [--json] [--runs N] [--only ROW] [--scale]

    Runs every benchmark row (or only ROW and what it needs) and prints each as Quire's time against raw SQLite
    (or raw libpq) measured in the same run, with peak memory. The rows and their targets: Docs/Benchmarks.md.

    OPTIONS:
      --json        print the rows as JSON
      --runs N      best of N runs per row (1 to 100; default 3)
      --only ROW    run one row, e.g. --only fetch-all-100k
      --scale       also run the long scale rows
      -h, --help    show this help

    """
// Unknown arguments are refused, so a mistyped flag never starts the whole (long) run.
var argumentIndex = arguments.startIndex
while argumentIndex < arguments.endIndex {
    switch arguments[argumentIndex] {
    case "-h", "--help":
        print(usage, terminator: "")
        exit(0)
    case "--json", "--scale": argumentIndex += 1
    case "--runs", "--only": argumentIndex += 2
    default:
        FileHandle.standardError.write(Data("quire-bench: unknown argument '\(arguments[argumentIndex])'.\n\n\(usage)".utf8))
        exit(2)
    }
}
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

/// The benchmark's entities: `Item` with the 11 attributes of ``BenchRow`` (`tag` indexed) and a to-one
/// `owner`, and `Owner` with a `name` and the inverse `items`.
func benchModel() -> ManagedObjectModel {
    let tag = AttributeDescription(name: "tag", type: .integer64)
    tag.isIndexed = true
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
        tag,
        RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
    ])
    let owner = EntityDescription(name: "Owner", properties: [
        AttributeDescription(name: "name", type: .string),
        RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
    ])
    return ManagedObjectModel(entities: [item, owner])
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

/// Inserts and saves the 100,000 rows through Quire, opening and closing the store as the baseline does.
/// Returns the context, whose saved objects the caller releases after the clock stops.
func quireInsert(at url: URL, rows: [BenchRow]) throws -> ManagedObjectContext? {
    try RawSQLite.removeStore(at: url)
    let (coordinator, context) = try openStack(url)
    guard let entity = coordinator.managedObjectModel.entitiesByName["Item"] else { return nil }
    try context.performAndWait {
        insertBenchItems(into: context, entity: entity, rows: rows)
        try context.save()
    }
    try closeStack(coordinator)
    return context
}

/// Fetches every object fully materialized and reads every value of every object (as the baseline reads every
/// column into its structs). Returns the context and the objects, which the caller releases.
func quireFetchAll(at url: URL) throws -> (ManagedObjectContext, [ManagedObject]) {
    let (coordinator, context) = try openStack(url)
    let request = FetchRequest<ManagedObject>(entityName: "Item")
    request.returnsObjectsAsFaults = false
    let objects = try context.fetch(request)
    let read = context.performAndWait { objects.reduce(0) { $0 &+ readEveryValue(of: $1) } }
    precondition(read != 0, "read no values")
    try closeStack(coordinator)
    return (context, objects)
}

/// Times `body` like ``measure(bestOf:_:)``, freeing what it returns inside the timing: each side is timed
/// for its work and for freeing its results (Quire's objects and context, the baseline's array of structs).
func measureIncludingFreeing<T>(bestOf runs: Int, _ body: () throws -> T) rethrows -> Double {
    try measure(bestOf: runs) { _ = try body() }
}

let folder = try RawSQLite.temporaryStoreURL().deletingLastPathComponent()
defer { try? FileManager.default.removeItem(at: folder) }
let rawURL = folder.appendingPathComponent("raw.sqlite")
let quireURL = folder.appendingPathComponent("quire.sqlite")
var rows: [BenchmarkRow] = []

// insert-save-100k (run for every SQLite row: the others read what it wrote); the rows are generated before the
// clocks. A run of PostgreSQL rows alone leaves it out, so their peak memory is not the 100,000 rows' residue.
let needsSQLiteStores = !(only?.hasPrefix("pg-") ?? false)
if needsSQLiteStores {
    var benchRows = (0..<BenchData.rowCount).map(BenchData.row)
    let rawInsert = try measure(bestOf: wanted("insert-save-100k") ? runs : 1) { try RawSQLite.insert(benchRows, at: rawURL) }
    let quireInsertTime = try measureIncludingFreeing(bestOf: wanted("insert-save-100k") ? runs : 1) { try quireInsert(at: quireURL, rows: benchRows) }
    // For comparison only: the raw side inserting as Quire's store does, several rows a statement.
    let batchedURL = folder.appendingPathComponent("raw-batched.sqlite")
    let rawBatchedInsert = wanted("insert-save-100k")
        ? try measure(bestOf: runs) { try RawSQLite.insert(benchRows, at: batchedURL, rowsPerStatement: SQLiteStore.insertBatchSize) } : 0
    try RawSQLite.removeStore(at: batchedURL)
    benchRows = []
    if wanted("insert-save-100k") {
        let batched = String(format: "raw with %d rows a statement, as Quire's store inserts: %.2f ms (Quire %.2f×)",
                             SQLiteStore.insertBatchSize, rawBatchedInsert, quireInsertTime / rawBatchedInsert)
        rows.append(BenchmarkRow(name: "insert-save-100k", quireMilliseconds: quireInsertTime, baselineMilliseconds: rawInsert, target: 1.5, note: batched))
    }
}

// fetch-all-100k
var fetched = 0
if wanted("fetch-all-100k") {
let rawFetch = try measureIncludingFreeing(bestOf: runs) { () -> [BenchRow] in
    let rows = try RawSQLite.fetchAll(at: rawURL)
    fetched = rows.count
    return rows
}
let quireFetch = try measureIncludingFreeing(bestOf: runs) { () -> (ManagedObjectContext, [ManagedObject]) in
    let result = try quireFetchAll(at: quireURL)
    fetched = result.1.count
    return result
}
precondition(fetched == BenchData.rowCount, "fetched \(fetched) objects")
rows.append(BenchmarkRow(name: "fetch-all-100k", quireMilliseconds: quireFetch, baselineMilliseconds: rawFetch, target: 1.3))
}

if wanted("fetch-all-100k-typed") { rows.append(try TypedReadBench.row(quireURL: quireURL, rawURL: rawURL, runs: runs)) }
if wanted("object-bytes-100k") { rows.append(try ObjectMemoryBench.row(quireURL: quireURL, rawURL: rawURL, runs: runs)) }

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
rows.append(BenchmarkRow(name: "fire-faults-100k", quireMilliseconds: faultSeconds, baselineMilliseconds: rawFaults, target: 1.3))
}

// Query rows: the same query on an open store, Quire's fetch (objects, the default faults) next to the raw
// SELECT materializing every column. Untimed setup first: owners linked to items in both stores.
if needsSQLiteStores {
    try RawSQLite.execute(RawSQLite.linkOwners, at: rawURL)
    try RawSQLite.execute(RawSQLite.linkOwners + "UPDATE Z_PRIMARYKEY SET Z_MAX = \(BenchData.ownerCount) WHERE Z_ENT = 2;", at: quireURL)
}

/// Times the same queries through Quire and raw SQLite, each on a connection opened outside the timing, and
/// checks that both found the same number of rows.
@MainActor
func queryRow(
    _ name: String, queries: [(format: String, argument: Any, sql: String, rawArgument: Any)], note: String = ""
) throws -> BenchmarkRow {
    let raw = try RawSQLite.open(at: rawURL)
    defer { raw.close() }
    var rawCount = 0
    let rawTime = try measure(bestOf: runs) {
        rawCount = 0
        for query in queries { rawCount += try RawSQLite.select(raw, query.sql, query.rawArgument).count }
    }
    let (coordinator, context) = try openStack(quireURL)
    defer { try? closeStack(coordinator) }
    let predicates = try queries.map { try QueryPredicate(format: $0.format, $0.argument) }
    var quireCount = 0
    let quireTime = try measure(bestOf: runs) {
        quireCount = 0
        try context.performAndWait {
            for predicate in predicates {
                let request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = predicate
                quireCount += try context.fetch(request).count
            }
        }
    }
    precondition(rawCount == quireCount && quireCount > 0, "\(name): raw found \(rawCount), Quire \(quireCount)")
    return BenchmarkRow(
        name: name, quireMilliseconds: quireTime, baselineMilliseconds: rawTime, target: 1.5,
        note: "\(queries.count) queries, \(quireCount) rows\(note)")
}

// fetch-indexed-1pct: an indexed equality matching 1% of the rows, for 10 values.
if wanted("fetch-indexed-1pct") {
rows.append(try queryRow("fetch-indexed-1pct", queries: (0..<10).map { tag in
    ("tag == %@", Int64(tag * 7), "WHERE t0.ZTAG = ?1", Int64(tag * 7))
}))
}
// fetch-like-cd: LIKE[cd] over every row (about 4% match); the raw side uses SQLite's ASCII LIKE.
if wanted("fetch-like-cd") {
rows.append(try queryRow("fetch-like-cd", queries: [
    ("s2 LIKE[cd] %@", "CITY-Q*", "WHERE t0.ZS2 LIKE ?1", "CITY-Q%"),
], note: "; raw: LIKE 'CITY-Q%'"))
}
// fetch-keypath-to-one: a key path through the to-one owner, 100 rows for each of 20 owners.
if wanted("fetch-keypath-to-one") {
rows.append(try queryRow("fetch-keypath-to-one", queries: (1...20).map { owner in
    (
        "owner.name == %@", "owner-\(owner * 37)", "LEFT JOIN ZOWNER t1 ON t1.Z_PK = t0.ZOWNER WHERE t1.ZNAME = ?1",
        "owner-\(owner * 37)"
    )
}))
}

// migrate-mapping-100k: two migration steps through mapping models with policies (MappingBenchmarks.swift).
if wanted("migrate-mapping-100k") { rows.append(try MappingBench.row(source: quireURL, folder: folder, runs: runs)) }

if wanted("fetch-repeated-shape") { rows.append(try FetchPlanBench.repeatedShape(quireURL: quireURL, rawURL: rawURL, runs: runs)) }

// App-shaped rows of ported Core Data code (PortingBenchmarks.swift, issue 29).
if wanted("evaluate-keypath-100k") { rows.append(try PortingBench.evaluateKeyPath(quireURL: quireURL, runs: runs)) }
if wanted("registered-objects-100k") { rows.append(try PortingBench.registeredObjects(folder: folder, runs: runs)) }
if wanted("changed-values-10k") { rows.append(try PortingBench.changedValues(folder: folder, runs: runs)) }
if wanted("app-sync-50k") { rows.append(try PortingBench.appSync(folder: folder, runs: runs)) }

// Scale rows (DocumentScaleBenchmarks.swift).
if wanted("fetch-sorted-with-pending-change") { rows.append(try DocumentScaleBench.fetchSortedWithPendingChange(at: quireURL, runs: runs)) }
if wanted("documents-10k") { rows.append(try DocumentScaleBench.documents(in: folder)) }
if wanted("documents-10k-own-models") { rows.append(try DocumentScaleBench.documentsWithOwnModels(in: folder)) }

// Store rows: binary and XML stores of the same 100,000 rows, against raw SQLite inserting and fetching them.
let binaryURL = folder.appendingPathComponent("bench.quire")
let xmlURL = folder.appendingPathComponent("bench.xml")
let needsStores = ["binary-save-100k", "binary-load-100k", "xml-save-100k", "xml-load-100k", "metadata-read-100k"].contains(where: wanted)
if needsStores {
    let storeRows = (0..<BenchData.rowCount).map(BenchData.row)
    let rawSave = try measure(bestOf: runs) { try RawSQLite.insert(storeRows, at: rawURL) }
    let rawLoad = try measureIncludingFreeing(bestOf: runs) { try RawSQLite.fetchAll(at: rawURL) }
    // A store is written only for the rows that use it (saving the XML store takes a few seconds).
    for (type, url, name) in [(StoreType.binary, binaryURL, "binary"), (.xml, xmlURL, "xml")]
    where wanted("\(name)-save-100k") || wanted("\(name)-load-100k") || wanted("metadata-read-100k") {
        let save = try StoreBench.save(url, type: type, runs: wanted("\(name)-save-100k") ? runs : 1)
        if wanted("\(name)-save-100k") {
            rows.append(BenchmarkRow(
                name: "\(name)-save-100k", quireMilliseconds: save, baselineMilliseconds: rawSave, target: type == .binary ? 1 : 5,
                note: "context.save() of 100k inserted objects + close; file \((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int).map { "\($0 / 1_000_000) MB" } ?? "?")"))
        }
        if wanted("\(name)-load-100k") {
            let load = try StoreBench.load(url, type: type, runs: runs)
            rows.append(BenchmarkRow(
                name: "\(name)-load-100k", quireMilliseconds: load, baselineMilliseconds: rawLoad, target: type == .binary ? 2 : 5,
                note: "add the store (every record read and packed) + count; baseline: fetch all rows"))
        }
    }
    if wanted("metadata-read-100k") {
        let large = [quireURL, xmlURL, binaryURL]
        let small = try StoreBench.oneObjectStores(in: folder)
        let smallTime = try measure(bestOf: runs) { try StoreBench.readMetadata(small) }
        let largeTime = try measure(bestOf: runs) { try StoreBench.readMetadata(large) }
        rows.append(BenchmarkRow(
            name: "metadata-read-100k", quireMilliseconds: largeTime, baselineMilliseconds: smallTime, target: 2,
            note: "20 class-level reads of each of an SQLite, XML and binary store; baseline: the same with 1-object stores"))
    }
}

// save-as-1gb-blobs: 10,000 objects, 1,000 of them with a 1 MiB image in a file beside the store.
if wanted("save-as-1gb-blobs") {
    let scanURL = folder.appendingPathComponent("scans.sqlite")
    let free = StoreBench.freeBytes(folder)
    // The store, its copy and the Save As target's links: keep 3 GB clear of the disk's end.
    let images = free > 5_000_000_000 ? 1000 : max(10, Int((free - 2_000_000_000) / 3_000_000))
    try StoreBench.makeScanStore(scanURL, withImages: images)
    let copyURL = folder.appendingPathComponent("scans-copy.sqlite")
    let copy = try measure(bestOf: runs, setUp: { StoreBench.removeStore(copyURL) }) { try StoreBench.copyFolder(scanURL, to: copyURL) }
    StoreBench.removeStore(copyURL)
    let saveAs = try StoreBench.saveAs(scanURL, to: folder.appendingPathComponent("scans-saved.sqlite"), runs: runs)
    StoreBench.removeStore(scanURL)
    rows.append(BenchmarkRow(
        name: "save-as-1gb-blobs", quireMilliseconds: saveAs, baselineMilliseconds: copy, target: 0.1,
        note: "10,000 objects, \(images) images of 1 MiB (\(images == 1000 ? "1 GiB" : "scaled down: disk short")); baseline: copying the store and its folder"))
}

// save-one-change-100k-* and save-as-1m-*: see SaveBenchmarks.swift.
rows += try SaveBench.rows(folder: folder, rawURL: rawURL, sqliteURL: quireURL, binaryURL: binaryURL, xmlURL: xmlURL, runs: runs)
rows += try AtomicMemoryBench.rows(binaryURL: binaryURL, xmlURL: xmlURL)
rows += try BatchBench.rows(source: quireURL, folder: folder, runs: runs, wanted: wanted)
rows += try PostgresBench.rows(runs: runs, wanted: wanted)
rows += try ScaleBench.rows(in: folder) { arguments.contains("--scale") || only == $0 }
rows += try RelatedImportBench.rows(in: folder) { arguments.contains("--scale") || only == $0 }

let table = BenchmarkTable(rows: rows)
print(asJSON ? try table.json() : table.text())
