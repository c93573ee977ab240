import Foundation
import OrderedCollections
import Testing

import Quire

/// The XML store reads each object straight into its packed record: objects whose elements come in any
/// order, skip attributes or list a target twice read back as Core Data reads them, and a bad target in any
/// relationship element is refused, as is an element that comes twice in one object (which one to keep is not
/// the reader's guess).
@Suite struct XMLPackedReadTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private static func model() -> ManagedObjectModel {
        let thing = EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "a", type: .string),
            AttributeDescription(name: "n", type: .integer16),
            AttributeDescription(name: "d", type: .double),
            AttributeDescription(name: "t", type: .date),
            AttributeDescription(name: "b", type: .binaryData),
            AttributeDescription(name: "f", type: .boolean),
            AttributeDescription(name: "r", type: .float),
            AttributeDescription(name: "m", type: .decimal),
            AttributeDescription(name: "u", type: .uuid),
            RelationshipDescription(name: "best", destination: "Thing"),
            RelationshipDescription(name: "friends", destination: "Thing", toMany: true),
            RelationshipDescription(name: "queue", destination: "Thing", toMany: true, isOrdered: true),
        ])
        let other = EntityDescription(name: "Other", properties: [AttributeDescription(name: "label", type: .string)])
        return ManagedObjectModel(entities: [thing, other])
    }

    private func document(_ objects: String) -> String {
        """
        <?xml version="1.0" standalone="yes"?>
        <database>
            <databaseInfo><version>134481920</version><UUID>5B1D7B5E-0000-4000-8000-000000000002</UUID>
            <nextObjectID>10</nextObjectID><metadata><plist version="1.0"><dict>
            <key>NSStoreType</key><string>XML</string>
            <key>NSStoreUUID</key><string>5B1D7B5E-0000-4000-8000-000000000002</string>
            </dict></plist></metadata></databaseInfo>
        \(objects)
        </database>
        """
    }

    private func open(_ xml: String) throws -> (PersistentStoreCoordinator, URL) {
        let url = folder.file("Things-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .xml, at: url)
        return (coordinator, url)
    }

    @Test func elementsInAnyOrderOrMissingReadBack() throws {
        let (coordinator, _) = try open(document("""
            <object type="THING" id="z1">
                <attribute name="u" type="string">E621E1F8-C36C-495A-93FC-0C247A3E6E5F</attribute>
                <attribute name="n" type="int16"> 12 </attribute>
                <attribute name="a" type="string">h\u{E9}llo &amp; bye</attribute>
                <attribute name="b" type="binary">aGVs
            bG8=</attribute>
                <attribute name="f" type="bool">true</attribute>
                <attribute name="d" type="double">1e3</attribute>
                <relationship name="friends" type="0/0" destination="THING" idrefs="z2 z2 z1"></relationship>
                <relationship name="queue" type="0/0" destination="THING" idrefs="z2 z3 z2 z1"></relationship>
                <relationship name="best" type="0/1" destination="THING" idrefs="z2"></relationship>
            </object>
            <object type="THING" id="z2">
                <attribute name="r" type="float">0.5</attribute>
                <attribute name="t" type="date">12.5</attribute>
                <attribute name="m" type="decimal">1.25</attribute>
                <attribute name="f" type="bool">0</attribute>
            </object>
            <object type="THING" id="z3"></object>
            """))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let things = try context.fetch(FetchRequest<ManagedObject>(entityName: "Thing"))
        let byKey = Dictionary(uniqueKeysWithValues: things.map { ($0.objectID.primaryKey ?? 0, $0) })
        let one = try #require(byKey[1])
        let two = try #require(byKey[2])
        let three = try #require(byKey[3])
        #expect(one.value(forKey: "a") as? String == "h\u{E9}llo & bye")
        #expect(one.value(forKey: "n") as? Int16 == 12)
        #expect(one.value(forKey: "d") as? Double == 1000)
        #expect(one.value(forKey: "t") == nil)
        #expect(one.value(forKey: "b") as? Data == Data("hello".utf8))
        #expect(one.value(forKey: "f") as? Bool == true)
        #expect(one.value(forKey: "r") == nil)
        #expect(one.value(forKey: "u") as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect((one.value(forKey: "best") as? ManagedObject) === two)
        let friends = try #require(one.value(forKey: "friends") as? Set<ManagedObject>)
        #expect(friends.count == 2)
        #expect(Set(friends.compactMap { $0.objectID.primaryKey }) == [1, 2])
        let queue = try #require(one.value(forKey: "queue") as? OrderedSet<ManagedObject>)
        #expect(queue.map { $0.objectID.primaryKey ?? 0 } == [2, 3, 1])
        #expect(two.value(forKey: "r") as? Float == 0.5)
        #expect(two.value(forKey: "t") as? Date == Date(timeIntervalSinceReferenceDate: 12.5))
        #expect(two.value(forKey: "m") as? Decimal == Decimal(string: "1.25"))
        #expect(two.value(forKey: "f") as? Bool == false)
        #expect(two.value(forKey: "a") == nil)
        #expect(two.value(forKey: "best") == nil)
        #expect((two.value(forKey: "friends") as? Set<ManagedObject>)?.isEmpty == true)
        #expect(three.value(forKey: "n") == nil)
    }

    @Test func aToOneTargetOfAnotherEntityIsRefused() throws {
        let xml = document("""
            <object type="THING" id="z1">
                <relationship name="best" type="0/1" destination="THING" idrefs="z2"></relationship>
            </object>
            <object type="OTHER" id="z2"></object>
            """)
        let error = try #require(throws: QuireError.self) { _ = try open(xml) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("'best' of object z1 refers to z2, which is not an object of entity 'Thing'"))
        #expect(error.context.entity == "Thing")
        #expect(error.context.position == 9)
    }

    /// Before: the later element replaced the earlier one (its target still checked), so one of the two values
    /// was lost without a word.
    @Test func anElementRepeatedInOneObjectIsRefused() throws {
        let xml = document("""
            <object type="THING" id="z1">
                <relationship name="best" type="0/1" destination="THING" idrefs="z1"></relationship>
                <attribute name="a" type="string">first</attribute>
                <relationship name="best" type="0/1" destination="THING" idrefs="z1"></relationship>
            </object>
            """)
        let error = try #require(throws: QuireError.self) { _ = try open(xml) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("is invalid at line 11, in <relationship>: object z1 has a second <relationship> element of 'best'."), "\(error.message)")
        #expect(error.context.position == 11)
    }

    @Test func aToManyTargetOfAnotherEntityIsRefused() throws {
        let xml = document("""
            <object type="THING" id="z1">
                <relationship name="friends" type="0/0" destination="THING" idrefs="z1 z1 z2"></relationship>
            </object>
            <object type="OTHER" id="z2"></object>
            """)
        let error = try #require(throws: QuireError.self) { _ = try open(xml) }
        #expect(error.message.contains("'friends' of object z1 refers to z2"))
    }

    @Test func invalidUTF8InAStringIsRefused() throws {
        let url = folder.file("Bytes.xml")
        var bytes = Data(document("""
            <object type="THING" id="z1"><attribute name="a" type="string">ab#cd</attribute></object>
            """).utf8)
        let hash = try #require(bytes.firstIndex(of: UInt8(ascii: "#")))
        bytes[hash] = 0xC3
        try bytes.write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .xml, at: url) }
        #expect(error.message.contains("is not a valid string value for 'a'"))
        #expect(error.context.position == 8)
    }
}
