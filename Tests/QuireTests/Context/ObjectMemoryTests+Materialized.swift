// Checks that objects fetched filled (`returnsObjectsAsFaults = false`) keep their values packed as fired
// faults do, which has no public face: uses Quire's internals and glibc's `malloc_usable_size`.
import Foundation
import Testing

@testable import Quire

extension ObjectMemoryTests {
    /// A fetch of filled objects.
    static func materializedRequest(_ format: String? = nil) throws -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("i1")]
        request.returnsObjectsAsFaults = false
        if let format { request.predicate = try QueryPredicate(format: format) }
        return request
    }

    @Test func aMaterializedObjectKeepsItsValuesPackedInAtMost600Bytes() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        let items = try context.fetch(try Self.materializedRequest())
        #expect(items.count == 10)
        var sizes: [Int] = []
        for (index, item) in items.enumerated() {
            // Filled by the fetch, and its values one packed row: no arrays of values, no change state.
            #expect(!item.isFault && !item.hasChanges)
            let packed = try #require(item.packedValues)
            #expect(item.storedAttributes.isEmpty && item.storedRelationships.isEmpty && item.changeState == nil)
            sizes.append(Self.blockSize(item) + Self.blockSize(packed) + Self.bookkeeping)
            Self.expectEveryValue(of: item, index: index)
            #expect(item.packedValues != nil)
        }
        #expect(Self.median(sizes) <= 600, "materialized objects take \(sizes) bytes")
    }

    /// Changes item 3 (read, packed, into `context` with an undo manager): the change unpacks the values with the
    /// read ones as committed values, undo gives the read value back, and a save of the record by another
    /// context in between makes this one's change a conflict (the read version kept with the packed row). Leaves
    /// the context rolled back, its item holding the other context's save as a conflict.
    static func expectChangeKeepsCommittedValuesAndVersion(
        of item: ManagedObject, in context: ManagedObjectContext, coordinator: PersistentStoreCoordinator
    ) throws {
        #expect(item.packedValues != nil)
        item.setValue("changed", forKey: "s2")
        #expect(item.packedValues == nil && item.isUpdated)
        #expect(item.changedValues().keys.sorted() == ["s2"])
        #expect(item.committedValues(forKeys: ["s2"])["s2"] as? String == Self.text(3, 2))
        context.processPendingChanges()
        context.undo()
        #expect(item.value(forKey: "s2") as? String == Self.text(3, 2))
        #expect(item.value(forKey: "blob") as? Data == Self.blob(3))

        // Another context saves the record: this one's change to its older version is a conflict.
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        let theirs = try #require(try other.fetch(try Self.materializedRequest("i1 == 3")).first)
        theirs.setValue("theirs", forKey: "s1")
        try other.save()
        item.setValue("mine", forKey: "s1")
        #expect(throws: QuireError.self) { try context.save() }
        context.rollback()
    }

    /// A change unpacks the values with the fetched ones as committed values; a save from another context in
    /// between is detected as a conflict (the fetched version kept with the packed row), and undo gives the
    /// fetched value back.
    @Test func aChangeToAMaterializedObjectKeepsItsCommittedValuesAndVersion() throws {
        let folder = try TemporaryFolder()
        let url = try Self.store(in: folder)
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: url)
        context.undoManager = UndoManager()
        let item = try #require(try context.fetch(try Self.materializedRequest("i1 == 3")).first)
        try Self.expectChangeKeepsCommittedValuesAndVersion(of: item, in: context, coordinator: coordinator)

        // Refreshing takes the saved values, packed again by the next filled fetch.
        context.refresh(item, mergeChanges: false)
        let again = try #require(try context.fetch(try Self.materializedRequest("i1 == 3")).first)
        #expect(again === item)
        #expect(again.value(forKey: "s1") as? String == "theirs")
        #expect(again.packedValues != nil)
    }
}
