import Foundation
import QuireTestSupport
import Testing

import Quire
import QuireCore
@testable import QuireStores
@testable import QuireSQLite

/// Key allocation reads `Z_PRIMARYKEY.Z_MAX` against the table's keys and never overflows; `verify` reports a
/// counter a save could not use as it is, and `Z_PRIMARYKEY` rows that share an entity number are refused
/// naming both (issue 33, item 5).
@Suite struct KeyCounterTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let model: ManagedObjectModel = {
        let book = EntityDescription(name: "Book", properties: [AttributeDescription(name: "title", type: .string)])
        let novel = EntityDescription(name: "Novel", properties: [AttributeDescription(name: "genre", type: .string)])
        book.subentities = [novel]
        return ManagedObjectModel(entities: [book, novel])
    }()

    /// A store with `count` books (keys 1…count) at `name`, closed.
    func makeStore(_ name: String, count: Int = 2) throws -> URL {
        let url = folder.file(name)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for index in 0..<count {
            ManagedObject(entity: try #require(Self.model.entitiesByName["Book"]), insertInto: context).setValue("b\(index)", forKey: "title")
        }
        try context.save()
        try coordinator.remove(store)
        return url
    }

    static func execute(_ sql: String, at url: URL) throws {
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        try connection.execute(sql)
    }

    static func keys(at url: URL) throws -> [Int64] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        let statement = try connection.prepare("SELECT Z_PK FROM ZBOOK ORDER BY Z_PK")
        defer { statement.finalize() }
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    /// Saves `count` new objects of `entity` into the store at `url`.
    static func insert(_ count: Int, _ entity: String = "Novel", at url: URL) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for _ in 0..<count { ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context).setValue("new", forKey: "title") }
        try context.save()
    }

    @Test(arguments: ["-1", "0", "1"])
    func aCounterBelowTheTableCountsOnFromTheTable(zMax: String) throws {
        let url = try makeStore("below-\(zMax).sqlite")
        try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(zMax) WHERE Z_NAME = 'Book'", at: url)
        // Before: Z_MAX -1 wrote a row with Z_PK 0 that the store then refused to read; 0 and 1 failed on the
        // table's primary key.
        try Self.insert(2, at: url)
        #expect(try Self.keys(at: url) == [1, 2, 3, 4])
        let dump = try ObjectGraphDump(storeAt: url, type: .sqlite)
        #expect(dump.objects.count == 4)
        #expect(try StoreVerification.problems(inStoreAt: url, type: .sqlite).isEmpty, "the save set the counter right")
    }

    @Test func aCounterBelowTheTableIsReportedByVerify() throws {
        let url = try makeStore("report.sqlite", count: 3)
        try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = -1 WHERE Z_NAME = 'Book'", at: url)
        let problems = try StoreVerification.problems(inStoreAt: url, type: .sqlite)
        #expect(problems.contains("Table Z_PRIMARYKEY, entity Book (Z_ENT 1), column Z_MAX is -1; key counters are 0 or more."), "\(problems)")
        #expect(
            problems.contains(
                "Table Z_PRIMARYKEY: the key counter of table ZBOOK (the largest Z_MAX of Book and its sub-entities) is 0, "
                    + "below its largest key (Z_PK 3); Core Data would give a new object a key a row has."),
            "\(problems)")
    }

    @Test func aCounterAtItsEndRefusesTheSaveInsteadOfCrashing() throws {
        let url = try makeStore("end.sqlite")
        try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Book'", at: url)
        // Before: an arithmetic overflow trapped in the save (SQLiteStore+Save.swift:155).
        let error = try #require(throws: QuireError.self) { try Self.insert(1, at: url) }
        #expect(error.code == .persistentStoreSave)
        #expect(error.message.contains("has no keys left for 1 new objects of entity 'Novel'"), "\(error.message)")
        #expect(error.message.contains("9223372036854775807"))
        #expect(try Self.keys(at: url) == [1, 2], "nothing written")
        // Reserving keys (obtainPermanentIDs) is refused alike.
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let book = ManagedObject(entity: try #require(Self.model.entitiesByName["Book"]), insertInto: context)
        #expect(throws: QuireError.self) { try context.obtainPermanentIDs(for: [book]) }

        let problems = try StoreVerification.problems(inStoreAt: url, type: .sqlite)
        #expect(
            problems.contains(
                "Table Z_PRIMARYKEY: the keys of table ZBOOK have reached 9223372036854775807; "
                    + "no new object of Book or its sub-entities can be saved."),
            "\(problems)")
    }

    @Test func reservedKeysCountOnFromTheTable() throws {
        let url = try makeStore("reserve.sqlite")
        try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = -1", at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let book = ManagedObject(entity: try #require(Self.model.entitiesByName["Book"]), insertInto: context)
        try context.obtainPermanentIDs(for: [book])
        #expect(book.objectID.primaryKey == 3)
    }

    @Test func primaryKeyRowsSharingAnEntityNumberAreRefusedNamingBoth() throws {
        let url = try makeStore("shared.sqlite")
        // Z_ENT is the table's INTEGER PRIMARY KEY in every store Core Data or Quire made: a table made by hand.
        try Self.execute(
            """
            CREATE TABLE Z_PK2 (Z_ENT INTEGER, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PK2 SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY;
            UPDATE Z_PK2 SET Z_ENT = 1, Z_SUPER = 0 WHERE Z_NAME = 'Novel';
            DROP TABLE Z_PRIMARYKEY; ALTER TABLE Z_PK2 RENAME TO Z_PRIMARYKEY;
            """, at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == .persistentStoreIncompatibleSchema)
        #expect(error.message.contains("its Z_PRIMARYKEY gives the entity number 1 to both 'Book' and 'Novel'"), "\(error.message)")
    }
}
