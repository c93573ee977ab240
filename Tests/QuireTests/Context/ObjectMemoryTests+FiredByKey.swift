// Checks that a fault fired by reading its row by key (an object made from its ID, not by a fetch) keeps the row
// packed as fetched objects do, which has no public face: uses Quire's internals and glibc's
// `malloc_usable_size`.
import Foundation
import Testing

@testable import Quire

extension ObjectMemoryTests {
    /// The faults of the store's items made from their IDs (`object(with:)`), which have no row until they fire.
    static func faultsByID(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        let ids = FetchRequest<ObjectID>(entityName: "Item")
        ids.resultType = .managedObjectID
        ids.sortDescriptors = [SortKey("i1")]
        return try context.fetch(ids).map { context.object(with: $0) }
    }

    @Test func aFaultFiredByKeyKeepsItsValuesPacked() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        let items = try Self.faultsByID(context)
        #expect(items.count == 10)
        var sizes: [Int] = []
        for (index, item) in items.enumerated() {
            #expect(item.isFault && item.heldRow == nil)
            #expect(item.value(forKey: "i1") as? Int64 == Int64(index))
            #expect(!item.isFault && !item.hasChanges)
            let packed = try #require(item.packedValues)
            #expect(item.storedAttributes.isEmpty && item.storedRelationships.isEmpty && item.changeState == nil)
            sizes.append(Self.blockSize(item) + Self.blockSize(packed) + Self.bookkeeping)
            Self.expectEveryValue(of: item, index: index)
        }
        #expect(Self.median(sizes) <= 400, "objects fired by key take \(sizes) bytes")
    }

    /// A change unpacks the fired row with its values as committed ones and its version kept: undo gives the
    /// value back, and a save by another context in between is a conflict. Refreshing and firing again reads
    /// the saved values.
    @Test func aChangeToAFaultFiredByKeyKeepsItsCommittedValuesAndVersion() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        context.undoManager = UndoManager()
        let item = try #require(try Self.faultsByID(context).dropFirst(3).first)
        #expect(item.value(forKey: "s2") as? String == Self.text(3, 2))
        try Self.expectChangeKeepsCommittedValuesAndVersion(of: item, in: context, coordinator: coordinator)

        context.refresh(item, mergeChanges: false)
        #expect(item.isFault)
        #expect(item.value(forKey: "s1") as? String == "theirs")
        #expect(item.packedValues != nil)
    }
}
