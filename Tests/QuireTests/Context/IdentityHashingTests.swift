import Foundation
import Testing

import Quire

/// Object IDs and objects in sets and dictionaries: IDs hash their key and store folded into one word, objects their
/// identity (both through `Hashable`'s one-word hash, which sets and dictionaries use). Equal IDs must hash alike
/// however they were made, and IDs that differ only in their store must still be told apart.
@Suite struct IdentityHashingTests {
    /// Two stores of one coordinator, each holding the records with keys 1 to 3: IDs of the same key in different
    /// stores are different members of a set, and an ID made again from its URI finds its record's entry.
    @Test func idsOfTheSameKeyInTwoStoresAreDistinctMembers() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.runModel())
        let first = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("First.sqlite"))
        let second = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Second.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        var objects: [ManagedObject] = []
        for store in [first, second] {
            for number in 1...3 {
                let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
                run.setValue(Date(timeIntervalSince1970: Double(number)), forKey: "date")
                context.assign(run, to: store)
                objects.append(run)
            }
        }
        try context.save()
        let ids = objects.map(\.objectID)
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        #expect(Set(ids.compactMap(\.primaryKey)) == [1, 2, 3])
        // Six records, three keys: the set tells the stores apart.
        let members = Set(ids)
        #expect(members.count == 6)
        var byID: [ObjectID: ManagedObject] = [:]
        for object in objects { byID[object.objectID] = object }
        #expect(byID.count == 6)
        for object in objects {
            // The same ID made another way (from its URI) is equal, hashes alike and finds the entry.
            let again = try #require(coordinator.managedObjectID(forURIRepresentation: object.objectID.uriRepresentation()))
            #expect(again == object.objectID)
            #expect(again.hashValue == object.objectID.hashValue)
            #expect(AnyHashable(again).hashValue == AnyHashable(object.objectID).hashValue)
            #expect(members.contains(again))
            #expect(byID[again] === object)
            #expect(try context.existingObject(with: again) === object)
        }
    }

    /// Temporary IDs (one counter for the process) are distinct members; after the save the did-save notification's
    /// inserted IDs are exactly the objects' permanent IDs.
    @Test func temporaryAndPermanentIDsInTheDidSaveSets() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Runs.sqlite"))
        let objects = (0..<1_000).map { number in
            let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
            run.setValue(Date(timeIntervalSince1970: Double(number)), forKey: "date")
            return run
        }
        let temporaryIDs = objects.map(\.objectID)
        #expect(Set(temporaryIDs).count == 1_000)
        #expect(temporaryIDs.allSatisfy { $0.isTemporaryID })
        let log = NotificationLog(ManagedObjectContext.didSaveNotification, from: context)
        try context.save()
        let info = try #require(log.all.last)
        let saved = info[ManagedObjectContext.insertedObjectIDsKey] as? Set<ObjectID>
        let savedObjects = info[ManagedObjectContext.insertedObjectsKey] as? Set<ManagedObject>
        let insertedIDs = try #require(saved)
        #expect(insertedIDs == Set(objects.map(\.objectID)))
        #expect(insertedIDs.isDisjoint(with: temporaryIDs))
        #expect(savedObjects == Set(objects))
        for object in objects {
            #expect(insertedIDs.contains(object.objectID))
            #expect(savedObjects?.contains(object) == true)
        }
    }

    /// The hashes spread: sequential keys of one store, and objects made one after another (neighbouring
    /// addresses), fill the low bits a table of 4,096 buckets uses about as random values would (about 63% of the
    /// buckets; a mix that left the low bits to the key alone, or to the address's aligned bits, fills far fewer
    /// or collides outright).
    @Test func hashesOfNeighbouringKeysAndObjectsSpreadOverTheBuckets() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Spread.sqlite"))
        let objects = (0..<4_096).map { number in
            let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
            run.setValue(Date(timeIntervalSince1970: Double(number)), forKey: "date")
            return run
        }
        try context.save()
        let keys = Set(objects.compactMap(\.objectID.primaryKey))
        #expect(keys.count == 4_096)
        for seed in [0, 1, 0x5EED] {
            let idBuckets = Set(objects.map { $0.objectID._rawHashValue(seed: seed) & 4_095 })
            let objectBuckets = Set(objects.map { $0._rawHashValue(seed: seed) & 4_095 })
            #expect(idBuckets.count > 2_300, "seed \(seed): \(idBuckets.count) buckets")
            #expect(objectBuckets.count > 2_300, "seed \(seed): \(objectBuckets.count) buckets")
        }
    }

    /// Objects are equal only to themselves, and a set or dictionary finds each by identity.
    @Test func objectsHashByIdentity() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Identity.sqlite"))
        let a = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        let b = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
        #expect(Set([a, b, a]).count == 2)
        #expect(a.hashValue == a.hashValue)
        #expect(AnyHashable(a).hashValue == a.hashValue)
        let names: [ManagedObject: String] = [a: "a", b: "b"]
        #expect(names[a] == "a" && names[b] == "b")
    }
}
