import CSQLite
import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Hostile compiled models and model caches that share references (issue 33, item 4): each is refused with
/// ``QuireError/Code/archiveLimitExceeded`` naming the limit, through every way to read one (`.mom`, a model
/// cache blob, a cache inside a store). Before, each ran for minutes or used gigabytes: a reader that expands
/// every reference into a fresh copy does 2⁴⁰ work for a 3 KB input. The inputs are made here, in memory.
@Suite("Shared references")
struct SharedReferenceTests {
    /// Reads an archive every way a user can reach one, expecting the same refusal from each.
    static func expectRefused(
        _ archive: Data, mentioning limit: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let folder = try TemporaryFolder()
        let mom = folder.file("Hostile.mom")
        try archive.write(to: mom)
        let blob = ArchiveBuilder.rawDeflate(archive)
        let store = folder.file("Hostile.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CartKit/CartStorage_v1.sqlite"), to: store)
        try Self.replaceModelCache(of: store, with: blob)
        // QUIRE_HOSTILE_INPUTS names a folder to keep the inputs in (to time `quire info` on them by hand).
        if let keep = ProcessInfo.processInfo.environment["QUIRE_HOSTILE_INPUTS"] {
            let name = "line\(sourceLocation.line)-\(archive.count)"
            try? FileManager.default.copyItem(at: mom, to: URL(fileURLWithPath: keep).appendingPathComponent("\(name).mom"))
            try? FileManager.default.copyItem(at: store, to: URL(fileURLWithPath: keep).appendingPathComponent("\(name).sqlite"))
        }
        let reads: [(String, () throws -> Void)] = [
            (".mom", { _ = try ManagedObjectModel(compiledModelAt: mom) }),
            ("model cache", { _ = try ManagedObjectModel(modelCache: blob) }),
            ("store", { _ = try ManagedObjectModel.forStore(at: store, type: .sqlite) }),
        ]
        for (way, read) in reads {
            do {
                try read()
                Issue.record("\(way): the hostile archive was read", sourceLocation: sourceLocation)
            } catch let error as QuireError {
                #expect(error.code == .archiveLimitExceeded, "\(way): \(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains(limit), "\(way): \(error.message)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Puts a blob into a store's `Z_MODELCACHE`, as a hostile sender would.
    static func replaceModelCache(of url: URL, with blob: Data) throws {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK else { throw QuireError(.fileReadUnknown, "cannot open \(url.path)") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "UPDATE Z_MODELCACHE SET Z_CONTENT = ?1", -1, &statement, nil) == SQLITE_OK else {
            throw QuireError(.fileReadUnknown, "cannot prepare")
        }
        defer { sqlite3_finalize(statement) }
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
        guard sqlite3_step(statement) == SQLITE_DONE, sqlite3_changes(db) == 1 else {
            throw QuireError(.fileReadUnknown, "no model cache replaced")
        }
    }

    /// A comparison predicate `name == "x"`.
    static func comparison(_ builder: ArchiveBuilder) -> UInt64 {
        let constant = builder.object("NSConstantValueExpression", ["NSExpression", "NSObject"], [
            "NSExpressionType": builder.plistObject(.integer(0)), "NSConstantValue": builder.uid(builder.entry(builder.string("x"))),
        ])
        let keyPath = builder.object("NSKeyPathSpecifierExpression", ["NSExpression", "NSObject"], [
            "NSExpressionType": builder.plistObject(.integer(10)), "NSKeyPath": builder.uid(builder.entry(builder.string("name"))),
        ])
        let op = builder.object("NSComparisonPredicateOperator", ["NSObject"], ["NSOperatorType": builder.plistObject(.integer(4))])
        return builder.object("NSComparisonPredicate", ["NSPredicate", "NSObject"], [
            "NSLeftExpression": builder.uid(keyPath), "NSRightExpression": builder.uid(constant), "NSPredicateOperator": builder.uid(op),
        ])
    }

    @Test func aPredicateReferringTwiceToTheNextLevelFortyLevelsDeepIsRefused() throws {
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        var level = Self.comparison(builder)
        for _ in 0..<40 {
            let pair = builder.array([level, level])
            level = builder.object("NSCompoundPredicate", ["NSPredicate", "NSObject"], [
                "NSCompoundPredicateType": builder.plistObject(.integer(1)), "NSSubpredicates": builder.uid(pair),
            ])
        }
        let attribute = builder.attribute("name", predicates: [level])
        let entity = builder.entity("Item", properties: builder.dictionary([("name", attribute)]))
        builder.model(entities: [entity])
        let archive = builder.data()
        #expect(archive.count < 8_000)
        try Self.expectRefused(archive, mentioning: "bytes in one predicate's text")
    }

    @Test func userInfoReferringTwiceToTheNextLevelFortyLevelsDeepIsRefused() throws {
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        var level = builder.entry(builder.string("leaf"))
        for _ in 0..<40 { level = builder.array([level, level]) }
        let entity = builder.entity("Item", properties: nil, userInfo: builder.dictionary([("deep", level)]))
        builder.model(entities: [entity])
        let archive = builder.data()
        #expect(archive.count < 4_000)
        try Self.expectRefused(archive, mentioning: "once its shared references are expanded")
    }

    @Test(arguments: [1_000, 3_000])
    func entitiesSharingTheSamePropertiesAreRefused(count: Int) throws {
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        let properties = builder.dictionary((0..<count).map { ("p\($0)", builder.attribute("p\($0)")) })
        let entities = (0..<count).map { builder.entity("E\($0)", properties: properties) }
        builder.model(entities: entities)
        let archive = builder.data()
        #expect(archive.count < 400 * count)
        try Self.expectRefused(archive, mentioning: "properties of all entities together")
    }

    @Test func aThirtyTwoMiBDataObjectReferredToAMillionTimesIsRefused() throws {
        // Shared in the property list: a million references to one data object, as an entity's userInfo values.
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        let data = builder.plistObject(.data([UInt8](repeating: 0xA5, count: 32 << 20)))
        let values = builder.plistObject(.array([Int](repeating: data, count: 1_000_000)))
        let key = builder.uid(builder.entry(builder.string("k")))
        let keys = builder.plistObject(.array([Int](repeating: key, count: 1_000_000)))
        let userInfo = builder.object("NSDictionary", ["NSObject"], ["NS.keys": keys, "NS.objects": values])
        let entity = builder.entity("Item", properties: nil, userInfo: userInfo)
        builder.model(entities: [entity])
        try Self.expectRefused(builder.data(), mentioning: "bytes of strings and data")

        // Shared in the archive: a million CF$UIDs naming one NSData entry.
        let archived = ArchiveBuilder()
        archived.reserveRoot()
        let blob = archived.object("NSData", ["NSObject"], ["NS.data": archived.plistObject(.data([UInt8](repeating: 0x5A, count: 32 << 20)))])
        let many = archived.object("NSArray", ["NSObject"], [
            "NS.objects": archived.plistObject(.array([Int](repeating: archived.uid(blob), count: 1_000_000))),
        ])
        let holder = archived.entity("Item", properties: nil, userInfo: archived.dictionary([("blobs", many)]))
        archived.model(entities: [holder])
        try Self.expectRefused(archived.data(), mentioning: "bytes of strings and data")
    }

    @Test func aSixteenMiBStringReferredToTwoHundredTimesIsRefused() throws {
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        let text = builder.entry(builder.plistObject(.string(String(repeating: "s", count: 16 << 20))))
        let userInfo = builder.dictionary((0..<200).map { ("k\($0)", text) })
        let entity = builder.entity("Item", properties: nil, userInfo: userInfo)
        builder.model(entities: [entity])
        try Self.expectRefused(builder.data(), mentioning: "bytes of strings and data")
    }

    /// Sharing itself is fine: Core Data's own caches share key strings everywhere, and a sub-entity lists the
    /// property objects it inherits. A model whose entities share properties within the limits reads, each
    /// property decoded once.
    @Test func sharingWithinTheLimitsReads() throws {
        let builder = ArchiveBuilder()
        builder.reserveRoot()
        let properties = builder.dictionary((0..<50).map { ("p\($0)", builder.attribute("p\($0)")) })
        let entities = (0..<50).map { builder.entity("E\($0)", properties: properties) }
        builder.model(entities: entities)
        let folder = try TemporaryFolder()
        let mom = folder.file("Shared.mom")
        try builder.data().write(to: mom)
        let model = try ManagedObjectModel(compiledModelAt: mom)
        #expect(model.entities.count == 50)
        #expect(model.entities.allSatisfy { $0.properties.count == 50 })
        // Every real model cache reads well within the limits.
        for store in CompiledModelFixtures.modelCacheStores {
            #expect(throws: Never.self) { try ManagedObjectModel(modelCache: try CompiledModelFixtures.modelCache(store)) }
        }
    }
}
