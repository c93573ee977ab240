import Foundation
import Testing

import Quire
import QuirePostgres
import QuireSupport

/// Keys for inserted objects come from each hierarchy's sequence, handed out per run of objects of one entity:
/// a save that interleaves entities sharing one table (Employee and its sub-entity Manager) with another
/// table's (Department) must give every object its own key of its table, and every row its object's values.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresKeyRunTests {
    private func stack(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func interleavedEntitiesOfOneTableGetDistinctKeys() throws {
        let url = try #require(PostgresTestServer.storeURL())
        var context = try stack(url)
        // Runs of 1, 2 and 3 objects, switching between the tables and within one hierarchy.
        let plan = ["Employee", "Manager", "Manager", "Department", "Employee", "Employee", "Employee", "Manager", "Department"]
        for (index, entity) in plan.enumerated() {
            let object = EntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue("\(entity)-\(index)", forKey: "name")
        }
        try context.save()

        context = try stack(url)
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        let departments = try context.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        let expected = plan.enumerated().map { "\($1)-\($0)" }
        let names = (people + departments).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == expected.sorted())
        // Every row's entity matches the name its object was given.
        for person in people {
            let name = person.value(forKey: "name") as? String ?? ""
            #expect(name.hasPrefix(person.entity.name + "-"))
        }
        // One key per object within each table.
        #expect(Set(people.map(\.objectID)).count == people.count)
        #expect(Set(people.compactMap(\.objectID.primaryKey)).count == 7)
        #expect(Set(departments.compactMap(\.objectID.primaryKey)).count == 2)
    }

    /// A save draws one block of consecutive keys per table (one `nextval`/`setval` under the sequence's lock):
    /// a long run (copied) and a short one (pipelined) take the next keys in order, and the next save goes on
    /// after them.
    @Test func aSaveDrawsOneBlockOfKeysPerTable() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let context = try stack(url)
        var first: [ManagedObject] = []
        for index in 0..<700 {
            let object = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            object.setValue("d-\(index)", forKey: "name")
            first.append(object)
        }
        try context.save()
        #expect(first.compactMap(\.objectID.primaryKey) == Array(1...700))
        let second = (0..<3).map { index in
            let object = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            object.setValue("e-\(index)", forKey: "name")
            return object
        }
        try context.save()
        #expect(second.compactMap(\.objectID.primaryKey) == [701, 702, 703])

        let reread = try stack(url).fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        let names = Dictionary(uniqueKeysWithValues: reread.compactMap { object in
            object.objectID.primaryKey.map { ($0, object.value(forKey: "name") as? String ?? "") }
        })
        #expect(names.count == 703)
        #expect(names[1] == "d-0" && names[700] == "d-699" && names[703] == "e-2")
    }

    /// Coordinators saving into one store at the same time draw disjoint blocks of keys: every save succeeds
    /// (no duplicate key) and every object is stored once. (The lock is what keeps another allocation from
    /// drawing between a block's `nextval` and its `setval`; a race, so this test guards it rather than proves it.)
    @Test func concurrentSavesDrawDisjointKeys() throws {
        let url = try #require(PostgresTestServer.storeURL())
        _ = try stack(url)  // creates the store once, before the writers race
        let writers = 4, saves = 12
        let failures = LockedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            do {
                let context = try stack(url)
                try context.performAndWait {
                    for save in 0..<saves {
                        // Sizes that alternate between pipelined runs and copied ones.
                        let count = save.isMultiple(of: 3) ? 600 : 1 + save * 7
                        for index in 0..<count {
                            let object = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
                            object.setValue("w\(writer)-s\(save)-\(index)", forKey: "name")
                        }
                        try context.save()
                    }
                }
            } catch {
                failures.withLock { $0.append("writer \(writer): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let perWriter = (0..<saves).reduce(0) { $0 + ($1.isMultiple(of: 3) ? 600 : 1 + $1 * 7) }
        let departments = try stack(url).fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        #expect(departments.count == writers * perWriter)
        #expect(Set(departments.compactMap(\.objectID.primaryKey)).count == writers * perWriter)
        let names = Set(departments.compactMap { $0.value(forKey: "name") as? String })
        #expect(names.count == writers * perWriter)
    }

    /// A save's key allocation takes the sequence's advisory lock: while another connection holds it, the save
    /// waits for it (seen in `pg_locks` as an advisory lock not granted), and goes on once it is released.
    @Test func keyAllocationWaitsForTheSequencesLock() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let context = try stack(url)
        let schema = try PostgresURL(url).schema
        let admin = try PostgresConnection(url: PostgresURL(url))
        let key = "quire-keys:\(schema).\"z_pkseq_zdepartment\""
        _ = try admin.execute("BEGIN")
        _ = try admin.execute("SELECT pg_advisory_xact_lock(hashtext('\(key.replacingOccurrences(of: "'", with: "''"))'))")
        let saved = LockedValue<Result<Void, any Error>?>(nil)
        let object = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
        object.setValue("waits", forKey: "name")
        let thread = Thread {
            let result = Result { try context.save() }
            saved.withLock { $0 = result }
        }
        thread.start()
        // Wait (up to 30 s) until the save's connection waits for that advisory lock.
        var waiting = false
        for _ in 0..<300 where !waiting {
            let rows = try admin.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            waiting = rows.count == 1 && rows.int64(0, 0) > 0
            if !waiting { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(waiting, "the save never waited for the key lock")
        #expect(saved.withLock { $0 } == nil, "the save went on while the key lock was held")
        _ = try admin.execute("COMMIT")
        for _ in 0..<300 where saved.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.1) }
        let result = try #require(saved.withLock { $0 })
        try result.get()
        #expect(object.objectID.primaryKey == 1)
    }
}
