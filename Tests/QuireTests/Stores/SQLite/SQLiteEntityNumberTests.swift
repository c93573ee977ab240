import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Entity numbers (`Z_ENT`): Core Data's depth-first numbering for new stores, and an existing store's own
/// `Z_PRIMARYKEY` numbers for reading and writing it, including stores Quire wrote with its former alphabetical
/// numbering and `Z<n><REL>` entity columns.
@Suite struct SQLiteEntityNumberTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Animal ⊃ zebra, birds, and keepers whose favourite is an animal. Quire's former numbering (byte order of
    /// the names): Animal 1, Keeper 2, bird 3, zebra 4; Core Data's (depth-first, case-insensitive): Animal 1,
    /// zebra 2, bird 3, Keeper 4.
    static func zooModel() -> ManagedObjectModel {
        let animal = EntityDescription(name: "Animal", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "fans", destination: "Keeper", toMany: true, inverse: "favourite"),
        ])
        let zebra = EntityDescription(name: "zebra", properties: [AttributeDescription(name: "stripes", type: .integer32)])
        animal.subentities = [zebra]
        let keeper = EntityDescription(name: "Keeper", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "favourite", destination: "Animal", inverse: "fans"),
        ])
        let bird = EntityDescription(name: "bird", properties: [AttributeDescription(name: "wingspan", type: .double)])
        return ManagedObjectModel(entities: [keeper, zebra, bird, animal])
    }

    func fill(_ url: URL) throws {
        let (coordinator, context) = try Fixtures.stack(Self.zooModel(), at: url)
        let entities = coordinator.managedObjectModel.entitiesByName
        let zebra = ManagedObject(entity: try #require(entities["zebra"]), insertInto: context)
        zebra.setValue("Marty", forKey: "name")
        let keeper = ManagedObject(entity: try #require(entities["Keeper"]), insertInto: context)
        keeper.setValue("Alex", forKey: "name")
        keeper.setValue(zebra, forKey: "favourite")
        try context.save()
    }

    @Test func newStoresNumberEntitiesDepthFirstCaseInsensitively() throws {
        let url = folder.file("Zoo.sqlite")
        try fill(url)
        #expect(try sqlite3(url, "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == "1|Animal|0|1\n2|zebra|1|0\n3|bird|0|0\n4|Keeper|0|1")
        #expect(try sqlite3(url, "SELECT Z_ENT FROM ZANIMAL") == "2")
        // The entity column of a to-one into a hierarchy is Z<n>_<REL>, n the destination's number.
        #expect(try sqlite3(url, "SELECT ZFAVOURITE, Z1_FAVOURITE FROM ZKEEPER") == "1|2")
    }

    @Test func readsAndWritesAStoreWithQuiresFormerNumbering() throws {
        let url = folder.file("Zoo.sqlite")
        try fill(url)
        // Turn it into what Quire wrote before: byte-order numbers (zebra 4, Keeper 2), Z_MAX on every row of a
        // hierarchy, and Z1FAVOURITE.
        _ = try sqlite3(url, """
            UPDATE Z_PRIMARYKEY SET Z_ENT = -2 WHERE Z_ENT = 2; UPDATE Z_PRIMARYKEY SET Z_ENT = 2 WHERE Z_ENT = 4;
            UPDATE Z_PRIMARYKEY SET Z_ENT = 4 WHERE Z_ENT = -2; UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 4;
            UPDATE ZANIMAL SET Z_ENT = 4; UPDATE ZKEEPER SET Z_ENT = 2, Z1_FAVOURITE = 4;
            ALTER TABLE ZKEEPER RENAME COLUMN Z1_FAVOURITE TO Z1FAVOURITE;
            """)
        do {
            let (coordinator, context) = try Fixtures.stack(Self.zooModel(), at: url)
            let entities = coordinator.managedObjectModel.entitiesByName
            let keeper = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Keeper")).first)
            let favourite = try #require(keeper.value(forKey: "favourite") as? ManagedObject)
            #expect(favourite.entity.name == "zebra")
            let zebras = FetchRequest<ManagedObject>(entityName: "zebra")
            #expect(try context.count(for: zebras) == 1)
            // Keys come from the hierarchy's counter, whichever row keeps it: no UNIQUE constraint failure.
            let second = ManagedObject(entity: try #require(entities["zebra"]), insertInto: context)
            second.setValue("Gloria", forKey: "name")
            keeper.setValue(second, forKey: "favourite")
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT Z_PK, Z_ENT FROM ZANIMAL ORDER BY Z_PK") == "1|4\n2|4")
        #expect(try sqlite3(url, "SELECT ZFAVOURITE, Z1FAVOURITE FROM ZKEEPER") == "2|4")
        let (_, context) = try Fixtures.stack(Self.zooModel(), at: url)
        let keeper = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Keeper")).first)
        #expect((keeper.value(forKey: "favourite") as? ManagedObject)?.value(forKey: "name") as? String == "Gloria")
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "zebra")) == 2)
    }
}
