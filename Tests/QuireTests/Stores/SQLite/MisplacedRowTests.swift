import Foundation
import Testing

import Quire

/// A row whose entity number (`Z_ENT`, or a to-one's `Z1_…` column) names an entity outside the table's or the
/// destination's hierarchy is refused with a typed error, never read as that entity. The sqlite fuzz target
/// found the case: Core Data's SampleModel2 store with a `ZPAGE` row numbered as a `Writer` made `quire dump`
/// read a page with the writer table's columns and stop on a property the page does not have.
@Suite struct MisplacedRowTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A copy of Core Data's SampleModel2_V2 store (Book 1, GraphicNovel 2 under Book, Feedback 3, Page 4,
    /// Writer 5, Author 6 under Writer) with `damage` run on it.
    private func damagedStore(_ damage: String) throws -> URL {
        let url = folder.file("SampleModel2_V2.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V2.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        _ = try sqlite3(url, damage)
        return url
    }

    private func context(_ url: URL) throws -> ManagedObjectContext {
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2.xcdatamodeld"))
        return try Fixtures.stack(try #require(bundle.model(named: "SampleModel2_V2")), at: url).1
    }

    @Test func aPageRowNumberedAsAWriterIsRefused() throws {
        let url = try damagedStore("UPDATE ZPAGE SET Z_ENT = 5 WHERE Z_PK = 7")
        let context = try context(url)
        for asFaults in [false, true] {
            let request = FetchRequest<ManagedObject>(entityName: "Page")
            request.returnsObjectsAsFaults = asFaults
            let error = try #require(throws: QuireError.self) { try context.fetch(request) }
            #expect(error.code == .fileReadCorruptFile)
            #expect(error.message.contains("Row 7"), "\(error)")
            #expect(error.message.contains("read as Page"), "\(error)")
            #expect(error.message.contains("entity number 5 (Writer)"), "\(error)")
            #expect(error.context.file?.path == url.path)
        }
        let ids = FetchRequest<ObjectID>(entityName: "Page")
        ids.resultType = .managedObjectID
        let idError = try #require(throws: QuireError.self) { try context.fetch(ids) }
        #expect(idError.code == .fileReadCorruptFile)
        #expect(idError.message.contains("entity number 5 (Writer)"), "\(idError)")
        // The writers themselves still read: the damaged row is not one of theirs.
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Writer")).count == 1)
        // What `quire dump` does, which stopped the process before.
        let dumpError = try #require(throws: QuireError.self) { try ObjectGraphDump(storeAt: url, type: .sqlite).text() }
        #expect(dumpError.code == .fileReadCorruptFile)
    }

    @Test func aBookRowNumberedAsAPageIsRefusedWhenFiredByKey() throws {
        let url = try damagedStore("UPDATE ZBOOK SET Z_ENT = 4 WHERE Z_PK = 1")
        let context = try context(url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        let uri = try #require(URL(string: "x-coredata://\(store.identifier)/Book/p1"))
        let id = try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
        let error = try #require(throws: QuireError.self) { try context.existingObject(with: id) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("entity number 4 (Page)"), "\(error)")
    }

    @Test func aToOneEntityColumnOutsideTheDestinationIsRefused() throws {
        // Page 1's book is GraphicNovel 3 (ZBOOK 3, Z1_BOOK 2); 5 names a Writer, which no book is.
        let url = try damagedStore("UPDATE ZPAGE SET Z1_BOOK = 5 WHERE Z_PK = 1")
        let context = try context(url)
        let request = FetchRequest<ManagedObject>(entityName: "Page")
        request.returnsObjectsAsFaults = false
        let error = try #require(throws: QuireError.self) { try context.fetch(request) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("Z1_BOOK"), "\(error)")
        #expect(error.message.contains("entity number 5"), "\(error)")
        #expect(error.message.contains("not that of Book"), "\(error)")
    }

    @Test func subEntityRowsStillReadAsTheirEntity() throws {
        // The undamaged store: GraphicNovel rows in ZBOOK are books, Author rows in ZWRITER writers.
        let url = try damagedStore("SELECT 1")
        let context = try context(url)
        let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
        #expect(books.map(\.entity.name).sorted() == ["Book", "Book", "GraphicNovel"])
        let request = FetchRequest<ManagedObject>(entityName: "Page")
        request.returnsObjectsAsFaults = false
        let pages = try context.fetch(request)
        let first = try #require(pages.first { $0.objectID.primaryKey == 1 })
        #expect((first.value(forKey: "book") as? ManagedObject)?.entity.name == "GraphicNovel")
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Writer")).map(\.entity.name) == ["Author"])
    }
}
