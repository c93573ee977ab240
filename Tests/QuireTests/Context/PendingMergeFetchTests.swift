import Foundation
import Testing

import Quire
import QuireCore

/// Fetches with unsaved changes let SQLite filter, sort and limit what is saved and merge the changed objects
/// in memory; every answer must be the wholly in-memory pass's.
@Suite struct PendingMergeFetchTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// `Item` (`n` unique, `score` with many ties, `name`, `flag`), its sub-entity `Special` (`extra`), and an
    /// unrelated `Owner`.
    static func model() -> ManagedObjectModel {
        let special = EntityDescription(name: "Special", properties: [AttributeDescription(name: "extra", type: .integer64)])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "n", type: .integer64),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "flag", type: .boolean),
        ])
        item.subentities = [special]
        let owner = EntityDescription(name: "Owner", properties: [AttributeDescription(name: "title", type: .string)])
        return ManagedObjectModel(entities: [item, special, owner])
    }

    static let names = ["alpha", "Bravo", "bravo", "charlie", "Delta", "echo", "Foxtrot", "golf"]

    /// A context on an SQLite store holding 300 saved items (one in five a `Special`).
    func savedStack() throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Pending-\(UUID().uuidString).sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for index in 0..<300 {
            insert(index, special: index % 5 == 0, into: context, model: model)
        }
        try context.save()
        return (coordinator, context)
    }

    @discardableResult
    func insert(_ n: Int, special: Bool, into context: ManagedObjectContext, model: ManagedObjectModel) -> ManagedObject {
        let entity = model.entitiesByName[special ? "Special" : "Item"]!
        let object = ManagedObject(entity: entity, insertInto: context)
        object.setValue(Int64(n), forKey: "n")
        object.setValue(Double(n % 7) / 7, forKey: "score")
        object.setValue(Self.names[abs(n) % Self.names.count] + String(abs(n) % 13), forKey: "name")
        object.setValue(n % 3 == 0, forKey: "flag")
        if special { object.setValue(Int64(n * 2), forKey: "extra") }
        return object
    }

    /// The changes of one scenario, applied to a context holding the saved items.
    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case unrelatedInsert, inserts, updatesMoving, deletes, everything
        var testDescription: String { rawValue }
    }

    func apply(_ scenario: Scenario, to context: ManagedObjectContext, model: ManagedObjectModel) throws {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("n")]
        let saved = try context.fetch(request)
        func unrelated() {
            let owner = ManagedObject(entity: model.entitiesByName["Owner"]!, insertInto: context)
            owner.setValue("someone", forKey: "title")
        }
        func inserts() {
            for n in [1000, 1001, 1002, 1003, 1010, 1021, 1035] { insert(n, special: n % 2 == 0, into: context, model: model) }
            // Sorts first and last.
            insert(-5, special: false, into: context, model: model).setValue(-1.0, forKey: "score")
            insert(5000, special: true, into: context, model: model).setValue(9.0, forKey: "score")
        }
        func updates() {
            // Into and out of `n < 100`, to the front and the back of the sort orders, across name prefixes.
            for (index, n) in [3, 10, 45, 99, 150, 151, 200, 250, 299].enumerated() {
                let object = saved[n]
                object.setValue(Int64(index % 2 == 0 ? n + 500 : n - 400), forKey: "n")
                object.setValue(index % 3 == 0 ? -2.0 : 7.5, forKey: "score")
                object.setValue(index % 2 == 0 ? "aardvark" : "zulu", forKey: "name")
                object.setValue(index % 2 == 0, forKey: "flag")
            }
        }
        func deletes() {
            for n in [0, 1, 2, 50, 98, 120, 297] { context.delete(saved[n]) }
        }
        switch scenario {
        case .unrelatedInsert: unrelated()
        case .inserts: inserts()
        case .updatesMoving: updates()
        case .deletes: deletes()
        case .everything:
            unrelated()
            inserts()
            updates()
            deletes()
            // Inserted, then deleted before any save: in no answer.
            context.delete(insert(7777, special: false, into: context, model: model))
        }
    }

    static let predicates: [String?] = [nil, "n < 100", "name BEGINSWITH[c] 'b'", "flag == YES AND score > 0.3", "n >= 1000 OR n < 0"]
    /// Sort orders; the first three order every object (`n` is unique), the last two have ties.
    static let sorts: [[SortKey]] = [
        [SortKey("n")],
        [SortKey("score", ascending: false), SortKey("n")],
        [SortKey("name", comparator: .caseInsensitiveCompare), SortKey("n", ascending: false)],
        [SortKey("score")],
        [],
    ]
    static let windows: [(limit: Int, offset: Int)] = [(0, 0), (1, 0), (10, 0), (10, 3), (50, 40), (0, 25), (400, 0)]

    @Test(arguments: Scenario.allCases)
    func answersAreTheInMemoryPasses(scenario: Scenario) throws {
        let (coordinator, context) = try savedStack()
        try apply(scenario, to: context, model: coordinator.managedObjectModel)
        #expect(context.hasChanges)
        var compared = 0
        for entityName in ["Item", "Special"] {
            for format in Self.predicates {
                for (sortIndex, sort) in Self.sorts.enumerated() {
                    for window in Self.windows {
                        for subentities in entityName == "Item" ? [true, false] : [true] {
                            let request = FetchRequest<ManagedObject>(entityName: entityName)
                            if let format { request.predicate = try QueryPredicate(format: format) }
                            request.sortDescriptors = sort
                            request.fetchLimit = window.limit
                            request.fetchOffset = window.offset
                            request.includesSubentities = subentities
                            request.returnsObjectsAsFaults = compared % 2 == 0
                            context.fetchesPendingChangesThroughStore = false
                            let expected = try context.fetch(request)
                            context.fetchesPendingChangesThroughStore = true
                            let actual = try context.fetch(request)
                            let label = "\(entityName) \(format ?? "all") sort \(sortIndex) limit \(window.limit) offset \(window.offset) sub \(subentities)"
                            if sortIndex < 3 {
                                #expect(actual.map(\.objectID) == expected.map(\.objectID), "\(label)")
                            } else if sort.isEmpty {
                                #expect(actual.map(\.objectID) == expected.map(\.objectID), "\(label)")
                            } else {
                                // Ties may be broken differently; the keys in order and the count must agree.
                                #expect(actual.map { $0.value(forKey: "score") as? Double } == expected.map { $0.value(forKey: "score") as? Double }, "\(label)")
                            }
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared == 5 * 5 * 7 * 3)
        // The store answered (and the changes were merged) for all but the fetches it could not sort as memory
        // does; an unrelated insert needs no merge at all.
        if scenario == .unrelatedInsert {
            #expect(context.storeMergedFetchCount == 0)
        } else {
            #expect(context.storeMergedFetchCount == compared)
        }
    }

    @Test func objectIDsAndBatchedFetchesMergeToo() throws {
        let (coordinator, context) = try savedStack()
        try apply(.everything, to: context, model: coordinator.managedObjectModel)
        for batchSize in [0, 1, 7, 64] {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try QueryPredicate(format: "n < 600")
            request.sortDescriptors = [SortKey("score", ascending: false), SortKey("n")]
            request.fetchLimit = 30
            request.fetchOffset = 2
            request.fetchBatchSize = batchSize
            context.fetchesPendingChangesThroughStore = false
            let expected = try context.fetch(request).map(\.objectID)
            let expectedBatched = try context.fetchBatched(request).map(\.objectID)
            context.fetchesPendingChangesThroughStore = true
            #expect(try context.fetchBatched(request).map(\.objectID) == expected)
            #expect(expectedBatched == expected)
            let ids = FetchRequest<ObjectID>(entityName: "Item")
            ids.resultType = .managedObjectID
            ids.predicate = request.predicate
            ids.sortDescriptors = request.sortDescriptors
            ids.fetchLimit = 30
            ids.fetchOffset = 2
            #expect(try context.fetch(ids) == expected)
        }
    }

    /// A predicate SQLite cannot evaluate (`name != n` compares a string column with a number column) while the
    /// context has changes: the store is asked whether it evaluates the predicate as its rows are read, reads
    /// nothing, and the in-memory pass answers, seeing the inserted, changed and deleted objects.
    @Test func aPredicateTheStoreCannotEvaluateIsAnsweredInMemory() throws {
        let (coordinator, context) = try savedStack()
        try apply(.everything, to: context, model: coordinator.managedObjectModel)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "name != n AND n < 20")
        request.sortDescriptors = [SortKey("n")]
        request.fetchLimit = 12
        context.fetchesPendingChangesThroughStore = false
        let expected = try context.fetch(request).map(\.objectID)
        context.fetchesPendingChangesThroughStore = true
        let merged = context.storeMergedFetchCount
        #expect(try context.fetch(request).map(\.objectID) == expected)
        #expect(context.storeMergedFetchCount == merged)
        #expect(expected.count == 12)
        // The same objects as `n < 20` alone, which the store evaluates (and merges).
        request.predicate = try QueryPredicate(format: "n < 20")
        #expect(try context.fetch(request).map(\.objectID) == expected)
        #expect(context.storeMergedFetchCount == merged + 1)
    }

    @Test func anObjectMovedOutOfTheWindowLeavesIt() throws {
        let (_, context) = try savedStack()
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("n", ascending: false)]
        request.fetchLimit = 10
        let clean = try context.fetch(request)
        let moved = try #require(clean.first)
        moved.setValue(Int64(-1), forKey: "n")
        #expect(context.hasChanges)
        let changed = try context.fetch(request)
        #expect(changed.count == 10)
        #expect(!changed.contains { $0 === moved })
        #expect(changed.first === clean[1])
    }

    @Test func anUnrelatedInsertLeavesTheWindowToTheStore() throws {
        let (coordinator, context) = try savedStack()
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("n", ascending: false)]
        request.fetchLimit = 3
        let before = try context.fetch(request).map { $0.value(forKey: "n") as? Int64 }
        try apply(.unrelatedInsert, to: context, model: coordinator.managedObjectModel)
        #expect(try context.fetch(request).map { $0.value(forKey: "n") as? Int64 } == before)
        #expect(before == [299, 298, 297])
        // Moving an object to the front, deleting the first: both seen at once.
        let first = try #require(try context.fetch(request).first)
        context.delete(first)
        let last = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first { $0.value(forKey: "n") as? Int64 == 0 })
        last.setValue(Int64(10_000), forKey: "n")
        #expect(try context.fetch(request).map { $0.value(forKey: "n") as? Int64 } == [10_000, 298, 297])
    }
}
