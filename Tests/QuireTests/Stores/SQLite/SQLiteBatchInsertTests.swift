import Foundation
import Testing

import Quire

/// Saves insert runs of sixteen rows of one entity with one statement (`INSERT OR FAIL … VALUES (…), (…)`), and
/// the rest row by row. These check the rows that reach the file when runs are full, cut short by another
/// entity, and followed by a remainder: strings and blobs lent from several rows at once (small strings among
/// them, whose bytes live only while they are lent), external data, nil values, to-one keys of objects inserted in
/// the same save, and the entity column of a relationship whose destination has sub-entities. A batch that fails
/// leaves nothing of the save in the file.
@Suite struct SQLiteBatchInsertTests {
    static func model() -> ManagedObjectModel {
        let place = EntityDescription(name: "Place", properties: [AttributeDescription(name: "name", type: .string)])
        let city = EntityDescription(name: "City", properties: [AttributeDescription(name: "population", type: .integer64)])
        place.subentities = [city]
        // Kept by a trigger Core Data's schema has for it, which the batched inserts run row by row.
        let itemCount = AttributeDescription(name: "itemCount", type: .integer64)
        itemCount.derivationExpression = "items.@count"
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            itemCount,
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
        ])
        let photo = AttributeDescription(name: "photo", type: .binaryData)
        photo.allowsExternalBinaryDataStorage = true
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "rank", type: .integer64),
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "note", type: .string),
            AttributeDescription(name: "bytes", type: .binaryData),
            photo,
            AttributeDescription(name: "score", type: .double),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
            RelationshipDescription(name: "place", destination: "Place"),
        ])
        return ManagedObjectModel(entities: [place, city, owner, item])
    }

    /// The values of item `rank`: short strings (stored in the string itself), long ones, nil and empty ones,
    /// blobs small and large enough to go to an external file.
    static func title(_ rank: Int) -> String? { rank % 7 == 3 ? nil : rank % 5 == 0 ? "" : "t\(rank)" }
    static func note(_ rank: Int) -> String? { rank % 2 == 0 ? String(repeating: "note \(rank) é✓ ", count: 20) : nil }
    static func bytes(_ rank: Int) -> Data? { rank % 3 == 0 ? nil : Data((0..<(rank * 37 % 300)).map { UInt8(truncatingIfNeeded: $0 &+ rank) }) }
    static func photo(_ rank: Int) -> Data? { rank % 9 == 1 ? Data(repeating: UInt8(rank), count: 1_100_000) : nil }

    @Test func fullRunsShortRunsAndRemaindersReachTheFileRowByRow() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Batches.sqlite")
        // 20 items, an owner, 21 items, a place, 35 items: runs of 16 cut short by other entities, and remainders.
        let runs = [20, 21, 35]
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            let cities = (0..<2).map { index in
                let city = EntityDescription.insertNewObject(forEntityName: "City", into: context)
                city.setValue("city \(index)", forKey: "name")
                return city
            }
            var owners: [ManagedObject] = []
            var rank = 0
            for (index, count) in runs.enumerated() {
                for _ in 0..<count {
                    let item = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue(Int64(rank), forKey: "rank")
                    item.setValue(Self.title(rank), forKey: "title")
                    item.setValue(Self.note(rank), forKey: "note")
                    item.setValue(Self.bytes(rank), forKey: "bytes")
                    item.setValue(Self.photo(rank), forKey: "photo")
                    item.setValue(Double(rank) / 4, forKey: "score")
                    if !owners.isEmpty && rank % 4 != 0 { item.setValue(owners[rank % owners.count], forKey: "owner") }
                    if rank % 3 == 1 { item.setValue(cities[rank % 2], forKey: "place") }
                    rank += 1
                }
                if index == 0 {
                    let owner = EntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                    owner.setValue("first", forKey: "name")
                    owners.append(owner)
                } else if index == 1 {
                    let place = EntityDescription.insertNewObject(forEntityName: "Place", into: context)
                    place.setValue("a place", forKey: "name")
                    owners.append(EntityDescription.insertNewObject(forEntityName: "Owner", into: context))
                }
            }
            try context.save()
        }

        // The file: one row per item, each inserted at version 1 with its own key and the item's entity number.
        let raw = try RawSQLite(url)
        let rows = try raw.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZRANK, ZTITLE FROM ZITEM ORDER BY ZRANK")
        let total = runs.reduce(0, +)
        #expect(rows.count == total)
        #expect(Set(rows.map { $0[0].int64 }).count == total)
        #expect(Set(rows.map { $0[1].int64 }).count == 1)
        #expect(rows.allSatisfy { $0[2].int64 == 1 })
        #expect(rows.map { $0[3].int64 } == (0..<total).map(Int64.init))
        #expect(rows.map { String(decoding: $0[4].data, as: UTF8.self) } == (0..<total).map { Self.title($0) ?? "" })

        // Every value, read back by a new stack.
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("rank")]
        let items = try context.fetch(request)
        #expect(items.count == total)
        for (rank, item) in items.enumerated() {
            #expect(item.value(forKey: "rank") as? Int64 == Int64(rank))
            #expect(item.value(forKey: "title") as? String == Self.title(rank), "item \(rank)")
            #expect(item.value(forKey: "note") as? String == Self.note(rank), "item \(rank)")
            #expect(item.value(forKey: "bytes") as? Data == Self.bytes(rank), "item \(rank)")
            #expect(item.value(forKey: "photo") as? Data == Self.photo(rank), "item \(rank)")
            #expect(item.value(forKey: "score") as? Double == Double(rank) / 4)
            let owner = item.value(forKey: "owner") as? ManagedObject
            if rank < runs[0] || rank % 4 == 0 {
                #expect(owner == nil, "item \(rank)")
            } else {
                let expected: String? = rank < runs[0] + runs[1] || rank % 2 == 0 ? "first" : nil
                #expect(owner != nil && owner?.value(forKey: "name") as? String == expected, "item \(rank)")
            }
            let place = item.value(forKey: "place") as? ManagedObject
            if rank % 3 == 1 {
                #expect(place?.entity.name == "City" && place?.value(forKey: "name") as? String == "city \(rank % 2)", "item \(rank)")
            } else {
                #expect(place == nil, "item \(rank)")
            }
        }
        let owners = try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner"))
        let first = try #require(owners.first { $0.value(forKey: "name") as? String == "first" })
        let firstItems = (runs[0]..<total).filter { $0 % 4 != 0 && ($0 < runs[0] + runs[1] || $0 % 2 == 0) }.count
        #expect((first.value(forKey: "items") as? Set<ManagedObject>)?.count == firstItems)
        #expect(first.value(forKey: "itemCount") as? Int64 == Int64(firstItems))
        let counts = try raw.rows("SELECT ZITEMCOUNT FROM ZOWNER ORDER BY Z_PK").map(\.[0].int64)
        #expect(counts.reduce(0, +) == Int64((runs[0]..<total).filter { $0 % 4 != 0 }.count))
    }

    @Test func aFailingBatchLeavesNothingOfTheSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Failing.sqlite")
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: url)
        let first = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
        first.setValue("taken", forKey: "title")
        try context.save()
        // An index of the application's own, outside the model, makes the tenth row of the next batch fail.
        try RawSQLite(url, readOnly: false).execute("CREATE UNIQUE INDEX OWN_UNIQUE_TITLE ON ZITEM (ZTITLE)")

        let items = (0..<40).map { rank in
            let item = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(rank == 9 ? "taken" : "title \(rank)", forKey: "title")
            return item
        }
        #expect(throws: QuireError.self) { try context.save() }
        #expect(try RawSQLite(url).rows("SELECT ZTITLE FROM ZITEM").map { String(decoding: $0[0].data, as: UTF8.self) } == ["taken"])
        #expect(items.allSatisfy { $0.isInserted })

        // The context kept its changes: once the duplicate is gone, the same save writes every row.
        items[9].setValue("title 9", forKey: "title")
        try context.save()
        #expect(try RawSQLite(url).rows("SELECT COUNT(*) FROM ZITEM")[0][0].int64 == 41)
        withExtendedLifetime(coordinator) {}
    }
}
