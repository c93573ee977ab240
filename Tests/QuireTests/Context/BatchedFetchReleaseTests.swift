import Foundation
import Testing

import Quire

/// A batched fetch result frees the objects of the batches it lets go, as Core Data's batched arrays do (their
/// contexts hold unchanged objects weakly): walking a million objects must not keep the ones already read.
@Suite("Batched fetches free the batches they let go")
struct BatchedFetchReleaseTests {
    /// A context on a store of `count` items (`number` 0..<count, `label` "item <number + 1>"), and a batched
    /// fetch of them by `number`, 10 a batch.
    static func walk(count: Int, in folder: TemporaryFolder) throws -> (ManagedObjectContext, BatchedFetchResult<ManagedObject>) {
        let url = try BatchedFetchTests.itemStore(count: count, in: folder)
        let (_, context) = try Fixtures.stack(BatchedFetchTests.itemModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("number")]
        request.fetchBatchSize = 10
        return (context, try context.fetchBatched(request))
    }

    /// Whether an item holds the values of position `index`.
    static func holdsValues(of index: Int, _ item: ManagedObject) -> Bool {
        item.value(forKey: "number") as? Int64 == Int64(index) && item.value(forKey: "label") as? String == "item \(index + 1)"
    }

    @Test func objectsOfBatchesAlreadyReadAreFreed() throws {
        let folder = try TemporaryFolder()
        let (_, items) = try Self.walk(count: 100, in: folder)
        var read: [WeakBox<ManagedObject>] = []
        var wrong: [Int] = []
        for index in items.indices {
            let item = items[index]
            if !Self.holdsValues(of: index, item) { wrong.append(index) }
            read.append(WeakBox(item))
        }
        #expect(wrong.isEmpty)
        // Batches 0 to 7 were let go; 8 and 9 are still loaded.
        let alive = read.indices.filter { read[$0].value != nil }
        #expect(alive == Array(80..<100))
        #expect(items.loadedBatchCount == 2)
        // Read again, a freed batch comes back with the same values.
        #expect(items.indices.allSatisfy { Self.holdsValues(of: $0, items[$0]) })
    }

    @Test func objectsKeptOrChangedStayTheSameObjects() throws {
        let folder = try TemporaryFolder()
        let (context, items) = try Self.walk(count: 50, in: folder)
        let kept = items[3]
        var changed: WeakBox<ManagedObject>?
        do {
            let object = items[5]
            object.setValue("renamed", forKey: "label")
            changed = WeakBox(object)
        }
        for index in items.indices { _ = items[index].value(forKey: "number") }
        // Batch 0 was let go: the object held and the one with an unsaved change stay registered and uniqued.
        #expect(items[3] === kept)
        #expect(changed?.value != nil)
        #expect(items[5] === changed?.value)
        #expect(items[5].value(forKey: "label") as? String == "renamed")
        #expect(context.hasChanges)
        try context.save()
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "number == 5")
        #expect(try context.fetch(request).first?.value(forKey: "label") as? String == "renamed")
    }
}
