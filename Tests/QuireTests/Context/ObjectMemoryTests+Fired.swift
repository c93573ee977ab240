// Checks how a fired object keeps its values packed and where its change state lives, which have no public
// face: uses Quire's internals and glibc's `malloc_usable_size`.
import Foundation
import Testing

@testable import Quire

extension ObjectMemoryTests {
    @Test func aFiredObjectKeepsItsValuesPackedInAtMost600Bytes() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("i1")]
        let items = try context.fetch(request)
        #expect(items.count == 10)
        var sizes: [Int] = []
        for (index, item) in items.enumerated() {
            Self.expectEveryValue(of: item, index: index)
            // Fired, and still one packed row: no arrays of values, no change state.
            #expect(!item.isFault && !item.hasChanges)
            let packed = try #require(item.packedValues)
            #expect(item.storedAttributes.isEmpty && item.storedRelationships.isEmpty && item.changeState == nil)
            sizes.append(Self.blockSize(item) + Self.blockSize(packed) + Self.bookkeeping)
        }
        #expect(Self.median(sizes) <= 600, "fired objects take \(sizes) bytes")
    }

    /// The first change unpacks the values; the committed ones are what was fetched, rollback and save work
    /// from them, and the change state goes once the change is saved.
    @Test func aChangeToAPackedObjectKeepsItsCommittedValues() throws {
        let folder = try TemporaryFolder()
        let url = try Self.store(in: folder)
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try QueryPredicate(format: "i1 == 3")
            let item = try #require(try context.fetch(request).first)
            #expect(item.value(forKey: "s2") as? String == Self.text(3, 2))
            #expect(item.packedValues != nil && item.changeState == nil)

            item.setValue("changed", forKey: "s2")
            #expect(item.packedValues == nil && item.isUpdated)
            #expect(item.changeState?.committedAttributes != nil)
            #expect(item.changedValues().keys.sorted() == ["s2"])
            #expect(item.committedValues(forKeys: ["s2", "i1"])["s2"] as? String == Self.text(3, 2))
            #expect(item.value(forKey: "blob") as? Data == Self.blob(3))
            #expect(item.value(forKey: "owner") is ManagedObject)

            context.rollback()
            #expect(item.value(forKey: "s2") as? String == Self.text(3, 2))
            #expect(!item.hasChanges && item.changeState == nil)

            item.setValue("saved", forKey: "s2")
            try context.save()
            #expect(!item.hasChanges && item.changeState == nil)
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "i1 == 3")
        let item = try #require(try context.fetch(request).first)
        #expect(item.value(forKey: "s2") as? String == "saved")
        #expect(item.value(forKey: "s1") as? String == Self.text(3, 1))
        #expect(item.value(forKey: "blob") as? Data == Self.blob(3))
    }

    /// Undo of a change to a packed object gives the fetched value back.
    @Test func undoingAChangeToAPackedObject() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        context.undoManager = UndoManager()
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "i1 == 5")
        let item = try #require(try context.fetch(request).first)
        #expect(item.value(forKey: "d1") as? Double == 5.0 / 3)
        #expect(item.packedValues != nil)
        item.setValue(42.0, forKey: "d1")
        context.processPendingChanges()
        context.undo()
        #expect(item.value(forKey: "d1") as? Double == 5.0 / 3)
        #expect(item.value(forKey: "s1") as? String == Self.text(5, 1))
    }
}
