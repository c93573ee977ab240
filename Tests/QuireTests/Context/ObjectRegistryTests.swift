// Unit tests of the context's object registry, which has no public face: uses Quire's internals and QuireCore's package API.
import Foundation
import Testing

@testable import Quire
import QuireCore

/// The registry behind uniquing: dense tables by primary key, a dictionary for the rest, and pruning of
/// objects nobody else holds.
@Suite struct ObjectRegistryTests {
    @Test func findsObjectsByPermanentTemporaryAndFarKeys() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("C.sqlite"))
        let store = try #require(coordinator.persistentStores.first)
        let employee = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        let manager = try #require(coordinator.managedObjectModel.entitiesByName["Manager"])
        var registry = ObjectRegistry()
        let near = context.object(with: ObjectID(entity: employee, store: store, primaryKey: 3))
        let sub = context.object(with: ObjectID(entity: manager, store: store, primaryKey: 4))
        let far = context.object(with: ObjectID(entity: employee, store: store, primaryKey: 9_000_000_000))
        let temporary = ManagedObject(entity: employee, insertInto: context)
        for object in [near, sub, far, temporary] { registry.insert(object) }
        #expect(registry.count == 4)
        #expect(registry[ObjectID(entity: employee, store: store, primaryKey: 3)] === near)
        // A sub-entity's record is found through an ID naming its superentity (same hierarchy, same key).
        #expect(registry[ObjectID(entity: employee, store: store, primaryKey: 4)] === sub)
        #expect(registry[ObjectID(entity: employee, store: store, primaryKey: 9_000_000_000)] === far)
        #expect(registry[temporary.objectID] === temporary)
        #expect(registry[ObjectID(entity: employee, store: store, primaryKey: 5)] == nil)
        registry.remove(near)
        registry.remove(temporary)
        #expect(registry[near.objectID] == nil && registry[temporary.objectID] == nil)
        #expect(registry.count == 2)
        #expect(Set(registry.removeAll().map(ObjectIdentifier.init)) == Set([sub, far].map(ObjectIdentifier.init)))
        #expect(registry.count == 0)
    }

    /// An object's entry moves to its new ID (a temporary ID for a permanent one): found by the new ID only, counted
    /// once, and held by the registry as before (released when the registry lets it go).
    @Test func changeIDMovesTheEntryToTheNewID() throws {
        let folder = try TemporaryFolder()
        let (coordinator, _) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("K.sqlite"))
        let store = try #require(coordinator.persistentStores.first)
        let employee = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        var registry = ObjectRegistry()
        weak var released: ManagedObject?
        /// An object with a temporary ID, in no context and without changes (so that a prune may drop it).
        func temporary() -> ManagedObject {
            let object = ManagedObject(entity: employee)
            object.objectID = ObjectID.makeTemporary(for: employee)
            return object
        }
        do {
            let near = temporary()
            let far = temporary()
            let other = temporary()
            for object in [near, far, other] { registry.insert(object) }
            let (nearTemporary, farTemporary) = (near.objectID, far.objectID)
            registry.changeID(of: near, to: ObjectID(entity: employee, store: store, primaryKey: 12))
            registry.changeID(of: far, to: ObjectID(entity: employee, store: store, primaryKey: 9_000_000_000))
            #expect(registry.count == 3)
            #expect(near.objectID == ObjectID(entity: employee, store: store, primaryKey: 12))
            #expect(registry[near.objectID] === near && registry[nearTemporary] == nil)
            #expect(registry[far.objectID] === far && registry[farTemporary] == nil)
            #expect(registry[other.objectID] === other)
            // From the dictionary (a key far beyond the tables) back into a table.
            registry.changeID(of: far, to: ObjectID(entity: employee, store: store, primaryKey: 13))
            #expect(registry[far.objectID] === far)
            #expect(registry[ObjectID(entity: employee, store: store, primaryKey: 9_000_000_000)] == nil)
            #expect(registry.count == 3)
            // An object not registered under its ID is registered under the new one.
            let loose = temporary()
            registry.changeID(of: loose, to: ObjectID(entity: employee, store: store, primaryKey: 14))
            #expect(registry[loose.objectID] === loose && registry.count == 4)
            released = near
        }
        // The registry holds one reference to each object, no more.
        #expect(released != nil)
        registry.prune()
        #expect(registry.count == 0)
        #expect(released == nil)
    }

    @Test func recentlyFetchedObjectsGetOneSecondChance() throws {
        let folder = try TemporaryFolder()
        let (coordinator, _) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("R.sqlite"))
        let store = try #require(coordinator.persistentStores.first)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        var registry = ObjectRegistry()
        var held: [ManagedObject] = []
        for key in 1...4 {
            // Objects of no context, so that this registry and the test are all that hold them.
            let object = ManagedObject(entity: entity, insertInto: nil)
            object.objectID = ObjectID(entity: entity, store: store, primaryKey: Int64(key))
            object.recentlyFetched = key <= 2
            registry.insert(object)
            held.append(object)
        }
        var fetchedAgain: ManagedObject? = held[0]
        held = [held[3]]
        // Objects 1 and 2 were fetched since the last prune: spared once, their marks cleared; 3 goes.
        registry.prune(keepingRecentlyFetched: true)
        #expect(registry.count == 3)
        #expect(registry[ObjectID(entity: entity, store: store, primaryKey: 3)] == nil)
        // A fetch returns object 1 again before the next prune: spared again; object 2 goes.
        fetchedAgain?.recentlyFetched = true
        registry.prune(keepingRecentlyFetched: true)
        #expect(registry.count == 2)
        #expect(registry[ObjectID(entity: entity, store: store, primaryKey: 1)] === fetchedAgain)
        #expect(registry[ObjectID(entity: entity, store: store, primaryKey: 2)] == nil)
        // A full prune spares nobody the registry alone holds.
        fetchedAgain = nil
        registry.prune()
        #expect(registry.count == 1)
        #expect(registry[ObjectID(entity: entity, store: store, primaryKey: 4)] === held[0])
        _ = registry.removeAll()
    }

    @Test func pruneDropsOnlyObjectsNobodyHoldsAndThatHaveNoChanges() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("R.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        for index in 0..<10 {
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
        }
        try context.save()
        context.reset()
        var held: [ManagedObject] = try context.fetch(FetchRequest<ManagedObject>(entityName: "Run"))
        #expect(context.registeredObjects.count == 10)
        held[1].setValue(99, forKey: "processID")  // changed: kept even when nobody holds it
        let keptID = held[0].objectID
        held = [held[0]]
        #expect(context.registeredObjects.count == 2)
        #expect(context.registeredObject(for: keptID) === held[0])
        // Uniquing still holds for a pruned record: a new object, one per record.
        let again = try context.fetch(FetchRequest<ManagedObject>(entityName: "Run"))
        #expect(again.contains { $0 === held[0] })
        #expect(Set(again.map(\.objectID)).count == 10)
        #expect(context.hasChanges)
    }

    /// A walk of `registeredObjects` lets go of the objects only the context holds (Core Data's weak registry
    /// would have let them go already), so the walks after it, and the memory, do not keep paying for them; one a
    /// fetch returned since the last prune goes at the walk after.
    @Test func walkingRegisteredObjectsLetsGoOfObjectsNobodyHolds() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("R.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        weak var saved: ManagedObject?
        var savedID: ObjectID?
        var kept: ManagedObject? = ManagedObject(entity: entity, insertInto: context)
        kept?.setValue(Date(timeIntervalSinceReferenceDate: 2), forKey: "date")
        do {
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "date")
            saved = run
        }
        try context.save()
        savedID = saved?.objectID
        #expect(saved != nil)  // only the context holds it now
        #expect(context.registeredObjects.count == 1)  // the one still held
        #expect(saved == nil)
        #expect(context.registeredObject(for: try #require(savedID)) == nil)
        #expect(context.registeredObjects.contains(try #require(kept)))

        // Fetched and let go by the application: skipped at once, released at the second walk.
        let keptID = try #require(kept?.objectID)
        kept = nil
        weak var fetched: ManagedObject?
        do {
            let request = FetchRequest<ManagedObject>(entityName: "Run")
            request.predicate = try QueryPredicate(format: "date == %@", Date(timeIntervalSinceReferenceDate: 1))
            let found = try context.fetch(request)
            #expect(found.count == 1)
            fetched = found.first
        }
        #expect(fetched != nil)
        #expect(context.registeredObjects.isEmpty)
        #expect(fetched != nil)
        #expect(context.registeredObjects.isEmpty)
        #expect(fetched == nil)
        // Uniquing holds: the records come back as new objects, one per record.
        let again = try context.fetch(FetchRequest<ManagedObject>(entityName: "Run"))
        #expect(Set(again.map(\.objectID)) == [try #require(savedID), keptID])
        #expect(context.registeredObjects.count == 2)
    }
    /// A walk of `registeredObjects` takes the entities with the fewest registered objects first, whatever their
    /// names or the order they were registered in, then the objects inserted since the last save, newest first:
    /// a lookup of a parent among many children steps over few objects, and the order is the same in every process.
    @Test func walkingRegisteredObjectsTakesTheSmallestTablesFirstAndNewObjectsLast() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("O.sqlite"))
        func make(_ entity: String, _ name: String) -> ManagedObject {
            let object = EntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue(name, forKey: "name")
            return object
        }
        // Three employees and one department, the employees registered first.
        var held = (0..<3).map { make("Employee", "e\($0)") } + [make("Department", "d0")]
        try context.save()
        func names() -> [String] {
            context.registeredObjects.map { $0.value(forKey: "name") as? String ?? "?" }
        }
        #expect(names() == ["d0", "e0", "e1", "e2"])
        // Four more departments: now the employees' table is the smaller one.
        held += (1..<5).map { make("Department", "d\($0)") }
        try context.save()
        #expect(names() == ["e0", "e1", "e2", "d0", "d1", "d2", "d3", "d4"])
        // Objects inserted since the save come last, newest first; a changed one stays where its table is.
        held += [make("Employee", "new0"), make("Employee", "new1")]
        held[0].setValue("e0-renamed", forKey: "name")
        #expect(names() == ["e0-renamed", "e1", "e2", "d0", "d1", "d2", "d3", "d4", "new1", "new0"])
        withExtendedLifetime(held) {}
    }
}
