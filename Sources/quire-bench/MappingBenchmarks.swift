import CSQLite
import Foundation
import Quire
import QuireCore
import QuireStores

/// `migrate-mapping-100k`: the benchmark's store (100,000 items, 1,000 owners) migrated through two versions, each
/// step through a mapping model written as Xcode writes one (every attribute `$source.<name>`, the relationships
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`) whose item mapping has a
/// custom policy computing a new attribute: v2 adds `score` (`i1 / 2 + d1`), v3 adds `label` (`"<s1>-<tag>"`).
///
/// Equal work on both sides: each step reads every row of the old store and writes every object into a new store
/// with the new value computed per object, the items' owners mapped to the owners' new keys, and the new store
/// replaces the old one by a rename at the end. The baseline does it with prepared raw SQLite statements, each
/// row read into Swift values (as ``RawSQLite/readRow(_:)`` does for the fetch rows) and inserted one by one, in one
/// transaction per step.
enum MappingBench {
    /// The three versions: the benchmark model, then `score`, then `label` on `Item`.
    static func versions() -> [ManagedObjectModel] {
        let v1 = benchModel()
        let v2 = benchModel()
        v2.entitiesByName["Item"]?.properties.append(AttributeDescription(name: "score", type: .double))
        let v3 = benchModel()
        v3.entitiesByName["Item"]?.properties += [
            AttributeDescription(name: "score", type: .double), AttributeDescription(name: "label", type: .string),
        ]
        return [v1, v2, v3]
    }

    /// Computes `score` for v2's items.
    final class ScorePolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let item = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else { return }
            let i1 = sInstance.value(forKey: "i1") as? Int64 ?? 0
            let d1 = sInstance.value(forKey: "d1") as? Double ?? 0
            item.setValue(Double(i1) * 0.5 + d1, forKey: "score")
        }
    }

    /// Computes `label` for v3's items.
    final class LabelPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let item = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else { return }
            let s1 = sInstance.value(forKey: "s1") as? String ?? ""
            let tag = sInstance.value(forKey: "tag") as? Int64 ?? 0
            item.setValue("\(s1)-\(tag)", forKey: "label")
        }
    }

    /// The mapping of one step, its item mapping run by `policy`.
    static func mapping(itemAttributes: [String], policy: String) throws -> MappingModel {
        func function(_ mapping: String, _ key: String) throws -> MappingExpression {
            try MappingExpression(format: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(mapping)\", $source.\(key))")
        }
        var items = EntityMapping(mappingType: .custom, sourceEntityName: "Item", destinationEntityName: "Item")
        items.entityMigrationPolicyClassName = policy
        items.attributeMappings = try itemAttributes.map { PropertyMapping(name: $0, valueExpression: try MappingExpression(format: "$source.\($0)")) }
        items.relationshipMappings = [PropertyMapping(name: "owner", valueExpression: try function("OwnerToOwner", "owner"))]
        var owners = EntityMapping(mappingType: .copy, sourceEntityName: "Owner", destinationEntityName: "Owner")
        owners.attributeMappings = [PropertyMapping(name: "name", valueExpression: try MappingExpression(format: "$source.name"))]
        owners.relationshipMappings = [PropertyMapping(name: "items", valueExpression: try function("ItemToItem", "items"))]
        return MappingModel(entityMappings: [owners, items])
    }

    static let attributes = ["i1", "i2", "d1", "d2", "s1", "s2", "s3", "flag", "date", "blob", "tag"]

    /// The row: Quire's two-step migration of a copy of `source` against the baseline's, and the peak memory of
    /// Quire's.
    static func row(source: URL, folder: URL, runs: Int) throws -> BenchmarkRow {
        EntityMigrationPolicyRegistry.shared.register(ScorePolicy.self, as: "Bench.ScorePolicy")
        EntityMigrationPolicyRegistry.shared.register(LabelPolicy.self, as: "Bench.LabelPolicy")
        let versions = versions()
        let mappings = [
            try mapping(itemAttributes: attributes, policy: "Bench.ScorePolicy"),
            try mapping(itemAttributes: attributes + ["score"], policy: "Bench.LabelPolicy"),
        ]
        let quireURL = folder.appendingPathComponent("migrate-quire.sqlite")
        let rawURL = folder.appendingPathComponent("migrate-raw.sqlite")
        func copySource(to url: URL) throws {
            StoreBench.removeStore(url)
            try FileManager.default.copyItem(at: source, to: url)
        }
        var rawCPU = Double.infinity
        let raw = try measure(bestOf: runs, setUp: { try copySource(to: rawURL) }) {
            rawCPU = min(rawCPU, try cpuSeconds { try RawSQLite.migrate(rawURL, in: folder) })
        }
        try check(rawURL, label: "raw")
        PeakMemory.resetPeak()
        var quireCPU = Double.infinity
        let quire = try measure(bestOf: runs, setUp: { try copySource(to: quireURL) }) {
            quireCPU = min(quireCPU, try cpuSeconds {
                _ = try MigrationManager.migrateStore(at: quireURL, type: .sqlite, versions: versions, mappingModels: mappings)
            })
        }
        let peak = PeakMemory.takePeakMegabytes()
        try check(quireURL, label: "Quire")
        StoreBench.removeStore(quireURL)
        StoreBench.removeStore(rawURL)
        return BenchmarkRow(
            name: "migrate-mapping-100k", quireMilliseconds: quire, baselineMilliseconds: raw, target: 3,
            note: "2 steps, 100,000 items + 1,000 owners, a policy per step; peak RSS \(Int(peak)) MB (target ≤ 300 MB); "
                + String(format: "CPU %.2f s vs %.2f s (%.2f×); ", quireCPU, rawCPU, quireCPU / rawCPU)
                + "baseline: raw SELECT and INSERT per row, per step", peakMegabytes: peak)
    }

    /// The processor time (user and system) `body` takes, in seconds: on a loaded machine a truer comparison
    /// than the wall clock.
    static func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let start = now()
        try body()
        return now() - start
    }

    /// Checks a migrated store holds every item with its computed values and its owner.
    private static func check(_ url: URL, label: String) throws {
        let connection = try RawSQLite.open(at: url)
        defer { connection.close() }
        let rows = try RawSQLite.scalar(connection, """
            SELECT COUNT(*) FROM ZITEM t0 JOIN ZOWNER t1 ON t1.Z_PK = t0.ZOWNER
            WHERE t0.ZSCORE = t0.ZI1 * 0.5 + t0.ZD1 AND t0.ZLABEL = t0.ZS1 || '-' || t0.ZTAG
            """)
        precondition(rows == BenchData.rowCount, "\(label): \(rows) items migrated with their values and owners")
    }
}

extension RawSQLite {
    /// The baseline of `migrate-mapping-100k`: the two steps, each into a new file, the last renamed over `url`.
    static func migrate(_ url: URL, in folder: URL) throws {
        let first = folder.appendingPathComponent("migrate-raw-step1.sqlite")
        let second = folder.appendingPathComponent("migrate-raw-step2.sqlite")
        try migrationStep(from: url, to: first, step: 1)
        try migrationStep(from: first, to: second, step: 2)
        try removeStore(at: first)
        for suffix in StoreKind.sqlite.sideFileSuffixes { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        guard rename(second.path, url.path) == 0 else {
            throw RawSQLiteError(code: SQLITE_IOERR, message: "rename failed", operation: "replacing \(url.path)")
        }
    }

    /// One step: owners and items copied into a new store with the step's new column computed, the owners'
    /// new keys mapped into the items.
    private static func migrationStep(from source: URL, to target: URL, step: Int) throws {
        try removeStore(at: target)
        let input = try RawConnection(url: source, create: false)
        defer { input.close() }
        let output = try RawConnection(url: target, create: true)
        defer { output.close() }
        try output.execute("BEGIN IMMEDIATE")
        try output.execute(createTable.replacingOccurrences(
            of: "ZTAG INTEGER, ZOWNER INTEGER", with: "ZTAG INTEGER, ZOWNER INTEGER, ZSCORE FLOAT\(step == 2 ? ", ZLABEL VARCHAR" : "")"))
        // Owners first, with new keys.
        var ownerKeys: [Int64: Int64] = [:]
        let owners = try input.prepare("SELECT Z_PK, ZNAME FROM ZOWNER ORDER BY Z_PK")
        defer { sqlite3_finalize(owners) }
        let insertOwner = try output.prepare("INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 2, 1, ?)")
        defer { sqlite3_finalize(insertOwner) }
        while true {
            let result = sqlite3_step(owners)
            if result == SQLITE_DONE { break }
            try input.check(result, "reading owners", expecting: SQLITE_ROW)
            let key = Int64(ownerKeys.count + 1)
            ownerKeys[sqlite3_column_int64(owners, 0)] = key
            let name = sqlite3_column_text(owners, 1).map { String(cString: $0) } ?? ""
            try output.check(sqlite3_bind_int64(insertOwner, 1, key), "binding an owner's key")
            try output.check(sqlite3_bind_text(insertOwner, 2, name, -1, benchSQLiteTransient), "binding an owner's name")
            try output.check(sqlite3_step(insertOwner), "inserting an owner", expecting: SQLITE_DONE)
            try output.check(sqlite3_reset(insertOwner), "resetting the owner insert")
        }
        // Items, each read into Swift values, its new value computed, inserted with its new key.
        let items = try input.prepare("SELECT \(columns), ZOWNER\(step == 2 ? ", ZSCORE" : "") FROM ZITEM ORDER BY Z_PK")
        defer { sqlite3_finalize(items) }
        let insertItem = try output.prepare("""
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZS3, ZFLAG, ZDATE, ZBLOB, ZTAG, ZOWNER, ZSCORE\(step == 2 ? ", ZLABEL" : "")) \
            VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?\(step == 2 ? ", ?" : ""))
            """)
        defer { sqlite3_finalize(insertItem) }
        var key: Int64 = 0
        while true {
            let result = sqlite3_step(items)
            if result == SQLITE_DONE { break }
            try input.check(result, "reading items", expecting: SQLITE_ROW)
            let row = readRow(items)
            let owner = ownerKeys[sqlite3_column_int64(items, 12)]
            let score = step == 1 ? Double(row.i1) * 0.5 + row.d1 : sqlite3_column_double(items, 13)
            key += 1
            try output.check(sqlite3_bind_int64(insertItem, 1, key), "binding Z_PK")
            try output.check(sqlite3_bind_int64(insertItem, 2, row.i1), "binding ZI1")
            try output.check(sqlite3_bind_int64(insertItem, 3, row.i2), "binding ZI2")
            try output.check(sqlite3_bind_double(insertItem, 4, row.d1), "binding ZD1")
            try output.check(sqlite3_bind_double(insertItem, 5, row.d2), "binding ZD2")
            try output.check(sqlite3_bind_text(insertItem, 6, row.s1, -1, benchSQLiteTransient), "binding ZS1")
            try output.check(sqlite3_bind_text(insertItem, 7, row.s2, -1, benchSQLiteTransient), "binding ZS2")
            try output.check(sqlite3_bind_text(insertItem, 8, row.s3, -1, benchSQLiteTransient), "binding ZS3")
            try output.check(sqlite3_bind_int64(insertItem, 9, row.flag ? 1 : 0), "binding ZFLAG")
            try output.check(sqlite3_bind_double(insertItem, 10, row.date.timeIntervalSinceReferenceDate), "binding ZDATE")
            let blob = row.blob.withUnsafeBytes { sqlite3_bind_blob(insertItem, 11, $0.baseAddress, Int32($0.count), benchSQLiteTransient) }
            try output.check(blob, "binding ZBLOB")
            try output.check(sqlite3_bind_int64(insertItem, 12, row.tag), "binding ZTAG")
            if let owner {
                try output.check(sqlite3_bind_int64(insertItem, 13, owner), "binding ZOWNER")
            } else {
                try output.check(sqlite3_bind_null(insertItem, 13), "binding ZOWNER")
            }
            try output.check(sqlite3_bind_double(insertItem, 14, score), "binding ZSCORE")
            if step == 2 {
                try output.check(sqlite3_bind_text(insertItem, 15, "\(row.s1)-\(row.tag)", -1, benchSQLiteTransient), "binding ZLABEL")
            }
            try output.check(sqlite3_step(insertItem), "inserting item \(key)", expecting: SQLITE_DONE)
            try output.check(sqlite3_reset(insertItem), "resetting the item insert")
        }
        try output.execute("COMMIT")
    }

    /// The first column of a query's first row, as an integer.
    static func scalar(_ connection: RawQueryConnection, _ sql: String) throws -> Int {
        let statement = try connection.connection.prepare(sql)
        defer { sqlite3_finalize(statement) }
        try connection.connection.check(sqlite3_step(statement), "running \(sql)", expecting: SQLITE_ROW)
        return Int(sqlite3_column_int64(statement, 0))
    }
}
