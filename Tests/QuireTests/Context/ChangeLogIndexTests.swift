import Foundation
import Testing

import Quire
import QuireCore

/// A fetch with unsaved changes finds the changed objects of its own entity hierarchy without walking every changed
/// object of the context (the context groups its change log by root entity). These tests change objects of several
/// entities, fetch, change again after the grouping was made, and save, roll back, reset and undo in between; every
/// answer is checked against the objects the test itself knows to be there, through the store's merge, the wholly
/// in-memory pass and a count.
@Suite struct ChangeLogIndexTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A context on an SQLite store of `PendingMergeFetchTests`' model (`Item`, its sub-entity `Special`, the
    /// unrelated `Owner`) holding `Item`s 0–19, every fifth a `Special`.
    func stack() throws -> (ManagedObjectModel, ManagedObjectContext) {
        let model = PendingMergeFetchTests.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Index-\(UUID().uuidString).sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for n in 0..<20 { insert(Int64(n), special: n % 5 == 0, context, model) }
        try context.save()
        return (model, context)
    }

    @discardableResult
    func insert(_ n: Int64, special: Bool = false, _ context: ManagedObjectContext, _ model: ManagedObjectModel) -> ManagedObject {
        let object = ManagedObject(entity: model.entitiesByName[special ? "Special" : "Item"]!, insertInto: context)
        object.setValue(n, forKey: "n")
        return object
    }

    func owner(_ context: ManagedObjectContext, _ model: ManagedObjectModel) {
        ManagedObject(entity: model.entitiesByName["Owner"]!, insertInto: context).setValue("someone", forKey: "title")
    }

    /// The `n`s a fetch finds, checked to be the same through the store's merge, wholly in memory and by count.
    func ns(
        _ context: ManagedObjectContext, _ format: String? = nil, entity: String = "Item", subentities: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Set<Int64> {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        request.includesSubentities = subentities
        if let format { request.predicate = try QueryPredicate(format: format) }
        request.sortDescriptors = [SortKey("n")]
        let merged = try context.fetch(request).map { $0.value(forKey: "n") as? Int64 ?? -1 }
        context.fetchesPendingChangesThroughStore = false
        defer { context.fetchesPendingChangesThroughStore = true }
        let inMemory = try context.fetch(request).map { $0.value(forKey: "n") as? Int64 ?? -1 }
        #expect(merged == inMemory, sourceLocation: sourceLocation)
        #expect(try context.count(for: request) == merged.count, sourceLocation: sourceLocation)
        #expect(Set(merged).count == merged.count, "each object once", sourceLocation: sourceLocation)
        return Set(merged)
    }

    func range(_ range: Range<Int64>, without: Set<Int64> = []) -> Set<Int64> { Set(range).subtracting(without) }

    @Test func subEntitiesAndOtherEntitiesAreTold() throws {
        let (model, context) = try stack()
        let saved = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        func savedObject(_ n: Int64) throws -> ManagedObject { try #require(saved.first { $0.value(forKey: "n") as? Int64 == n }) }
        owner(context, model)
        #expect(try ns(context) == range(0..<20))  // an `Owner` is no `Item`
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Owner")) == 1)
        insert(100, special: true, context, model)
        insert(101, context, model)
        owner(context, model)
        try savedObject(5).setValue(Int64(200), forKey: "n")  // a saved `Special`
        try savedObject(6).setValue(Int64(201), forKey: "n")  // a saved `Item`
        context.delete(try savedObject(1))
        context.delete(try savedObject(10))  // a `Special`
        let everything = range(0..<20, without: [1, 5, 6, 10]).union([100, 101, 200, 201])
        #expect(try ns(context) == everything)
        #expect(try ns(context, subentities: false) == everything.subtracting([0, 15, 100, 200]))
        #expect(try ns(context, entity: "Special") == [0, 15, 100, 200])
        #expect(try ns(context, "n >= 100") == [100, 101, 200, 201])
        #expect(try ns(context, "n >= 100", entity: "Special") == [100, 200])
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Owner")) == 2)
        // Inserted and deleted before any save: in no answer.
        context.delete(insert(300, special: true, context, model))
        #expect(try ns(context, entity: "Special") == [0, 15, 100, 200])
    }

    @Test func changesAfterTheFirstFetchAreFound() throws {
        let (model, context) = try stack()
        insert(100, context, model)
        #expect(try ns(context, "n >= 100") == [100])
        // Changed after the context grouped its changes for the fetch above.
        for n in Int64(101)..<106 { insert(n, special: n % 2 == 0, context, model) }
        owner(context, model)
        let first = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first { $0.value(forKey: "n") as? Int64 == 7 })
        first.setValue(Int64(107), forKey: "n")
        #expect(try ns(context, "n >= 100") == range(100..<108, without: [106]))
        #expect(try ns(context, "n >= 100", entity: "Special") == [102, 104])
        context.delete(first)
        #expect(try ns(context, "n >= 100") == range(100..<106))
    }

    /// After each of these the context's change log is shorter than when it was last grouped, then grows past that
    /// length again before the next fetch: a grouping kept from before would miss the first objects changed since.
    @Test func saveRollbackResetAndUndoStartAgain() throws {
        let (model, context) = try stack()
        insert(100, context, model)
        insert(101, context, model)
        #expect(try ns(context, "n >= 100") == [100, 101])
        try context.save()
        for n in Int64(102)..<107 { insert(n, context, model) }
        #expect(try ns(context, "n >= 100") == range(100..<107))

        // No fetch between the rollback (or reset, or undo) and the changes after it, which outnumber the ones
        // before it.
        context.rollback()
        for n in Int64(110)..<118 { insert(n, special: true, context, model) }
        #expect(try ns(context, "n >= 100") == range(110..<118).union([100, 101]))

        context.reset()
        owner(context, model)
        for n in Int64(120)..<130 { insert(n, context, model) }
        #expect(try ns(context, "n >= 100") == range(120..<130).union([100, 101]))
        try context.save()
        #expect(try ns(context, "n >= 100") == range(120..<130).union([100, 101]))
        context.rollback()
        #expect(try ns(context, "n >= 100") == range(120..<130).union([100, 101]))

        context.undoManager = UndoManager()
        context.processPendingChanges()
        insert(130, context, model)
        context.processPendingChanges()
        insert(131, context, model)
        context.processPendingChanges()
        #expect(try ns(context, "n >= 130") == [130, 131])
        context.undoManager?.undo()
        insert(132, context, model)
        insert(133, context, model)
        context.processPendingChanges()
        #expect(try ns(context, "n >= 130") == [130, 132, 133])
        // A deleted object, then its delete undone: back in the answers.
        let saved = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first { $0.value(forKey: "n") as? Int64 == 120 })
        context.delete(saved)
        context.processPendingChanges()
        #expect(try ns(context, "n >= 120") == range(121..<134, without: [131]))
        context.undoManager?.undo()
        #expect(try ns(context, "n >= 120") == range(120..<134, without: [131]))
        context.undoManager?.redo()
        #expect(try ns(context, "n >= 120") == range(121..<134, without: [131]))
    }
}
