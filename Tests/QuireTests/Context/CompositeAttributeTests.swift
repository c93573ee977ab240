import Foundation
import Testing

import Quire

/// Composite attributes (`NSCompositeAttributeDescription`) on every store type: dictionaries in, dictionaries out,
/// elements stored as columns or attributes of their own, queried and sorted by `composite.element` key paths.
///
/// No Core Data file in the corpus uses a composite: the SQLite column names (`ZCITY`, an element's own name) follow a
/// public decompilation of Core Data's `NSSQLEntity`, not a real store.
@Suite struct CompositeAttributeTests {
    static let storeTypes: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// People with an address (street, city, a required postcode with a default, a nested geo position).
    static func model() -> ManagedObjectModel {
        let geo = CompositeAttributeDescription(name: "geo", elements: [
            AttributeDescription(name: "lat", type: .double),
            AttributeDescription(name: "lon", type: .double),
        ])
        let address = CompositeAttributeDescription(name: "address", elements: [
            AttributeDescription(name: "street", type: .string),
            AttributeDescription(name: "city", type: .string),
            AttributeDescription(name: "postcode", type: .string, isOptional: false, defaultValue: "00000"),
            geo,
        ])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "city", type: .string),
            address,
        ])
        return ManagedObjectModel(entities: [person])
    }

    static func url(_ folder: TemporaryFolder, _ type: StoreType, _ name: String = "People") -> URL? {
        type == .inMemory ? nil : folder.file("\(name).\(type.rawValue.lowercased())")
    }

    @discardableResult
    static func insertPeople(into context: ManagedObjectContext, model: ManagedObjectModel) throws -> [ManagedObject] {
        let entity = try #require(model.entitiesByName["Person"])
        var people: [ManagedObject] = []
        for (name, city, lat) in [("Ada", "Lyon", 45.76), ("Blaise", "Clermont", 45.78), ("Camille", "Arles", 43.68)] {
            let person = ManagedObject(entity: entity, insertInto: context)
            person.setValue(name, forKey: "name")
            person.setValue(["street": "1 rue \(name)", "city": city, "postcode": "69001", "geo": ["lat": lat, "lon": 4.8]], forKey: "address")
            people.append(person)
        }
        try context.save()
        return people
    }

    @Test(arguments: storeTypes)
    func aCompositeIsSavedAndReadBackAsADictionary(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: Self.url(folder, type))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let people = try Self.insertPeople(into: context, model: model)

        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let ada = try reader.existingObject(with: people[0].objectID)
        let address = try #require(ada.value(forKey: "address") as? [String: Any])
        #expect(address["city"] as? String == "Lyon")
        #expect(address["street"] as? String == "1 rue Ada")
        #expect((address["geo"] as? [String: Any])?["lat"] as? Double == 45.76)
        #expect(ada.value(forKeyPath: "address.city") as? String == "Lyon")
        #expect(ada.value(forKey: "address.geo.lon") as? Double == 4.8)
        // The entity's own `city` is another attribute.
        #expect(ada.value(forKey: "city") == nil)
    }

    @Test(arguments: storeTypes)
    func predicatesAndSortsReadElementKeyPaths(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: Self.url(folder, type))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try Self.insertPeople(into: context, model: model)

        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.predicate = try QueryPredicate(format: "address.city BEGINSWITH %@ OR address.geo.lat < 44", "Cl")
        request.sortDescriptors = [SortKey("address.geo.lat", ascending: false)]
        let found = try reader.fetch(request).map { $0.value(forKey: "name") as? String }
        #expect(found == ["Blaise", "Camille"])

        // The same predicate in memory, over unsaved changes: Ada moves.
        let ada = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first { $0.value(forKey: "name") as? String == "Ada" })
        ada.setValue(["city": "Clamart", "postcode": "92140", "geo": ["lat": 48.8, "lon": 2.26]], forKey: "address")
        let merged = try reader.fetch(request).map { $0.value(forKey: "name") as? String }
        #expect(merged == ["Ada", "Blaise", "Camille"])
        #expect(try QueryPredicate(format: "address.city == 'Clamart' AND address.street == nil").evaluate(with: ada))
    }

    @Test func sqliteStoresFlattenElementsIntoColumnsNamedByTheElement() throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let url = folder.file("People.sqlite")
        do {
            let (_, context) = try Fixtures.stack(model, at: url)
            try Self.insertPeople(into: context, model: model)
        }
        let columns = try sqlite3(url, "SELECT name FROM pragma_table_info('ZPERSON') ORDER BY name").split(separator: "\n")
        // `city` of the entity keeps ZCITY; the element `address.city` takes the next free name, as Core Data's
        // mapping generator uniques names.
        #expect(columns == ["ZCITY", "ZCITY1", "ZLAT", "ZLON", "ZNAME", "ZPOSTCODE", "ZSTREET", "Z_ENT", "Z_OPT", "Z_PK"])
        #expect(try sqlite3(url, "SELECT ZCITY1, ZPOSTCODE, ZLAT FROM ZPERSON WHERE ZNAME = 'Ada'") == "Lyon|69001|45.76")
    }

    @Test(arguments: storeTypes)
    func elementsAreValidatedAndStartWithTheirDefaults(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: Self.url(folder, type))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let person = ManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: context)
        #expect((person.value(forKey: "address") as? [String: Any])?["postcode"] as? String == "00000")
        #expect((model.entitiesByName["Person"]?.compositeAttributesByName["address"]?.defaultValue?["postcode"]) as? String == "00000")

        // A required element set to nil fails the save, naming the element.
        person.setValue(["city": "Lyon"], forKey: "address")
        #expect(throws: QuireError.self) { try context.save() }
        do {
            try context.save()
        } catch let error as QuireError {
            #expect(error.code == .validationMissingMandatoryProperty)
            #expect(error.context.key == "address.postcode")
        }
        // A key that names no element is refused, and nothing changes.
        #expect(throws: QuireError.self) { try person.setValidatedValue(["town": "Lyon"], forKey: "address") }
        #expect((person.value(forKey: "address") as? [String: Any])?["city"] as? String == "Lyon")
        #expect(throws: QuireError.self) { try person.setValidatedValue("Lyon", forKey: "address") }
        try person.setValidatedValue(["city": "Lyon", "postcode": "69001"], forKey: "address")
        try context.save()
    }

    /// Save As from every store type to every other keeps the composites.
    @Test(arguments: storeTypes)
    func saveAsBetweenEveryStoreTypeKeepsComposites(source: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var store = try coordinator.addPersistentStore(type: source, at: Self.url(folder, source, "Source"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try Self.insertPeople(into: context, model: model)
        var chain = Self.storeTypes.filter { $0 != source }
        chain.append(source)
        for (index, target) in chain.enumerated() {
            store = try coordinator.migratePersistentStore(store, to: Self.url(folder, target, "Copy\(index)"), type: target)
            let reader = ManagedObjectContext()
            reader.persistentStoreCoordinator = coordinator
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [SortKey("address.city", ascending: true)]
            let addresses = try reader.fetch(request).map { $0.value(forKey: "address") as? [String: Any] }
            #expect(addresses.map { $0?["city"] as? String } == ["Arles", "Clermont", "Lyon"], "after \(source) → \(target)")
            #expect(addresses.map { ($0?["geo"] as? [String: Any])?["lat"] as? Double } == [43.68, 45.78, 45.76])
        }
    }

    /// An inferred migration to a model version with one attribute more keeps every element.
    @Test(arguments: [StoreType.sqlite, .xml])
    func inferredMigrationKeepsTheElements(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let v1 = Self.model()
        let url = try #require(Self.url(folder, type))
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: v1)
            try coordinator.addPersistentStore(type: type, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try Self.insertPeople(into: context, model: v1)
        }
        let v2 = Self.model()
        v2.entitiesByName["Person"]?.properties.append(AttributeDescription(name: "age", type: .integer16))
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: type)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.sortDescriptors = [SortKey("name")]
        let people = try context.fetch(request)
        #expect(people.map { $0.value(forKeyPath: "address.city") as? String } == ["Lyon", "Clermont", "Arles"])
        #expect(people.map { $0.value(forKey: "address.geo.lat") as? Double } == [45.76, 45.78, 43.68])
    }

    @Test func theModelSurvivesItsOwnFileFormat() throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let file = folder.file("People.json")
        try model.write(to: file)
        let read = try ManagedObjectModel(contentsOf: file)
        let address = try #require(read.entitiesByName["Person"]?.compositeAttributesByName["address"])
        #expect(address.elements.map(\.name) == ["street", "city", "postcode", "geo"])
        #expect(read.entitiesByName["Person"]?.versionHash == model.entitiesByName["Person"]?.versionHash)
        // The composite's hash covers its elements (the composite's own name does not take part).
        let moved = Self.model()
        (moved.entitiesByName["Person"]?.compositeAttributesByName["address"]?.elements[1] as? AttributeDescription)?.name = "town"
        #expect(moved.entitiesByName["Person"]?.versionHash != model.entitiesByName["Person"]?.versionHash)
    }

    @Test func xcodeModelsDeclareCompositesBesideTheEntities() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("People.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Person" representedClassName="Person" syncable="YES">
                    <attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                <compositeAttribute name="Address">
                    <attribute name="city" optional="YES" attributeType="String"/>
                    <attribute name="postcode" attributeType="String" defaultValueString="00000"/>
                </compositeAttribute>
            </model>
            """.utf8).write(to: bundle.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: bundle)
        let home = try #require(model.entitiesByName["Person"]?.compositeAttributesByName["home"])
        #expect(home.elements.map(\.name) == ["city", "postcode"])
        #expect((home.elements[1] as? AttributeDescription)?.isOptional == false)

        // A composite attribute that names no definition is refused, naming it.
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Person" syncable="YES">
                    <attribute name="home" optional="YES" attributeType="Composite"/>
                </entity>
            </model>
            """.utf8).write(to: bundle.appendingPathComponent("contents"))
        do {
            _ = try ManagedObjectModel(contentsOf: bundle)
            Issue.record("A composite without a definition was read.")
        } catch let error as QuireError {
            #expect(error.code == .invalidModel)
            #expect(error.context.key == "home")
        }
    }
}
