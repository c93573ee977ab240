import Foundation
import Testing

import Quire
import QuireStores

/// The `Z_DA_` triggers Quire writes in new SQLite stores keep every derived attribute right in the file whoever
/// writes it (batch updates, raw SQL), and agree with the values the context computes at save.
@Suite struct DerivedAttributeTriggerTests {
    /// Books with pages and an author, with one derived attribute of every form Core Data maintains with triggers.
    static func model(omitting omitted: Set<String> = []) -> ManagedObjectModel {
        func derived(_ name: String, _ type: AttributeType, _ expression: String) -> AttributeDescription {
            let attribute = AttributeDescription(name: name, type: type)
            attribute.derivationExpression = expression
            return attribute
        }
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            derived("pagesCount", .integer64, "pages.@count"),
            derived("words", .integer64, "pages.@sum.words"),
            derived("longest", .integer64, "pages.@max.words"),
            derived("shortest", .integer64, "min:(pages.words)"),
            derived("titleCopy", .string, "title"),
            derived("searchTitle", .string, "canonical:(title)"),
            derived("shoutedTitle", .string, "uppercase:(title)"),
            derived("quietTitle", .string, "lowercase:(title)"),
            derived("authorName", .string, "author.name"),
            derived("authorKey", .string, "canonical:(author.name)"),
            derived("savedAt", .date, "now()"),
            RelationshipDescription(name: "pages", destination: "Page", toMany: true, inverse: "book", deleteRule: .cascade),
            RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
        ].filter { !omitted.contains($0.name) })
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

    /// The derived attributes of `Book`.
    static let derivedKeys = [
        "pagesCount", "words", "longest", "shortest", "titleCopy", "searchTitle", "shoutedTitle", "quietTitle", "authorName",
        "authorKey", "savedAt",
    ]

    /// A store with one author, one book and pages of 120 and 300 words, saved through a context.
    struct Library {
        let folder: TemporaryFolder
        let url: URL
        let model = DerivedAttributeTriggerTests.model()
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let book: ManagedObject
        let author: ManagedObject

        init() throws {
            folder = try TemporaryFolder()
            url = folder.file("Books.sqlite")
            (coordinator, context) = try Fixtures.stack(model, at: url)
            author = ManagedObject(entity: try #require(model.entitiesByName["Author"]), insertInto: context)
            author.setValue("Émile Zola", forKey: "name")
            book = ManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
            book.setValue("Thérèse Raquin", forKey: "title")
            book.setValue(author, forKey: "author")
            for words in [120, 300] {
                let page = ManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
                page.setValue(Int64(words), forKey: "words")
                page.setValue(book, forKey: "book")
            }
            try context.save()
        }

        /// The book's columns as the file has them.
        func row(_ columns: String) throws -> String {
            try sqlite3(url, "SELECT \(columns) FROM ZBOOK")
        }

        /// Runs SQL on a connection of its own with the functions Core Data's triggers call (another writer).
        func rawSQL(_ statements: String...) throws {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
            defer { connection.close() }
            try SQLiteFunctions.register(on: connection)
            for statement in statements { try connection.execute(statement) }
        }

        /// A REAL column of the book, to the bit (the `sqlite3` tool prints 16 digits at most).
        func double(_ column: String) throws -> Double {
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            defer { connection.close() }
            let statement = try connection.prepare("SELECT \(column) FROM ZBOOK")
            defer { statement.finalize() }
            guard try statement.step() else { throw QuireError(.invalidArgument, "No book in \(url.path).") }
            return statement.double(at: 0)
        }

        /// The book read by a new coordinator (nothing cached).
        func reread() throws -> ManagedObject {
            let (_, reader) = try Fixtures.stack(model, at: url)
            let uri = book.objectID.uriRepresentation()
            return try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first { $0.objectID.uriRepresentation() == uri })
        }
    }

    /// Every derived value the context computed is the one the triggers wrote, `now()` to the bit.
    static func expectAgreement(_ library: Library, _ sourceLocation: SourceLocation = #_sourceLocation) throws {
        let read = try library.reread()
        for key in derivedKeys {
            let mine = library.book.value(forKey: key).map { "\($0)" }
            let file = read.value(forKey: key).map { "\($0)" }
            #expect(mine == file, "\(key)", sourceLocation: sourceLocation)
        }
        #expect(library.book.value(forKey: "savedAt") as? Date == read.value(forKey: "savedAt") as? Date, sourceLocation: sourceLocation)
    }

    @Test func savesAndTriggersAgreeOnEveryDerivedValue() throws {
        let library = try Library()
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "2|420|300|120")
        #expect(try library.row("ZTITLECOPY, ZSEARCHTITLE, ZSHOUTEDTITLE, ZQUIETTITLE") == "Thérèse Raquin|therese raquin|THÉRÈSE RAQUIN|thérèse raquin")
        #expect(try library.row("ZAUTHORNAME, ZAUTHORKEY") == "Émile Zola|emile zola")
        try Self.expectAgreement(library)

        // Renaming the author and changing a page through the context: the book is saved too, and both agree.
        library.author.setValue("Zola", forKey: "name")
        let page = try #require((library.book.value(forKey: "pages") as? Set<ManagedObject>)?.first { $0.value(forKey: "words") as? Int64 == 120 })
        page.setValue(Int64(50), forKey: "words")
        try library.context.save()
        #expect(try library.row("ZWORDS, ZLONGEST, ZSHORTEST, ZAUTHORNAME, ZAUTHORKEY") == "350|300|50|Zola|zola")
        try Self.expectAgreement(library)
    }

    /// The triggers' text as `sqlite_master` keeps it: Core Data's names and statements (the `@count` ones as a Core
    /// Data store has them, the others as the decompilation of its generator builds them).
    @Test func theTriggersAreCoreDatas() throws {
        let library = try Library()
        let names = try sqlite3(library.url, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").split(separator: "\n")
        #expect(names.count == 5 + 5 + 5 + 5 + 8 + 8 + 2)
        #expect(names.contains("Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT"))
        #expect(names.contains("Z_DA_ZBOOK_Book_longest_INSERT") && names.contains("Z_DA_ZPAGE_Book_longest_UPDATE_UNSET"))
        #expect(names.contains("Z_DA_ZAUTHOR_Book_authorKey_PARAMETER_UPDATE") && names.contains("Z_DA_ZBOOK_Book_authorKey_SOURCE_UPDATE"))
        func sql(_ name: String) throws -> String {
            try sqlite3(library.url, "SELECT sql FROM sqlite_master WHERE name = '\(name)'")
        }
        #expect(try sql("Z_DA_ZBOOK_Book_searchTitle_UPDATE") == "CREATE TRIGGER Z_DA_ZBOOK_Book_searchTitle_UPDATE AFTER UPDATE OF ZTITLE ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZSEARCHTITLE = NSCoreDataCanonical(NEW.ZTITLE) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'searchTitle', ZSEARCHTITLE) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END")
        #expect(try sql("Z_DA_ZBOOK_Book_savedAt_INSERT") == "CREATE TRIGGER Z_DA_ZBOOK_Book_savedAt_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW WHEN (NEW.Z_OPT NOT NULL) BEGIN UPDATE ZBOOK SET ZSAVEDAT = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'savedAt', ZSAVEDAT) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END")
        #expect(try sql("Z_DA_ZAUTHOR_Book_authorName_PARAMETER_UPDATE") == "CREATE TRIGGER Z_DA_ZAUTHOR_Book_authorName_PARAMETER_UPDATE AFTER UPDATE OF ZNAME ON ZAUTHOR FOR EACH ROW BEGIN UPDATE ZBOOK SET ZAUTHORNAME = NEW.ZNAME WHERE ZAUTHOR = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'authorName', ZAUTHORNAME) FROM ZBOOK WHERE ZAUTHOR = NEW.Z_PK; END")
        #expect(try sql("Z_DA_ZBOOK_Book_authorKey_SOURCE_INSERT") == "CREATE TRIGGER Z_DA_ZBOOK_Book_authorKey_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZAUTHORKEY = (SELECT NSCoreDataCanonical(ZNAME) FROM ZAUTHOR WHERE Z_PK = NEW.ZAUTHOR) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'authorKey', ZAUTHORKEY) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END")
        #expect(try sql("Z_DA_ZPAGE_Book_words_PARAMETER_UPDATE_INCREMENT") == "CREATE TRIGGER Z_DA_ZPAGE_Book_words_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF ZBOOK, ZWORDS ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZWORDS = ZWORDS + IFNULL(NEW.ZWORDS, 0) WHERE Z_PK = NEW.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'words', ZWORDS) FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END")
        #expect(try sql("Z_DA_ZPAGE_Book_shortest_DELETE") == "CREATE TRIGGER Z_DA_ZPAGE_Book_shortest_DELETE AFTER DELETE ON ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL AND OLD.ZWORDS NOT NULL) BEGIN UPDATE ZBOOK SET ZSHORTEST = (SELECT MIN(ZWORDS) FROM ZPAGE WHERE ZBOOK = OLD.ZBOOK) WHERE Z_PK = OLD.ZBOOK AND OLD.ZWORDS <= ZSHORTEST; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'shortest', ZSHORTEST) FROM ZBOOK WHERE Z_PK = OLD.ZBOOK AND (ZSHORTEST IS NULL OR OLD.ZWORDS <= ZSHORTEST); END")
    }

    /// A batch update of the source values, which no context computes: the triggers update the derived columns,
    /// `now()` included (batch updates bump `Z_OPT`, as Core Data's do).
    @Test func aBatchUpdateKeepsDerivedColumnsCurrent() throws {
        let library = try Library()
        let savedAt = try library.row("ZSAVEDAT")
        let titles = BatchUpdateRequest(entityName: "Book")
        titles.propertiesToUpdate = ["title": "La Bête humaine"]
        try library.context.execute(titles)
        #expect(try library.row("ZTITLECOPY, ZSEARCHTITLE, ZSHOUTEDTITLE") == "La Bête humaine|la bete humaine|LA BÊTE HUMAINE")
        #expect(try library.row("ZSAVEDAT") != savedAt)

        let authors = BatchUpdateRequest(entityName: "Author")
        authors.propertiesToUpdate = ["name": "É. Zola"]
        try library.context.execute(authors)
        #expect(try library.row("ZAUTHORNAME, ZAUTHORKEY") == "É. Zola|e. zola")

        let pages = BatchUpdateRequest(entityName: "Page")
        pages.predicate = try QueryPredicate(format: "words == 300")
        pages.propertiesToUpdate = ["words": Int64(10)]
        try library.context.execute(pages)
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "2|130|120|10")
        let read = try library.reread()
        #expect(read.value(forKey: "searchTitle") as? String == "la bete humaine")
        #expect(read.value(forKey: "words") as? Int64 == 130)
    }

    /// Another writer's SQL (with the functions registered, as Core Data's triggers need them): inserting, moving,
    /// changing and deleting members, renaming and re-pointing the to-one.
    @Test func rawSQLKeepsAggregatesAndKeyPathsCurrent() throws {
        let library = try Library()
        let book = try library.row("Z_PK")
        try library.rawSQL("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZWORDS, ZBOOK) VALUES (100, 2, 1, 1000, \(book))")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "3|1420|1000|120")
        try library.rawSQL("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZWORDS, ZBOOK) VALUES (101, 2, 1, 5, \(book))")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "4|1425|1000|5")
        try library.rawSQL("DELETE FROM ZPAGE WHERE Z_PK = 100")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "3|425|300|5")
        try library.rawSQL("UPDATE ZPAGE SET ZBOOK = NULL WHERE Z_PK = 101")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "2|420|300|120")
        try library.rawSQL("UPDATE ZPAGE SET ZWORDS = NULL WHERE ZWORDS = 120")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST") == "2|300|300|300")
        try library.rawSQL("DELETE FROM ZPAGE")
        #expect(try library.row("ZPAGESCOUNT, ZWORDS, IFNULL(ZLONGEST, '-'), IFNULL(ZSHORTEST, '-')") == "0|0|-|-")

        // The to-one: a new author, the book moved to it, the new author renamed, the book left without one.
        try library.rawSQL(
            "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (50, 3, 1, 'Guy de Maupassant')",
            "UPDATE ZBOOK SET ZAUTHOR = 50")
        #expect(try library.row("ZAUTHORNAME, ZAUTHORKEY") == "Guy de Maupassant|guy de maupassant")
        try library.rawSQL("UPDATE ZAUTHOR SET ZNAME = 'Maupassant' WHERE Z_PK = 50")
        #expect(try library.row("ZAUTHORNAME, ZAUTHORKEY") == "Maupassant|maupassant")
        try library.rawSQL("UPDATE ZBOOK SET ZAUTHOR = NULL")
        #expect(try library.row("IFNULL(ZAUTHORNAME, '-'), IFNULL(ZAUTHORKEY, '-')") == "-|-")
        let read = try library.reread()
        #expect(read.value(forKey: "pagesCount") as? Int64 == 0)
        #expect(read.value(forKey: "authorName") == nil)
    }

    /// `now()`: the insert's and each update's date, the one the context gave the object (not a later one).
    @Test func nowIsTheSavesDate() throws {
        let library = try Library()
        let inserted = try #require(library.book.value(forKey: "savedAt") as? Date)
        #expect(try library.double("ZSAVEDAT") == inserted.timeIntervalSinceReferenceDate)
        library.book.setValue("Germinal", forKey: "title")
        try library.context.save()
        let updated = try #require(library.book.value(forKey: "savedAt") as? Date)
        #expect(updated > inserted)
        try Self.expectAgreement(library)
        // A page moved to another book through the context: both books are saved, and stamped.
        let other = ManagedObject(entity: try #require(library.model.entitiesByName["Book"]), insertInto: library.context)
        other.setValue("Nana", forKey: "title")
        try library.context.save()
        let page = try #require((library.book.value(forKey: "pages") as? Set<ManagedObject>)?.first)
        page.setValue(other, forKey: "book")
        try library.context.save()
        #expect(try #require(library.book.value(forKey: "savedAt") as? Date) > updated)
        try Self.expectAgreement(library)
        #expect(library.book.value(forKey: "pagesCount") as? Int64 == 1 && other.value(forKey: "pagesCount") as? Int64 == 1)
    }

    /// Save As into a new SQLite store: the triggers are there again, the values are the copied ones (`now()` is not
    /// stamped again), and the new store's triggers work.
    @Test func saveAsRecreatesTheTriggersAndKeepsTheValues() throws {
        let library = try Library()
        let triggers = "SELECT name || ':' || sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        let values = "SELECT ZPAGESCOUNT, ZWORDS, ZLONGEST, ZSHORTEST, ZTITLECOPY, ZSEARCHTITLE, ZAUTHORNAME, ZAUTHORKEY, ZSAVEDAT FROM ZBOOK"
        let before = try sqlite3(library.url, values)
        let store = try #require(library.coordinator.persistentStores.first)
        let copy = library.folder.file("Copy.sqlite")
        try library.coordinator.migratePersistentStore(store, to: copy, type: .sqlite)
        #expect(try sqlite3(copy, triggers) == (try sqlite3(library.url, triggers)))
        #expect(try sqlite3(copy, values) == before)
        // The copy is attached now: the context's saves and raw SQL keep it current.
        library.book.setValue("L'Assommoir", forKey: "title")
        try library.context.save()
        #expect(try sqlite3(copy, "SELECT ZSEARCHTITLE FROM ZBOOK") == "l'assommoir")
        let connection = try SQLiteConnection(url: copy, readOnly: false, create: false)
        try SQLiteFunctions.register(on: connection)
        try connection.execute("UPDATE ZPAGE SET ZWORDS = ZWORDS + 1")
        connection.close()
        #expect(try sqlite3(copy, "SELECT ZWORDS FROM ZBOOK") == "422")

        // From an XML store: the new SQLite store gets the triggers and the values the context computed.
        let xml = library.folder.file("Books.xml")
        let (xmlCoordinator, xmlContext) = (try PersistentStoreCoordinator(managedObjectModel: library.model), ManagedObjectContext())
        try xmlCoordinator.addPersistentStore(type: .xml, at: xml)
        xmlContext.persistentStoreCoordinator = xmlCoordinator
        let book = ManagedObject(entity: try #require(library.model.entitiesByName["Book"]), insertInto: xmlContext)
        book.setValue("Nana", forKey: "title")
        try xmlContext.save()
        let savedAt = try #require(book.value(forKey: "savedAt") as? Date)
        let fromXML = library.folder.file("FromXML.sqlite")
        try xmlCoordinator.migratePersistentStore(try #require(xmlCoordinator.persistentStores.first), to: fromXML, type: .sqlite)
        #expect(try sqlite3(fromXML, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == "38")
        #expect(try sqlite3(fromXML, "SELECT ZSEARCHTITLE, ZPAGESCOUNT FROM ZBOOK") == "nana|0")
        // The XML file's date (kept to the millisecond there), not the copy's.
        let copied = try #require(Double(try sqlite3(fromXML, "SELECT ZSAVEDAT FROM ZBOOK")))
        #expect(abs(copied - savedAt.timeIntervalSinceReferenceDate) < 0.001)
    }

    /// A lightweight migration to a version that adds derived attributes: the new store has every trigger of the new
    /// model, computes the added values, keeps the others current, and saves agree with it.
    @Test func migratingToAVersionWithMoreDerivedAttributesCreatesTheirTriggers() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Books.sqlite")
        let old = Self.model(omitting: ["shortest", "authorKey"])
        do {
            let (_, context) = try Fixtures.stack(old, at: url)
            let author = ManagedObject(entity: try #require(old.entitiesByName["Author"]), insertInto: context)
            author.setValue("Émile Zola", forKey: "name")
            let book = ManagedObject(entity: try #require(old.entitiesByName["Book"]), insertInto: context)
            book.setValue("Nana", forKey: "title")
            book.setValue(author, forKey: "author")
            for words in [120, 300] {
                let page = ManagedObject(entity: try #require(old.entitiesByName["Page"]), insertInto: context)
                page.setValue(Int64(words), forKey: "words")
                page.setValue(book, forKey: "book")
            }
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == "29")
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        let model = Self.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        #expect(try sqlite3(url, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == "38")
        #expect(try sqlite3(url, "SELECT ZPAGESCOUNT, ZWORDS, ZSHORTEST, ZSEARCHTITLE, ZAUTHORKEY FROM ZBOOK") == "2|420|120|nana|emile zola")
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        try SQLiteFunctions.register(on: connection)
        try connection.execute("UPDATE ZAUTHOR SET ZNAME = 'Zola'")
        try connection.execute("UPDATE ZPAGE SET ZWORDS = 7 WHERE ZWORDS = 300")
        connection.close()
        #expect(try sqlite3(url, "SELECT ZWORDS, ZSHORTEST, ZAUTHORNAME, ZAUTHORKEY FROM ZBOOK") == "127|7|Zola|zola")
    }

    /// A name that is not a plain identifier is never written into a trigger (the text is run as SQL): that derived
    /// attribute is kept by the context at save, and the store works.
    @Test func namesThatAreNotPlainIdentifiersGetNoTrigger() throws {
        let folder = try TemporaryFolder()
        let hostile = AttributeDescription(name: "légende'); DROP TABLE ZNOTE; --", type: .string)
        hostile.derivationExpression = "canonical:(title)"
        let plain = AttributeDescription(name: "key", type: .string)
        plain.derivationExpression = "canonical:(title)"
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string), hostile, plain,
        ])])
        let url = folder.file("Notes.sqlite")
        let (_, context) = try Fixtures.stack(model, at: url)
        let note = ManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context)
        note.setValue("Écrit", forKey: "title")
        try context.save()
        #expect(try sqlite3(url, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") == "Z_DA_ZNOTE_Note_key_INSERT\nZ_DA_ZNOTE_Note_key_UPDATE")
        let (_, reader) = try Fixtures.stack(model, at: url)
        let read = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        #expect(read.value(forKey: hostile.name) as? String == "ecrit" && read.value(forKey: "key") as? String == "ecrit")
    }

    /// `@count` of a many-to-many: the join table's triggers count, saves that write the same members again do not
    /// count them twice, and raw SQL on the join table is counted. A to-many without an inverse gets no trigger (the
    /// context could not follow a deleted member back to its owner, and would disagree with the file).
    @Test func countsOfJoinTableRelationshipsStayRight() throws {
        let folder = try TemporaryFolder()
        let tagCount = AttributeDescription(name: "tagCount", type: .integer64)
        tagCount.derivationExpression = "tags.@count"
        let labelCount = AttributeDescription(name: "labelCount", type: .integer64)
        labelCount.derivationExpression = "count:(labels)"
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Book", properties: [
                AttributeDescription(name: "title", type: .string), tagCount, labelCount,
                RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "books"),
                RelationshipDescription(name: "labels", destination: "Tag", toMany: true),
            ]),
            EntityDescription(name: "Tag", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "tags"),
            ]),
        ])
        let url = folder.file("Tags.sqlite")
        let (_, context) = try Fixtures.stack(model, at: url)
        let tags = try ["novel", "french", "classic"].map { name in
            let tag = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            tag.setValue(name, forKey: "name")
            return tag
        }
        let book = ManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
        book.setValue("Nana", forKey: "title")
        book.setValue(Set(tags.prefix(2)), forKey: "tags")
        book.setValue(Set([tags[2]]), forKey: "labels")
        try context.save()
        #expect(try sqlite3(url, "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%tagCount%' ORDER BY name").split(separator: "\n").count == 3)
        #expect(try sqlite3(url, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%labelCount%'") == "0")
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT, ZLABELCOUNT FROM ZBOOK") == "2|1")
        // Saved again with the same members, then with one removed, then a tag deleted.
        book.setValue("Nana (1880)", forKey: "title")
        try context.save()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT, ZLABELCOUNT FROM ZBOOK") == "2|1")
        book.setValue(Set([tags[0]]), forKey: "tags")
        try context.save()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "1")
        #expect(book.value(forKey: "tagCount") as? Int64 == 1)
        context.delete(tags[2])
        try context.save()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "1")
        // Another writer links the book to a tag in the join table.
        let join = try sqlite3(url, "SELECT tbl_name FROM sqlite_master WHERE name LIKE 'Z_DA_%_Book_tagCount_PARAMETER_INSERT'")
        let columns = try sqlite3(url, "SELECT group_concat(name, ',') FROM pragma_table_info('\(join)')").split(separator: ",").map(String.init)
        let bookColumn = try #require(columns.first { $0.uppercased().hasSuffix("BOOKS") })
        let tagColumn = try #require(columns.first { $0 != bookColumn && $0.uppercased().hasSuffix("TAGS") })
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        try SQLiteFunctions.register(on: connection)
        try connection.execute(
            "INSERT INTO \(join) (\(bookColumn), \(tagColumn)) VALUES ((SELECT Z_PK FROM ZBOOK), (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'french'))")
        connection.close()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "2")
    }
}
