import Foundation
import Testing

import Quire

/// Derived attributes computed at save on every store type, and kept by Core Data's triggers in SQLite stores.
@Suite struct DerivedAttributeTests {
    static let storeTypes: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Books with pages and an author; every derivation form Core Data allows, in Xcode's and Core Data's spellings.
    static func model() -> ManagedObjectModel {
        func derived(_ name: String, _ type: AttributeType, _ expression: String) -> AttributeDescription {
            let attribute = AttributeDescription(name: name, type: type)
            attribute.derivationExpression = expression
            return attribute
        }
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            derived("pagesCount", .integer64, "pages.@count"),
            derived("words", .integer64, "sum:(pages.words)"),
            derived("longest", .integer32, "pages.@max.words"),
            derived("searchTitle", .string, "canonical:(title)"),
            derived("shoutedTitle", .string, "uppercase:(title)"),
            derived("authorName", .string, "author.name"),
            derived("savedAt", .date, "now()"),
            RelationshipDescription(name: "pages", destination: "Page", toMany: true, inverse: "book", deleteRule: .cascade),
            RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
        ])
        let page = EntityDescription(name: "Page", properties: [
            AttributeDescription(name: "words", type: .integer64, defaultValue: 0),
            RelationshipDescription(name: "book", destination: "Book", inverse: "pages"),
        ])
        let author = EntityDescription(name: "Author", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "author"),
        ])
        return ManagedObjectModel(entities: [book, page, author])
    }

    @Test(arguments: storeTypes)
    func derivedValuesAreComputedAtSaveAndReadBack(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        #expect(model.unsupportedFeatures.isEmpty)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Books.\(type.rawValue.lowercased())"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String) throws -> ManagedObject {
            ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
        }
        let author = try insert("Author")
        author.setValue("Émile Zola", forKey: "name")
        let book = try insert("Book")
        book.setValue("Thérèse Raquin", forKey: "title")
        book.setValue(author, forKey: "author")
        book.setValue(Int64(99), forKey: "pagesCount")   // replaced at save: derived attributes are read-only
        var pages: [ManagedObject] = []
        for words in [120, 300] {
            let page = try insert("Page")
            page.setValue(Int64(words), forKey: "words")
            page.setValue(book, forKey: "book")
            pages.append(page)
        }
        let before = Date()
        try context.save()

        func check(_ object: ManagedObject, count: Int64, words: Int64, longest: Int32, author: String) {
            #expect(object.value(forKey: "pagesCount") as? Int64 == count)
            #expect(object.value(forKey: "words") as? Int64 == words)
            #expect(object.value(forKey: "longest") as? Int32 == longest)
            #expect(object.value(forKey: "searchTitle") as? String == "therese raquin")
            #expect(object.value(forKey: "shoutedTitle") as? String == "THÉRÈSE RAQUIN")
            #expect(object.value(forKey: "authorName") as? String == author)
            #expect((object.value(forKey: "savedAt") as? Date).map { $0 >= before.addingTimeInterval(-1) } == true)
        }
        check(book, count: 2, words: 420, longest: 300, author: "Émile Zola")

        // A page more, one gone, the author renamed: the book changes with its relationships and is recomputed.
        let third = try insert("Page")
        third.setValue(Int64(50), forKey: "words")
        third.setValue(book, forKey: "book")
        context.delete(pages[1])
        author.setValue("Zola", forKey: "name")
        book.setValue(book.value(forKey: "title"), forKey: "title")
        try context.save()
        check(book, count: 2, words: 170, longest: 120, author: "Zola")

        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        check(try reader.existingObject(with: book.objectID), count: 2, words: 170, longest: 120, author: "Zola")
    }

    @Test func newSQLiteStoresGetCoreDatasCountTriggers() throws {
        let folder = try TemporaryFolder()
        let url = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite")
        let (model, _) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: nil)
        #expect(model.entitiesByName["Book"]?.attributesByName["pagesCount"]?.derivationExpression == "count:(pages)")
        #expect(!model.unsupportedFeatures.contains { $0.contains("pagesCount") })
        let copy = folder.file("New.sqlite")
        do { _ = try Fixtures.stack(model, at: copy) }
        let triggers = "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        #expect(try sqlite3(copy, triggers) == (try sqlite3(url, triggers)))
        #expect(try sqlite3(copy, triggers).components(separatedBy: "CREATE TRIGGER").count == 6)
    }

    /// Core Data's own store: a page inserted through Quire is counted once, by the store's trigger.
    @Test func aCoreDataStoresTriggerCountsAPageQuireInserts() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"), to: url)
        let (model, _) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: nil)
        let before = try sqlite3(url, "SELECT ZPAGESCOUNT, (SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = 1) FROM ZBOOK WHERE Z_PK = 1")
        let parts = before.split(separator: "|").compactMap { Int64($0) }
        #expect(parts.count == 2 && parts[0] == parts[1])
        let (_, context) = try Fixtures.stack(model, at: url)
        let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first { $0.objectID.uriRepresentation().lastPathComponent == "p1" })
        let page = ManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
        page.setValue(Int32(999), forKey: "number")
        ValueTransformerRegistry.register(PageContentStandIn(), forName: "ContentTransformer")
        page.setValue(Data("a page".utf8), forKey: "content")
        page.setValue(book, forKey: "book")
        try context.save()
        let after = try sqlite3(url, "SELECT ZPAGESCOUNT, (SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = 1) FROM ZBOOK WHERE Z_PK = 1")
        #expect(after == "\(parts[0] + 1)|\(parts[0] + 1)")
        #expect(book.value(forKey: "pagesCount") as? Int64 == parts[0] + 1)
    }
}

/// Stores a page's content as it is (a stand-in for CoreDataPlus's `ContentTransformer`).
private struct PageContentStandIn: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        guard let data = value as? Data else { throw QuireError(.invalidArgument, "Not data: \(value)") }
        return data
    }
    func reverseTransformedValue(_ data: Data) throws -> Any { data }
}
