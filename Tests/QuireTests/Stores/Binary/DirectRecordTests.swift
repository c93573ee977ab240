import Foundation
import OrderedCollections
import QuireTestSupport
import Testing

import Quire
import QuireCore
@testable import QuireStores

/// A record written directly into memory set aside for it (`BinaryObjectCoding.storeRecord`) is, byte for byte,
/// what `appendRecord` appends, for every kind of value and relationship; records with values made from
/// strings (decimals, URIs, external data) are left to `appendRecord`.
@Suite struct DirectRecordTests {
    static let model: ManagedObjectModel = {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "i", type: .integer64), AttributeDescription(name: "s", type: .string),
            AttributeDescription(name: "d", type: .double), AttributeDescription(name: "f", type: .float),
            AttributeDescription(name: "b", type: .boolean), AttributeDescription(name: "t", type: .date),
            AttributeDescription(name: "x", type: .binaryData), AttributeDescription(name: "u", type: .uuid),
            AttributeDescription(name: "m", type: .decimal), AttributeDescription(name: "r", type: .uri),
            AttributeDescription(name: "temporary", type: .string).transient(),
            RelationshipDescription(name: "owner", destination: "Item", inverse: "owned"),
            RelationshipDescription(name: "owned", destination: "Item", toMany: true, inverse: "owner"),
            RelationshipDescription(name: "queue", destination: "Item", toMany: true, isOrdered: true),
        ])
        return ManagedObjectModel(entities: [item])
    }()

    /// The bytes `appendRecord` appends, and the direct path's (nil when it declines).
    static func encodings(_ row: RowSnapshot, _ entity: EntityDescription) -> (append: [UInt8], direct: [UInt8]?) {
        let layout = BinaryObjectCoding.RecordLayout(entity)
        var writer = ByteWriter()
        BinaryObjectCoding.appendRecord(row, layout: layout, to: &writer)
        guard let size = BinaryObjectCoding.directRecordSize(row, layout: layout) else { return (writer.bytes, nil) }
        var direct = [UInt8](repeating: 0xAA, count: size)
        let stored = direct.withUnsafeMutableBytes { BinaryObjectCoding.storeRecord(row, layout: layout, into: $0) }
        return (writer.bytes, stored ? direct : [])
    }

    @Test func everyDirectValueAndRelationshipIsWrittenAsAppendRecordWritesIt() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let entity = try #require(Self.model.entitiesByName["Item"])
        func id(_ key: Int64) -> ObjectID { ObjectID(entity: entity, store: store, primaryKey: key) }
        let slots = Dictionary(uniqueKeysWithValues: entity.allAttributes.map { ($0.name, $0.slot) })
        let relationshipSlots = Dictionary(uniqueKeysWithValues: entity.allRelationships.map { ($0.name, $0.slot) })
        var attributes = [AttributeValue](repeating: .null, count: entity.allAttributes.count)
        var relationships = [RelationshipStorage](repeating: .fault, count: entity.allRelationships.count)

        // Nulls everywhere, faults and empty relationships.
        var row = RowSnapshot(objectID: id(1), version: 1, attributes: attributes, relationships: relationships)
        var (append, direct) = Self.encodings(row, entity)
        #expect(direct == append)

        // Every direct kind, with strings that are empty, ASCII and not, and data of several sizes.
        for (text, data) in [("", Data()), ("plain", Data([1, 2, 3])), ("Straße ✓ 日本", Data(repeating: 9, count: 5000))] {
            attributes[slots["i"]!] = .integer(-42)
            attributes[slots["s"]!] = .string(text)
            attributes[slots["d"]!] = .double(-0.125)
            attributes[slots["f"]!] = .float(3.5)
            attributes[slots["b"]!] = .boolean(text.isEmpty)
            attributes[slots["t"]!] = .date(Date(timeIntervalSinceReferenceDate: 123.5))
            attributes[slots["x"]!] = .data(data)
            attributes[slots["u"]!] = .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
            attributes[slots["temporary"]!] = .string("not stored")
            relationships[relationshipSlots["owner"]!] = .toOne(id(7))
            relationships[relationshipSlots["owned"]!] = .toMany(Set((2...40).map(id)))
            relationships[relationshipSlots["queue"]!] = .ordered(OrderedSet([id(9), id(3), id(5)]))
            row = RowSnapshot(objectID: id(Int64(text.utf8.count + 2)), version: 3, attributes: attributes, relationships: relationships)
            (append, direct) = Self.encodings(row, entity)
            #expect(direct == append, "\(text)")
        }

        // A to-one without a target, and relationships too short for the layout.
        relationships[relationshipSlots["owner"]!] = .toOne(nil)
        row = RowSnapshot(objectID: id(50), version: 1, attributes: attributes, relationships: relationships)
        (append, direct) = Self.encodings(row, entity)
        #expect(direct == append)
        row = RowSnapshot(objectID: id(51), version: 1, attributes: Array(attributes.prefix(3)), relationships: [])
        (append, direct) = Self.encodings(row, entity)
        #expect(direct == append)

        // Decimals and URIs are left to appendRecord.
        for value in [AttributeValue.decimal(Decimal(string: "1.25")!), .uri(URL(string: "https://example.org")!)] {
            var others = attributes
            others[slots[value.isDecimal ? "m" : "r"]!] = value
            row = RowSnapshot(objectID: id(60), version: 1, attributes: others, relationships: relationships)
            #expect(Self.encodings(row, entity).direct == nil)
        }
    }

    /// A binary store of every kind of value reads back what was saved (the records packed the direct way).
    @Test func aBinaryStoreOfEveryKindReadsBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Every.quire")
        let model = Fixtures.everyTypeModel()
        let entity = try #require(model.entitiesByName["Sample"])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for index in 0..<20 {
            let sample = ManagedObject(entity: entity, insertInto: context)
            sample.setValue("sample \(index) é", forKey: "vString")
            sample.setValue(Int64(index) * 1_000_000_007, forKey: "vInteger64")
            sample.setValue(Int16(index), forKey: "vInteger16")
            sample.setValue(Double(index) / 3, forKey: "vDouble")
            sample.setValue(Float(index) / 4, forKey: "vFloat")
            sample.setValue(index % 2 == 0, forKey: "vBoolean")
            sample.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "vDate")
            sample.setValue(Data(repeating: UInt8(index), count: index * 10), forKey: "plainData")
            sample.setValue(UUID(), forKey: "vUuid")
            if index % 3 == 0 { sample.setValue(Decimal(index) / 8, forKey: "vDecimal") }
        }
        try context.save()
        let before = try ObjectGraphDump(context: context)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try ObjectGraphDump(storeAt: url, type: .binary).differences(from: before).isEmpty)
    }
}

extension AttributeValue {
    fileprivate var isDecimal: Bool {
        if case .decimal = self { return true }
        return false
    }
}

extension AttributeDescription {
    fileprivate func transient() -> AttributeDescription {
        isTransient = true
        return self
    }
}
