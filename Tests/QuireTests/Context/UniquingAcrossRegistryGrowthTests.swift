// Turns off the store-side merge of pending changes (a package switch) to reach the wholly in-memory fetch: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

/// One object per record, whatever order the registry saw the keys in: an object registered while its key was
/// far beyond the registry's table for its entity (kept aside) must still be found once fetches have grown
/// the table over that key. Before the fix, a later fetch made a second object for the same record (issue 15's
/// `fetch-sorted-with-pending-change` on 100,000 items: the wholly in-memory pass returned the moved item's
/// saved values as another object).
@Suite struct UniquingAcrossRegistryGrowthTests {
    static let count = 6_000

    /// A store of `count` items (`n` = 0…, `d` = n), and a new context on it that has registered nothing.
    static func stack(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "n", type: .integer64),
            AttributeDescription(name: "d", type: .double),
        ])
        let owner = EntityDescription(name: "Owner", properties: [AttributeDescription(name: "name", type: .string)])
        let url = folder.file("Uniquing.sqlite")
        let model = ManagedObjectModel(entities: [item, owner])
        let (_, writer) = try Fixtures.stack(model, at: url)
        for n in 0..<count {
            let object = ManagedObject(entity: item, insertInto: writer)
            object.setValue(Int64(n), forKey: "n")
            object.setValue(Double(n), forKey: "d")
        }
        try writer.save()
        let (_, context) = try Fixtures.stack(model, at: url)
        return context
    }

    static func one(_ n: Int, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "n == %d", n)
        return try #require(try context.fetch(request).first)
    }

    @Test func aFetchFindsTheObjectRegisteredBeforeTheTableReachedItsKey() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        let last = try Self.one(Self.count - 1, in: context)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("n")]
        let all = try context.fetch(request)
        #expect(all.count == Self.count)
        let sameRecord = all.filter { $0.objectID == last.objectID }
        #expect(sameRecord.count == 1)
        #expect(sameRecord.first === last)
        #expect(Set(all.map(ObjectIdentifier.init)).count == Self.count)
    }

    @Test func theInMemoryPassWithAPendingChangeReturnsOneObjectPerRecord() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("d", ascending: false)]
        request.fetchLimit = 10
        let clean = try context.fetch(request)
        #expect(clean.first?.value(forKey: "n") as? Int64 == Int64(Self.count - 1))
        // The top item moves to the end of the order; an unrelated insert too.
        let moved = try #require(clean.first)
        moved.setValue(-1.0, forKey: "d")
        let entities = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName)
        ManagedObject(entity: try #require(entities["Owner"]), insertInto: context).setValue("new", forKey: "name")

        let merged = try context.fetch(request)
        context.fetchesPendingChangesThroughStore = false
        let inMemory = try context.fetch(request)
        context.fetchesPendingChangesThroughStore = true
        let expected = ((Self.count - 11)..<(Self.count - 1)).reversed().map { Double($0) }
        #expect(merged.compactMap { $0.value(forKey: "d") as? Double } == expected)
        #expect(inMemory.compactMap { $0.value(forKey: "d") as? Double } == expected)
        #expect(inMemory.map(\.objectID) == merged.map(\.objectID))
        #expect(!inMemory.contains { $0.objectID == moved.objectID })

        // Every record of the whole in-memory answer has one object, the moved one among them.
        request.fetchLimit = 0
        context.fetchesPendingChangesThroughStore = false
        let all = try context.fetch(request)
        #expect(all.count == Self.count)
        #expect(all.filter { $0.objectID == moved.objectID }.count == 1)
        #expect(all.last === moved)
    }
}
