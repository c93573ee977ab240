// Counts the heap blocks one object holds, which has no public face: uses Quire's internals and glibc's block
// sizes (`quire_heap_block_size`).
import CQuireSupport
import Foundation
import Testing

@testable import Quire

/// What one object of the benchmark's `Item` entity (2 integers, 2 doubles, 3 strings of 20 characters, a
/// Boolean, a date, 64 bytes of data, a tag and a to-one) holds on the heap, by block size: issue 15's targets
/// are ≤ 400 bytes for a fault and ≤ 600 for a fired one, the registry's slot and the result array's entry
/// (16 bytes) included.
@Suite struct ObjectMemoryTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "i1", type: .integer64),
            AttributeDescription(name: "i2", type: .integer64),
            AttributeDescription(name: "d1", type: .double),
            AttributeDescription(name: "d2", type: .double),
            AttributeDescription(name: "s1", type: .string),
            AttributeDescription(name: "s2", type: .string),
            AttributeDescription(name: "s3", type: .string),
            AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "date", type: .date),
            AttributeDescription(name: "blob", type: .binaryData),
            AttributeDescription(name: "tag", type: .integer64),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
        ])
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
        ])
        return ManagedObjectModel(entities: [item, owner])
    }

    /// The registry's slot and the fetch result's entry for one object.
    static let bookkeeping = 16

    /// The size of the glibc heap block that holds `object` (its usable size and the block's 8-byte header).
    static func blockSize(_ object: AnyObject) -> Int {
        quire_heap_block_size(Unmanaged.passUnretained(object).toOpaque())
    }

    static func text(_ index: Int, _ field: Int) -> String {
        String("field-\(field)-value-\(index)-xxxxxxxxxx".prefix(20))
    }

    /// The median of the objects' sizes: glibc now and then hands out a block 16 bytes larger than asked for
    /// (when splitting a free block would leave too small a rest), which one object alone may show.
    static func median(_ sizes: [Int]) -> Int {
        let sorted = sizes.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func blob(_ index: Int) -> Data { Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &+ index) }) }

    /// Checks every value of the store's item `index` (``store(in:)``), its owner's name included.
    static func expectEveryValue(of item: ManagedObject, index: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(item.value(forKey: "i1") as? Int64 == Int64(index), sourceLocation: sourceLocation)
        #expect(item.value(forKey: "i2") as? Int64 == Int64(index * 7), sourceLocation: sourceLocation)
        #expect(item.value(forKey: "d1") as? Double == Double(index) / 3, sourceLocation: sourceLocation)
        #expect(item.value(forKey: "d2") as? Double == Double(index) * 2.5, sourceLocation: sourceLocation)
        for field in 1...3 {
            #expect(item.value(forKey: "s\(field)") as? String == text(index, field), sourceLocation: sourceLocation)
        }
        #expect(item.value(forKey: "flag") as? Bool == (index % 2 == 0), sourceLocation: sourceLocation)
        #expect(
            item.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: Double(index) * 86_400),
            sourceLocation: sourceLocation)
        #expect(item.value(forKey: "blob") as? Data == blob(index), sourceLocation: sourceLocation)
        #expect(item.value(forKey: "tag") as? Int64 == Int64(index % 100), sourceLocation: sourceLocation)
        #expect(
            (item.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String == "owner",
            sourceLocation: sourceLocation)
    }

    /// A store of 10 items, each with an owner.
    static func store(in folder: TemporaryFolder) throws -> URL {
        let url = folder.file("Memory.sqlite")
        let (_, context) = try Fixtures.stack(model(), at: url)
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
        let owner = ManagedObject(entity: try #require(model.entitiesByName["Owner"]), insertInto: context)
        owner.setValue("owner", forKey: "name")
        for index in 0..<10 {
            let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
            item.setValue(Int64(index), forKey: "i1")
            item.setValue(Int64(index * 7), forKey: "i2")
            item.setValue(Double(index) / 3, forKey: "d1")
            item.setValue(Double(index) * 2.5, forKey: "d2")
            for field in 1...3 { item.setValue(text(index, field), forKey: "s\(field)") }
            item.setValue(index % 2 == 0, forKey: "flag")
            item.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400), forKey: "date")
            item.setValue(blob(index), forKey: "blob")
            item.setValue(Int64(index % 100), forKey: "tag")
            item.setValue(owner, forKey: "owner")
        }
        try context.save()
        return url
    }

    @Test func aFaultTakesAtMost400Bytes() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: try Self.store(in: folder))
        let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        #expect(items.count == 10)
        var sizes: [Int] = []
        for item in items {
            #expect(item.isFault)
            let row = try #require(item.heldRow)
            sizes.append(Self.blockSize(item) + Self.blockSize(row) + Self.bookkeeping)
        }
        #expect(Self.median(sizes) <= 400, "faults take \(sizes) bytes")
    }
}
