import CSQLite
import Foundation
import Quire

// import-200k-many-to-many and import-200k-ordered (issue 15): adding members to ordered and many-to-many
// relationships without loading the sets. Scale rows: they run only when named (`--only NAME`) or with `--scale`.

/// The related-import rows: 1,000 owners saved, then 200,000 members in batches of 10,000, each added with
/// `owner.addObject(member, toRelationship: "members")` to owner `index % 1000`, from the owner's side (the
/// side whose set is large), saved, and the context reset. With the sets loaded to add one member, each batch
/// costs more than the last; recorded instead, the last batch costs about what the first does.
/// `QUIRE_BENCH_LOAD_SETS=1` reads each owner's set before adding to it, as Quire did before, for comparison.
enum RelatedImportBench {
    /// How many members the rows make.
    static let memberCount = 200_000
    /// How many members one batch holds.
    static let batchSize = 10_000
    /// How many owners the members are spread over.
    static let ownerCount = 1_000

    /// Owner ↔ Member: `members` many-to-many (inverse `owners`) or ordered with a to-one inverse (`owner`).
    static func model(ordered: Bool) -> ManagedObjectModel {
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(
                name: "members", destination: "Member", toMany: true, isOrdered: ordered, inverse: ordered ? "owner" : "owners"),
        ])
        let member = EntityDescription(name: "Member", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
            ordered
                ? RelationshipDescription(name: "owner", destination: "Owner", inverse: "members")
                : RelationshipDescription(name: "owners", destination: "Owner", toMany: true, inverse: "members"),
        ])
        return ManagedObjectModel(entities: [owner, member])
    }

    /// The Quire side: returns each batch's milliseconds.
    static func quireImport(at url: URL, ordered: Bool) throws -> [Double] {
        try RawSQLite.removeStore(at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model(ordered: ordered))
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? closeStack(coordinator) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        guard let owner = coordinator.managedObjectModel.entitiesByName["Owner"],
            let member = coordinator.managedObjectModel.entitiesByName["Member"]
        else { return [] }
        try context.performAndWait {
            for index in 0..<ownerCount { ManagedObject(entity: owner, insertInto: context).setValue("owner-\(index)", forKey: "name") }
            try context.save()
            context.reset()
        }
        var times: [Double] = []
        let loadsSets = ProcessInfo.processInfo.environment["QUIRE_BENCH_LOAD_SETS"] != nil
        for batch in 0..<memberCount / batchSize {
            try times.append(measure {
                try context.performAndWait {
                    let request = FetchRequest<ManagedObject>(entityName: "Owner")
                    request.sortDescriptors = [SortKey("name", ascending: true)]
                    let owners = try context.fetch(request)
                    for index in batch * batchSize..<(batch + 1) * batchSize {
                        let object = ManagedObject(entity: member, insertInto: context)
                        object.setValue("member-\(index)", forKey: "name")
                        object.setValue(Int64(index), forKey: "rank")
                        let owner = owners[index % owners.count]
                        // What adding cost before issue 15: the owner's whole set loaded first.
                        if loadsSets { _ = owner.value(forKey: "members") }
                        owner.addObject(object, toRelationship: "members")
                    }
                    try context.save()
                    context.reset()
                }
            })
        }
        return times
    }

    /// The baseline: the same rows through SQLite's C API, one transaction per batch, into tables laid out as
    /// Quire's (a join table, or a foreign key and an order column).
    static func rawImport(at url: URL, ordered: Bool) throws -> [Double] {
        try RawSQLite.removeStore(at: url)
        var handle: OpaquePointer?
        guard sqlite3_open(url.path, &handle) == SQLITE_OK, let db = handle else {
            sqlite3_close(handle)
            throw RawSQLiteError(code: SQLITE_CANTOPEN, message: "cannot open", operation: url.path)
        }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            let result = sqlite3_exec(db, sql, nil, nil, nil)
            guard result == SQLITE_OK else { throw RawSQLiteError(code: result, message: String(cString: sqlite3_errmsg(db)), operation: sql) }
        }
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            let result = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            guard result == SQLITE_OK, let statement else {
                throw RawSQLiteError(code: result, message: String(cString: sqlite3_errmsg(db)), operation: sql)
            }
            return statement
        }
        try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try exec("CREATE TABLE ZOWNER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)")
        if ordered {
            try exec("CREATE TABLE ZMEMBER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRANK INTEGER, ZOWNER INTEGER, Z_FOK_OWNER INTEGER, ZNAME VARCHAR)")
            try exec("CREATE INDEX ZMEMBER_ZOWNER_INDEX ON ZMEMBER (ZOWNER)")
        } else {
            try exec("CREATE TABLE ZMEMBER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRANK INTEGER, ZNAME VARCHAR)")
            try exec("CREATE TABLE Z_1MEMBERS (Z_1OWNERS INTEGER, Z_2MEMBERS INTEGER, PRIMARY KEY (Z_1OWNERS, Z_2MEMBERS))")
            try exec("CREATE INDEX Z_1MEMBERS_Z_2MEMBERS_INDEX ON Z_1MEMBERS (Z_2MEMBERS, Z_1OWNERS)")
        }
        try exec("BEGIN")
        for index in 0..<ownerCount { try exec("INSERT INTO ZOWNER VALUES (\(index + 1), 1, 1, 'owner-\(index)')") }
        try exec("COMMIT")
        let insert = try prepare(
            ordered ? "INSERT INTO ZMEMBER VALUES (?, 2, 1, ?, ?, ?, ?)" : "INSERT INTO ZMEMBER VALUES (?, 2, 1, ?, ?)")
        let join = ordered ? nil : try prepare("INSERT INTO Z_1MEMBERS VALUES (?, ?)")
        defer {
            sqlite3_finalize(insert)
            sqlite3_finalize(join)
        }
        var times: [Double] = []
        for batch in 0..<memberCount / batchSize {
            try times.append(measure {
                try exec("BEGIN")
                for index in batch * batchSize..<(batch + 1) * batchSize {
                    let key = Int64(index + 1), owner = Int64(index % ownerCount + 1), name = "member-\(index)"
                    sqlite3_bind_int64(insert, 1, key)
                    sqlite3_bind_int64(insert, 2, Int64(index))
                    if ordered {
                        sqlite3_bind_int64(insert, 3, owner)
                        sqlite3_bind_int64(insert, 4, Int64(index / ownerCount + 1))
                        sqlite3_bind_text(insert, 5, name, -1, relatedImportTransient)
                    } else {
                        sqlite3_bind_text(insert, 3, name, -1, relatedImportTransient)
                    }
                    guard sqlite3_step(insert) == SQLITE_DONE else {
                        throw RawSQLiteError(code: SQLITE_ERROR, message: String(cString: sqlite3_errmsg(db)), operation: "insert")
                    }
                    sqlite3_reset(insert)
                    if let join {
                        sqlite3_bind_int64(join, 1, owner)
                        sqlite3_bind_int64(join, 2, key)
                        guard sqlite3_step(join) == SQLITE_DONE else {
                            throw RawSQLiteError(code: SQLITE_ERROR, message: String(cString: sqlite3_errmsg(db)), operation: "join")
                        }
                        sqlite3_reset(join)
                    }
                }
                try exec("COMMIT")
            })
        }
        return times
    }

    /// The rows `wanted` names: import-200k-many-to-many and import-200k-ordered.
    static func rows(in folder: URL, wanted: (String) -> Bool) throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for (name, ordered) in [("import-200k-many-to-many", false), ("import-200k-ordered", true)] where wanted(name) {
            let url = folder.appendingPathComponent("\(name).sqlite")
            let rawURL = folder.appendingPathComponent("\(name)-raw.sqlite")
            defer { try? RawSQLite.removeStore(at: url); try? RawSQLite.removeStore(at: rawURL) }
            _ = PeakMemory.takePeakMegabytes()
            let raw = try rawImport(at: rawURL, ordered: ordered)
            let batches = try quireImport(at: url, ordered: ordered)
            let peak = PeakMemory.takePeakMegabytes()
            // The median of the first three and of the last three batches: one batch alone is at the mercy of
            // the machine's other work.
            func median(_ times: ArraySlice<Double>) -> Double {
                let sorted = times.sorted()
                return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            }
            let first = median(batches.prefix(3)), last = median(batches.suffix(3))
            rows.append(BenchmarkRow(
                name: name, quireMilliseconds: batches.reduce(0, +), baselineMilliseconds: raw.reduce(0, +),
                note: String(
                    format: "1,000 owners, 200k members in batches of 10k (medians of the first and last 3): first %.0f ms, last %.0f ms (last/first %.2f, target ≤ 1.5); raw: first %.0f ms, last %.0f ms",
                    first, last, first > 0 ? last / first : 0, median(raw.prefix(3)), median(raw.suffix(3))),
                peakMegabytes: peak))
        }
        return rows
    }
}

/// SQLite's `SQLITE_TRANSIENT` (the destructor value -1, which SQLite's header defines the same way): SQLite
/// copies bound text before the bind call returns, so the Swift string may go away at once. Safe: SQLite never
/// calls it as a function.
private let relatedImportTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
