import Foundation
import Testing

import Quire

/// Fetched properties evaluated lazily through the public API, kept until the object is refreshed.
@Suite struct FetchedPropertyTests {
    static let storeTypes: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Authors and books linked by name only; `Author.books` fetches the books whose `authorName` is the author's
    /// name, and `Author.picks` those of them whose genre contains the property's user info `genre`.
    static func model() -> ManagedObjectModel {
        let author = EntityDescription(name: "Author", properties: [AttributeDescription(name: "name", type: .string)])
        author.fetchedProperties = [
            FetchedPropertyDescription(name: "books", destinationEntityName: "Book", predicateFormat: "authorName == $FETCH_SOURCE.name"),
            FetchedPropertyDescription(
                name: "picks", destinationEntityName: "Book",
                predicateFormat: "authorName == $FETCH_SOURCE.name AND genre CONTAINS[c] $FETCHED_PROPERTY.userInfo.genre",
                userInfo: ["genre": "poetry"]),
        ]
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "authorName", type: .string),
            AttributeDescription(name: "genre", type: .string),
        ])
        return ManagedObjectModel(entities: [author, book])
    }

    static func titles(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0.value(forKey: "title") as? String }.sorted()
    }

    @Test(arguments: storeTypes)
    func aFetchedPropertyFetchesOnFirstUseAndAgainAfterARefresh(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Books.\(type.rawValue.lowercased())"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String, _ values: [String: String]) throws -> ManagedObject {
            let object = ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let emily = try insert("Author", ["name": "Emily"])
        _ = try insert("Book", ["title": "Poems", "authorName": "Emily", "genre": "Poetry"])
        _ = try insert("Book", ["title": "Letters", "authorName": "Emily", "genre": "Letters"])
        _ = try insert("Book", ["title": "Leaves", "authorName": "Walt", "genre": "Poetry"])
        try context.save()

        #expect(Self.titles(try emily.fetchedValue(forKey: "books")) == ["Letters", "Poems"])
        #expect(Self.titles(try emily.fetchedValue(forKey: "picks")) == ["Poems"])
        #expect(Self.titles(emily.value(forKey: "books") as? [ManagedObject] ?? []) == ["Letters", "Poems"])
        #expect(model.entitiesByName["Author"]?.fetchedProperty(named: "picks")?.userInfo == ["genre": "poetry"])

        // The result is kept: a book saved since does not appear until the author is refreshed.
        _ = try insert("Book", ["title": "Verses", "authorName": "Emily", "genre": "poetry"])
        try context.save()
        #expect(Self.titles(try emily.fetchedValue(forKey: "books")) == ["Letters", "Poems"])
        context.refresh(emily, mergeChanges: false)
        #expect(Self.titles(try emily.fetchedValue(forKey: "books")) == ["Letters", "Poems", "Verses"])
        #expect(Self.titles(try emily.fetchedValue(forKey: "picks")) == ["Poems", "Verses"])

        let error = try #require(throws: QuireError.self) { try emily.fetchedValue(forKey: "novels") }
        #expect(error.code == .unknownKey)
    }

    /// CoreStore's ColorsDemo (an Xcode model): `Palette.testFetchProperty` fetches every palette.
    @Test func coreStoresFetchedPropertyFetchesEveryPalette() throws {
        let folder = try TemporaryFolder()
        let model = try ManagedObjectModel(contentsOf: try FixtureFiles.url(
            "CoreData/Models/JohnEstropia__CoreStore/Demo/Sources/Demos/Classic/ColorsDemo/Classic.ColorsDemo.xcdatamodeld"))
        #expect(!model.unsupportedFeatures.contains { $0.contains("testFetchProperty") })
        let (_, context) = try Fixtures.stack(model, at: folder.file("Colors.sqlite"))
        let entity = try #require(model.entitiesByName["Palette"])
        let palettes = (0..<3).map { hue in
            let palette = ManagedObject(entity: entity, insertInto: context)
            palette.setValue(Float(hue) / 3, forKey: "hue")
            return palette
        }
        try context.save()
        #expect(Set(try palettes[0].fetchedValue(forKey: "testFetchProperty").map(\.objectID)) == Set(palettes.map(\.objectID)))
    }
}
