import Foundation
import QuireTestSupport
import Testing

import Quire
import QuireCore
import QuireStores

/// Core Data's XML store writes entity names upper-cased and property names lower-cased: a model whose names
/// fold together is refused for XML stores, naming both, and an element the format has once per object is
/// refused when it comes twice (issue 33, item 5).
@Suite struct XMLNameFoldingTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static func model(entities names: [String]) -> ManagedObjectModel {
        ManagedObjectModel(entities: names.map { EntityDescription(name: $0, properties: [AttributeDescription(name: "title", type: .string)]) })
    }

    /// The error of adding an XML store at `url` with `model`, its cause when wrapped.
    func addError(_ model: ManagedObjectModel, at url: URL) throws -> QuireError {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .xml, at: url) }
        return (error.underlying as? QuireError) ?? error
    }

    @Test(arguments: [("Book", "BOOK", "BOOK"), ("Straße", "STRASSE", "STRASSE"), ("Book", "book", "BOOK")])
    func refusesEntitiesWhoseNamesUpperCaseAlike(first: String, second: String, written: String) throws {
        let url = folder.file("\(second).xml")
        let error = try addError(Self.model(entities: [first, second]), at: url)
        #expect(error.code == .persistentStoreIncompatibleSchema)
        let names = [first, second].sorted()
        #expect(
            error.message.contains("its entities '\(names[0])' and '\(names[1])' would both be written as '\(written)'"),
            "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing is written")
    }

    @Test func refusesPropertiesWhoseNamesLowerCaseAlike() throws {
        let attributes = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "Name", type: .string),
        ])
        var error = try addError(ManagedObjectModel(entities: [attributes]), at: folder.file("attributes.xml"))
        #expect(error.code == .persistentStoreIncompatibleSchema)
        #expect(error.message.contains("the attributes 'Name' and 'name' of entity 'Item' would both be written as 'name'"), "\(error.message)")

        let owner = EntityDescription(name: "Owner", properties: [
            RelationshipDescription(name: "item", destination: "Item", inverse: "owner"),
            RelationshipDescription(name: "ITEM", destination: "Item", inverse: "second"),
        ])
        let item = EntityDescription(name: "Item", properties: [
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "item"),
            RelationshipDescription(name: "second", destination: "Owner", inverse: "ITEM"),
        ])
        error = try addError(ManagedObjectModel(entities: [owner, item]), at: folder.file("relationships.xml"))
        #expect(error.message.contains("the relationships 'ITEM' and 'item' of entity 'Owner' would both be written as 'item'"), "\(error.message)")
    }

    /// An inherited attribute folds with the sub-entity's own.
    @Test func refusesAnInheritedNameThatFoldsWithAnOwnOne() throws {
        let base = EntityDescription(name: "Base", properties: [AttributeDescription(name: "size", type: .integer32)])
        let sub = EntityDescription(name: "Sub", properties: [AttributeDescription(name: "Size", type: .integer32)])
        base.subentities = [sub]
        let error = try addError(ManagedObjectModel(entities: [base, sub]), at: folder.file("inherited.xml"))
        #expect(error.message.contains("the attributes 'Size' and 'size' of entity 'Sub'"), "\(error.message)")
    }

    /// Before the fix, `Book` and `BOOK` in one model turned every `Book` into a `BOOK` on the way through XML,
    /// and `Book` and `book` made a file Quire then refused.
    @Test(arguments: [("Book", "BOOK"), ("Book", "book")])
    func conversionToXMLRefusesTheModel(first: String, second: String) throws {
        let model = Self.model(entities: [first, second])
        // A binary store (an SQLite store cannot hold both: their tables would both be ZBOOK).
        let source = folder.file("source.quire")
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, at: source)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            for name in [first, second] {
                ManagedObject(entity: try #require(model.entitiesByName[name]), insertInto: context).setValue(name, forKey: "title")
            }
            try context.save()
        }
        let contents = try DocumentContents(contentsOf: source)
        defer { contents.close() }
        let output = folder.file("out.xml")
        let error = try #require(throws: QuireError.self) {
            try contents.convert(to: output, container: .storeFile, storeType: .xml)
        }
        // The model's entities in its order (sorted by name).
        let names = [first, second].sorted()
        #expect(error.message.contains("its entities '\(names[0])' and '\(names[1])' would both be written as 'BOOK'"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "source.quire" }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Names that fold apart, ASCII or not, are written folded and read back as their entities and properties.
    @Test func nonASCIINamesThatFoldApartRoundTrip() throws {
        let street = EntityDescription(name: "Straße", properties: [
            AttributeDescription(name: "Größe", type: .integer32), AttributeDescription(name: "name", type: .string),
        ])
        let road = EntityDescription(name: "Road", properties: [AttributeDescription(name: "Name", type: .string)])
        let model = ManagedObjectModel(entities: [street, road])
        let url = folder.file("streets.xml")
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .xml, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let object = ManagedObject(entity: street, insertInto: context)
            object.setValue(Int32(12), forKey: "Größe")
            object.setValue("Hauptstraße", forKey: "name")
            ManagedObject(entity: road, insertInto: context).setValue("A1", forKey: "Name")
            try context.save()
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("<object type=\"STRASSE\""), "\(text)")
        #expect(text.contains("<attribute name=\"größe\" type=\"int32\">12</attribute>"), "\(text)")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let streets = try context.fetch(FetchRequest<ManagedObject>(entityName: "Straße"))
        #expect(streets.count == 1)
        #expect(streets.first?.value(forKey: "Größe") as? Int32 == 12)
        #expect(streets.first?.value(forKey: "name") as? String == "Hauptstraße")
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Road")) == 1)
    }

    // MARK: Repeated elements

    static let ownerModel: ManagedObjectModel = {
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
        ])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
        ])
        return ManagedObjectModel(entities: [owner, item])
    }()

    func store(_ objects: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <database>
            <databaseInfo><version>134481920</version><UUID>E7248607-A19C-432D-BA56-9629746E4B54</UUID><nextObjectID>9</nextObjectID><metadata></metadata></databaseInfo>
        \(objects)
        </database>
        """
    }

    /// The error of opening the XML text read-only with the owner model.
    func openError(_ text: String, _ name: String) throws -> QuireError {
        let url = folder.file(name)
        try Data(text.utf8).write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.ownerModel)
        var options = StoreOptions()
        options.isReadOnly = true
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .xml, at: url, options: options) }
        return (error.underlying as? QuireError) ?? error
    }

    @Test(arguments: [
        // As Quire and Core Data write them (the reader's one-step path), then in forms only the scanner reads.
        ("plain", #"<attribute name="name" type="string">A</attribute><attribute name="name" type="string">B</attribute>"#),
        ("case", #"<attribute name="name" type="string">A</attribute><attribute name="NAME" type="string">B</attribute>"#),
        ("quotes", #"<attribute type="string" name='name'>A</attribute><attribute name="name" type="string">B</attribute>"#),
        ("empty", #"<attribute name="name" type="string"/><attribute name="name" type="string">B</attribute>"#),
    ])
    func refusesARepeatedAttributeElement(label: String, attributes: String) throws {
        let text = store(#"<object type="OWNER" id="z1">"# + attributes + "</object>")
        let error = try openError(text, "\(label).xml")
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("in <attribute>: object z1 has a second <attribute> element of 'name'"), "\(label): \(error.message)")
    }

    @Test func refusesARepeatedRelationshipElement() throws {
        let text = store(
            """
            <object type="OWNER" id="z1">
                <relationship name="items" type="0/0" destination="ITEM" idrefs="z2"></relationship>
                <relationship name="items" type="0/0" destination="ITEM" idrefs="z3"></relationship>
            </object>
            <object type="ITEM" id="z2"><relationship name="owner" type="0/1" destination="OWNER" idrefs="z1"/></object>
            <object type="ITEM" id="z3"><relationship name="owner" type="0/1" destination="OWNER" idrefs="z1"/></object>
            """)
        let error = try openError(text, "relationships.xml")
        #expect(error.message.contains("line 6, in <relationship>: object z1 has a second <relationship> element of 'items'"), "\(error.message)")
        // An empty element counts as one too.
        let empty = store(
            """
            <object type="ITEM" id="z2"><relationship name="owner" type="0/1" destination="OWNER"/><relationship name="owner" type="0/1" destination="OWNER" idrefs="z1"/></object>
            <object type="OWNER" id="z1"></object>
            """)
        #expect(try openError(empty, "empty.xml").message.contains("object z2 has a second <relationship> element of 'owner'"))
    }

    /// The same object ids in different objects are still read as before: the check is per object.
    @Test func readsEachObjectsOwnElements() throws {
        let url = folder.file("sound.xml")
        try Data(store(
            """
            <object type="OWNER" id="z1"><attribute name="name" type="string">A</attribute><relationship name="items" type="0/0" destination="ITEM" idrefs="z2 z3"></relationship></object>
            <object type="ITEM" id="z2"><attribute name="title" type="string">x</attribute><relationship name="owner" type="0/1" destination="OWNER" idrefs="z1"></relationship></object>
            <object type="ITEM" id="z3"><attribute name="title" type="string">y</attribute><relationship name="owner" type="0/1" destination="OWNER" idrefs="z1"></relationship></object>
            """).utf8).write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.ownerModel)
        try coordinator.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let owner = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")).first)
        #expect((owner.value(forKey: "items") as? Set<ManagedObject>)?.count == 2)
    }
}
