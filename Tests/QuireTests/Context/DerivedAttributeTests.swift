import Foundation
import Testing

import Quire
import QuireStores

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

        // A page more, one gone: the book changes with its relationships and is recomputed.
        let third = try insert("Page")
        third.setValue(Int64(50), forKey: "words")
        third.setValue(book, forKey: "book")
        context.delete(pages[1])
        try context.save()
        check(book, count: 2, words: 170, longest: 120, author: "Émile Zola")

        // Only the author renamed and a page's words changed: the book itself is untouched, and its derived values
        // follow through the inverse relationships (as Core Data's triggers keep them in its SQLite stores).
        author.setValue("Zola", forKey: "name")
        pages[0].setValue(Int64(125), forKey: "words")
        try context.save()
        check(book, count: 2, words: 175, longest: 125, author: "Zola")

        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        check(try reader.existingObject(with: book.objectID), count: 2, words: 175, longest: 125, author: "Zola")
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

/// Derived attributes are read-only, as in Core Data; SQLite stores' `Z_DA_` triggers keep counts right for raw SQL.
@Suite struct DerivedAttributeReadOnlyTests {
    /// Core Data raises for a derived attribute set by hand; Quire reports it at the next save (a typed error, not a
    /// trap) and does not keep the value; `setValidatedValue` throws at once.
    @Test(arguments: DerivedAttributeTests.storeTypes)
    func settingADerivedAttributeFailsTheNextSaveAndKeepsNothing(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = DerivedAttributeTests.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Books.\(type.rawValue.lowercased())"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let book = ManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
        book.setValue("Nana", forKey: "title")
        try context.save()
        #expect(book.value(forKey: "pagesCount") as? Int64 == 0)

        book.setValue(Int64(99), forKey: "pagesCount")
        book.setValue("nana!", forKey: "searchTitle")
        #expect(book.value(forKey: "pagesCount") as? Int64 == 0)
        do {
            try context.save()
            Issue.record("A save with hand-set derived attributes succeeded.")
        } catch let error as QuireError {
            #expect(error.code == .managedObjectValidation)
            #expect(error.context.key == "pagesCount")
            #expect(error.message.contains("Book.searchTitle"))
        }
        #expect(throws: QuireError.self) { try book.setValidatedValue(Int64(5), forKey: "pagesCount") }
        // Reported once; the values were never kept, so the next save writes the derived ones.
        book.setValue("Nana (1880)", forKey: "title")
        try context.save()
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let read = try reader.existingObject(with: book.objectID)
        #expect(read.value(forKey: "pagesCount") as? Int64 == 0)
        #expect(read.value(forKey: "searchTitle") as? String == "nana (1880)")
    }

    /// Raw SQL on Core Data's own store: its triggers keep `pagesCount` right for inserts, moves and deletes (run on a
    /// connection with the functions Core Data's triggers call), and Quire's saves keep it right after them.
    @Test func coreDataTriggersKeepCountsRightForRawSQLAndQuireSaves() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"), to: url)
        let counts = "SELECT group_concat(ZPAGESCOUNT || '=' || (SELECT COUNT(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK), ',') FROM ZBOOK b WHERE Z_PK IN (1, 5)"
        #expect(try sqlite3(url, counts) == "99=99,1=1")
        do {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
            defer { connection.close() }
            try SQLiteFunctions.register(on: connection)
            try connection.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK, Z1_BOOK) VALUES (90001, 4, 1, 1000, 1, 1)")
            try connection.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK, Z1_BOOK) VALUES (90002, 4, 1, 1001, 1, 1)")
            try connection.execute("UPDATE ZPAGE SET ZBOOK = 5 WHERE Z_PK = 90002")
            try connection.execute("DELETE FROM ZPAGE WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZPAGE WHERE ZBOOK = 1)")
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 90002 WHERE Z_NAME = 'Page'")
        }
        #expect(try sqlite3(url, counts) == "99=99,2=2")

        let (model, _) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: nil)
        ValueTransformerRegistry.register(RawPageContent(), forName: "ContentTransformer")
        let (_, context) = try Fixtures.stack(model, at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        let books = try context.fetch(request).filter { ["p1", "p5"].contains($0.objectID.uriRepresentation().lastPathComponent) }
        let five = try #require(books.first { $0.objectID.uriRepresentation().lastPathComponent == "p5" })
        #expect(five.value(forKey: "pagesCount") as? Int64 == 2)
        let page = ManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
        page.setValue(Int32(2000), forKey: "number")
        page.setValue(Data("a page".utf8), forKey: "content")
        page.setValue(five, forKey: "book")
        try context.save()
        #expect(try sqlite3(url, counts) == "99=99,3=3")
        #expect(five.value(forKey: "pagesCount") as? Int64 == 3)
        // A hand-set count is refused and the file keeps the trigger's value.
        five.setValue(Int64(7), forKey: "pagesCount")
        #expect(throws: QuireError.self) { try context.save() }
        #expect(try sqlite3(url, counts) == "99=99,3=3")
    }
}

/// Stores a page's content as it is (a stand-in for CoreDataPlus's `ContentTransformer`).
private struct RawPageContent: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        guard let data = value as? Data else { throw QuireError(.invalidArgument, "Not data: \(value)") }
        return data
    }
    func reverseTransformedValue(_ data: Data) throws -> Any { data }
}

/// A store with Core Data's triggers for `now()` and `canonical:` derivations (in the form a public decompilation of
/// Core Data shows; no corpus store has them) accepts Quire's writes: the functions the triggers call are registered.
@Suite struct CoreDataDerivationTriggerTests {
    @Test func writesThatFireCoreDataNowAndCanonicalTriggersSucceed() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Books.sqlite")
        let model = DerivedAttributeTests.model()
        do { _ = try Fixtures.stack(model, at: url) }
        _ = try sqlite3(url, """
            CREATE TRIGGER IF NOT EXISTS Z_DA_ZBOOK_Book_savedAt_UPDATE AFTER UPDATE OF Z_OPT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZSAVEDAT = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'savedAt', ZSAVEDAT) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END;
            CREATE TRIGGER IF NOT EXISTS Z_DA_ZBOOK_Book_searchTitle_UPDATE AFTER UPDATE OF ZTITLE ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZSEARCHTITLE = NSCoreDataCanonical(ZTITLE) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'searchTitle', ZSEARCHTITLE) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END;
            """)
        let (_, context) = try Fixtures.stack(model, at: url)
        let book = ManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
        book.setValue("Au Bonheur", forKey: "title")
        try context.save()
        book.setValue("Ève future", forKey: "title")
        let before = Date().timeIntervalSinceReferenceDate - 1
        try context.save()
        #expect(try sqlite3(url, "SELECT ZSEARCHTITLE FROM ZBOOK") == "eve future")
        let saved = try #require(Double(try sqlite3(url, "SELECT ZSAVEDAT FROM ZBOOK")))
        #expect(saved >= before)
    }
}
