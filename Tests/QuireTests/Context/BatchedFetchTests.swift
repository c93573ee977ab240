import CSQLite
import Foundation
import Testing

import Quire

@Suite("Batched fetches and prefetching")
struct BatchedFetchTests {
    static func itemModel() -> ManagedObjectModel {
        let number = AttributeDescription(name: "number", type: .integer64)
        number.isIndexed = true
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [number, AttributeDescription(name: "label", type: .string)])
        ])
    }

    /// A store of `count` items (`number` 0..<count), written with raw SQL so the test stays fast.
    static func itemStore(count: Int, in folder: TemporaryFolder) throws -> URL {
        let url = folder.file("Items.sqlite")
        let (coordinator, _) = try Fixtures.stack(itemModel(), at: url)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK else { throw QuireError(.sqlite, "cannot open \(url.path)") }
        defer { sqlite3_close(db) }
        let sql = """
            BEGIN;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(count))
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZLABEL) SELECT x, 1, 1, x - 1, 'item ' || x FROM c;
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = 1;
            COMMIT;
            """
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw QuireError(.sqlite, String(cString: sqlite3_errmsg(db)))
        }
        return url
    }

    @Test func twoHundredThousandObjectsWithFlatMemory() throws {
        let folder = try TemporaryFolder()
        let count = 200_000
        let url = try Self.itemStore(count: count, in: folder)
        let (_, context) = try Fixtures.stack(Self.itemModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("number", ascending: false)]
        request.fetchBatchSize = 2_000
        let items = try context.fetchBatched(request)
        #expect(items.count == count)
        #expect(context.registeredObjects.isEmpty)
        var largest = 0
        var expected = Int64(count - 1)
        var mismatches = 0
        for (index, item) in items.enumerated() {
            if item.attributeValue(forKey: "number") != .integer(expected) { mismatches += 1 }
            expected -= 1
            if index % 10_000 == 9_999 {
                largest = max(largest, context.registeredObjects.count)
                #expect(items.loadedBatchCount <= 2)
            }
        }
        #expect(mismatches == 0)
        // Two batches loaded at most, plus the object being read: never more than 2 × 2,000 alive.
        #expect(largest <= 2 * request.fetchBatchSize)
        #expect(largest >= request.fetchBatchSize)
        // Random access loads the batch it needs.
        #expect(items[123_456].attributeValue(forKey: "number") == .integer(Int64(count - 1 - 123_456)))
        #expect(items[5].attributeValue(forKey: "label") == .string("item \(count - 5)"))
    }

    @Test func batchesHonorPredicatesLimitsAndPendingChanges() throws {
        let library = try LibraryFixture()
        let context = library.context
        let entity = try #require(library.coordinator.managedObjectModel.entitiesByName["Author"])
        let zed = ManagedObject(entity: entity, insertInto: context)
        zed.setValue("Zed", forKey: "firstName")
        zed.setValue(99, forKey: "age")
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        request.predicate = try QueryPredicate(format: "age > 30")
        request.sortDescriptors = [SortKey("firstName")]
        request.fetchBatchSize = 2
        request.relationshipKeyPathsForPrefetching = ["publications"]
        let batched = try context.fetchBatched(request)
        let names = batched.map { $0.value(forKey: "firstName") as? String }
        #expect(names == (try context.fetch(request)).map { $0.value(forKey: "firstName") as? String })
        #expect(names == ["ANN", "Ann", "Chloé", "Zed", "Émile"])
        request.fetchLimit = 2
        request.fetchOffset = 1
        #expect(try context.fetchBatched(request).map { $0.value(forKey: "firstName") as? String } == ["Ann", "Chloé"])
    }

    static func walk(_ publications: [ManagedObject]) -> [String] {
        var seen: [String] = []
        for publication in publications {
            let author = publication.value(forKey: "mainAuthor") as? ManagedObject
            seen.append(author?.value(forKey: "firstName") as? String ?? "-")
            seen.append((author?.value(forKey: "address") as? ManagedObject)?.value(forKey: "city") as? String ?? "-")
            let tags = (author?.value(forKey: "tags") as? Set<ManagedObject>) ?? []
            seen.append(tags.compactMap { $0.value(forKey: "name") as? String }.sorted().joined(separator: "+"))
            let reviews = (publication.value(forKey: "reviews") as? Set<ManagedObject>) ?? []
            seen.append(reviews.compactMap { $0.value(forKey: "stars") as? Int16 }.sorted().map(String.init).joined())
        }
        return seen
    }

    @Test func prefetchingAnUnknownKeyThrows() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        request.relationshipKeyPathsForPrefetching = ["title"]
        #expect(throws: QuireError.self) { try library.context.fetch(request) }
    }
}
