// Checks how faults keep their fetched rows and how large IDs and values are, which have no public face: uses
// Quire's internals.
import Foundation
import Testing

@testable import Quire

/// Faults made by a fetch keep their rows packed in one allocation (`PackedRow`), and firing them gives every
/// value back exactly; the value types stay small.
@Suite struct PackedRowTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "big", type: .integer64),
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "ratio", type: .double),
            AttributeDescription(name: "score", type: .float),
            AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "when", type: .date),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "blob", type: .binaryData),
            AttributeDescription(name: "missing", type: .string),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
        ])
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "balance", type: .decimal),
            AttributeDescription(name: "uuid", type: .uuid),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
        ])
        return ManagedObjectModel(entities: [item, owner])
    }

    static let names = ["", "short", "a string longer than fifteen bytes", "naïve café ✓ — ünïcödé, longer than 15"]

    @Test func faultsKeepPackedRowsAndFireToTheSameValues() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Packed.sqlite")
        let ownerUUID = UUID()
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            let owner = ManagedObject(entity: try #require(model.entitiesByName["Owner"]), insertInto: context)
            owner.setValue(Decimal(string: "12.345"), forKey: "balance")
            owner.setValue(ownerUUID, forKey: "uuid")
            for index in 0..<4 {
                let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
                item.setValue(Int64.min + Int64(index), forKey: "big")
                item.setValue(Int16(-300 + index), forKey: "small")
                item.setValue(Double(index) / 3, forKey: "ratio")
                item.setValue(Float(index) * 1.5, forKey: "score")
                item.setValue(index % 2 == 0, forKey: "flag")
                item.setValue(Date(timeIntervalSinceReferenceDate: 1_000.25 * Double(index)), forKey: "when")
                item.setValue(Self.names[index], forKey: "name")
                item.setValue(Data((0..<(index * 30)).map { UInt8(truncatingIfNeeded: $0 &* 7) }), forKey: "blob")
                if index != 3 { item.setValue(owner, forKey: "owner") }
            }
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("big")]
        let items = try context.fetch(request)
        #expect(items.count == 4)
        for item in items {
            // A fault: its row is packed, and the object holds no arrays of values.
            #expect(item.isFault)
            let held = try #require(item.heldRow)
            #expect(held.header.unpacked == nil)
            #expect(item.attributeStorage.isEmpty && item.relationshipStorage.isEmpty)
        }
        for (index, item) in items.enumerated() {
            #expect(item.value(forKey: "big") as? Int64 == Int64.min + Int64(index))
            // Fired, its values still packed (see ObjectMemoryTests).
            #expect(!item.isFault && item.packedValues != nil)
            #expect(item.value(forKey: "small") as? Int16 == Int16(-300 + index))
            #expect(item.value(forKey: "ratio") as? Double == Double(index) / 3)
            #expect(item.value(forKey: "score") as? Float == Float(index) * 1.5)
            #expect(item.value(forKey: "flag") as? Bool == (index % 2 == 0))
            #expect(item.value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 1_000.25 * Double(index)))
            #expect(item.value(forKey: "name") as? String == Self.names[index])
            #expect(item.value(forKey: "blob") as? Data == Data((0..<(index * 30)).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
            #expect(item.value(forKey: "missing") == nil)
            let owner = item.value(forKey: "owner") as? ManagedObject
            #expect((owner == nil) == (index == 3))
        }
        // The owner's row holds a decimal and a UUID, which are not packed: it is kept as it came.
        let owners = try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner"))
        let owner = try #require(owners.first)
        #expect(try #require(owner.heldRow).header.unpacked != nil)
        #expect(owner.value(forKey: "balance") as? Decimal == Decimal(string: "12.345"))
        #expect(owner.value(forKey: "uuid") as? UUID == ownerUUID)
        #expect((owner.value(forKey: "items") as? Set<ManagedObject>)?.count == 3)
    }

    @Test func refreshingAFaultLetsItsRowGo() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Packed.sqlite")
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
            item.setValue("kept", forKey: "name")
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let item = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first)
        #expect(item.heldRow != nil)
        context.refresh(item, mergeChanges: false)
        #expect(item.isFault && item.heldRow == nil)
        #expect(item.value(forKey: "name") as? String == "kept")
    }

    /// IDs and attribute values are copied into every object, row and relationship: they stay small.
    @Test func idsAndValuesStaySmall() {
        #expect(MemoryLayout<ObjectID>.size == 24)
        #expect(MemoryLayout<AttributeValue>.stride == 24)
        // Every fault keeps a row: its header is 20 bytes, the generation in 32 bits after the row as it came.
        #expect(MemoryLayout<PackedRow.Header>.size == 20)
    }
}

extension PackedRowTests {
    /// A fault whose context went away still reads the values of the row it kept (the context is a temporary
    /// here, gone once `fetch` returns), as it did when faults kept their rows as arrays.
    @Test func aFaultOfAContextThatIsGoneReadsItsKeptRow() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Packed.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        func context() -> ManagedObjectContext {
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            return context
        }
        do {
            let seed = context()
            let item = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Item"]), insertInto: seed)
            item.setValue("kept", forKey: "name")
            try seed.save()
        }
        let names = try context().fetch(FetchRequest<ManagedObject>(entityName: "Item")).map { $0.value(forKey: "name") as? String }
        #expect(names == ["kept"])
    }
}
