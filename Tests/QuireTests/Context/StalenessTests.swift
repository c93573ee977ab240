import Foundation
import Testing

import Quire

/// `stalenessInterval` (how old a row may be to fill a fault) and `shouldDeleteInaccessibleFaults` (what an
/// object whose record is gone becomes), through two coordinators on one file and batch deletes.
@Suite struct StalenessTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Note", properties: [
                AttributeDescription(name: "text", type: .string),
                AttributeDescription(name: "stars", type: .integer64, defaultValue: 0),
            ])
        ])
    }

    /// A note saved by one coordinator, fetched as a fault by another on the same SQLite file, then changed and
    /// saved by the first: the second coordinator's rows are now stale.
    private func staleFault(_ folder: TemporaryFolder, stalenessInterval: TimeInterval) throws -> (ManagedObjectContext, ManagedObject) {
        let url = folder.file("Notes.sqlite")
        let (_, writer) = try Fixtures.stack(Self.model(), at: url)
        let note = EntityDescription.insertNewObject(forEntityName: "Note", into: writer)
        note.setValue("old", forKey: "text")
        try writer.save()
        let (_, reader) = try Fixtures.stack(Self.model(), at: url)
        reader.stalenessInterval = stalenessInterval
        let fetched = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        #expect(fetched.isFault)
        note.setValue("new", forKey: "text")
        try writer.save()
        return (reader, fetched)
    }

    @Test func aZeroIntervalReadsEveryFaultFromTheStore() throws {
        let folder = try TemporaryFolder()
        // The default (-1): rows of any age will do, so the fetched row fills the fault.
        let (lenient, cached) = try staleFault(folder, stalenessInterval: -1)
        #expect(lenient.stalenessInterval == -1)
        #expect(cached.value(forKey: "text") as? String == "old")
        // Refreshed, it reads its record again.
        lenient.refresh(cached, mergeChanges: false)
        #expect(cached.value(forKey: "text") as? String == "new")

        let other = try TemporaryFolder()
        let (strict, fresh) = try staleFault(other, stalenessInterval: 0)
        #expect(fresh.value(forKey: "text") as? String == "new")
        strict.refresh(fresh, mergeChanges: false)
        #expect(fresh.value(forKey: "text") as? String == "new")
    }

    @Test func aPositiveIntervalUsesRowsYoungerThanIt() throws {
        // Rows read a moment ago are young enough for a minute.
        let young = try TemporaryFolder()
        let (recentContext, recent) = try staleFault(young, stalenessInterval: 60)
        #expect(recent.value(forKey: "text") as? String == "old")
        #expect(recentContext.stalenessInterval == 60)
        // Once older than the interval, the fault reads its store.
        let aged = try TemporaryFolder()
        let (agedContext, old) = try staleFault(aged, stalenessInterval: 0.001)
        usleep(20_000)
        #expect(old.value(forKey: "text") as? String == "new")
        #expect(agedContext.stalenessInterval == 0.001)
    }

    @Test(arguments: types)
    func aFaultWhoseRecordIsGoneBecomesADeletedObject(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Notes.\(type.rawValue.lowercased())"))
        let writer = ManagedObjectContext()
        writer.persistentStoreCoordinator = coordinator
        for text in ["kept", "gone"] {
            let note = EntityDescription.insertNewObject(forEntityName: "Note", into: writer)
            note.setValue(text, forKey: "text")
            note.setValue(3, forKey: "stars")
        }
        try writer.save()

        for deletes in [true, false] {
            let reader = ManagedObjectContext()
            reader.persistentStoreCoordinator = coordinator
            #expect(reader.shouldDeleteInaccessibleFaults)
            reader.shouldDeleteInaccessibleFaults = deletes
            let request = FetchRequest<ManagedObject>(entityName: "Note")
            request.predicate = try QueryPredicate(format: "text == %@", "gone")
            guard let gone = try reader.fetch(request).first else {
                Issue.record("no note to delete")
                return
            }
            let doomed = BatchDeleteRequest(objectIDs: [gone.objectID])
            #expect(try writer.execute(doomed).status)
            // The fault fires: its record is gone. Nil values, no trap; deleted when the context says so.
            #expect(gone.value(forKey: "text") == nil)
            #expect(gone.value(forKey: "stars") as? Int64 ?? 0 == 0)
            #expect(gone.isDeleted == deletes)
            #expect(!reader.deletedObjects.contains(gone))
            #expect(throws: QuireError.self) { try gone.validatedValue(forKey: "text") }
            // Nothing is left for a save to delete.
            try reader.save()
            // The next note to delete.
            let note = EntityDescription.insertNewObject(forEntityName: "Note", into: writer)
            note.setValue("gone", forKey: "text")
            try writer.save()
        }
    }
}
