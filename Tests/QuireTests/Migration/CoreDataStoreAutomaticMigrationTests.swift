import Foundation
import Quire
import QuireTestSupport
import Testing

/// Stores Core Data wrote with an old version of an app's model (Fixtures/CoreData, see SOURCES.md there), opened
/// with the newest version of the app's `.xcdatamodeld` and the automatic-migration options, as an app does after an
/// update: the source version is found by the store's version hashes and the store is migrated with its data.
@Suite struct CoreDataStoreAutomaticMigrationTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func copy(_ store: String) throws -> URL {
        let url = folder.file((store as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/" + store), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    private static var automatic: StoreOptions {
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        return options
    }

    private func lines(_ url: URL, _ sql: String) throws -> [String] {
        try sqlite3(url, sql).split(separator: "\n").map(String.init).sorted()
    }

    @Test func coreDataPlusSampleModelV1MigratesToTheNewestVersion() throws {
        let url = try copy("CoreDataPlus/SampleModel_V1.sqlite")
        let people = try lines(url, "SELECT ZFIRSTNAME || ' ' || ZLASTNAME FROM ZPERSON")
        let cars = try lines(url, "SELECT ZNUMBERPLATE FROM ZCAR")
        #expect(people.count == 20)
        #expect(cars.count == 125)
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel.xcdatamodeld"))
        let newest = try #require(bundle.models.last)
        #expect(bundle.versionNames.last == "SampleModel3")
        // Without the options: refused, naming the difference.
        let refusing = try PersistentStoreCoordinator(managedObjectModel: newest)
        #expect(throws: QuireError.self) { try refusing.addPersistentStore(type: .sqlite, at: url) }

        let coordinator = try PersistentStoreCoordinator(managedObjectModel: newest)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.automatic)
        #expect(newest.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let fetchedPeople = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map {
            "\($0.value(forKey: "firstName") as? String ?? "") \($0.value(forKey: "lastName") as? String ?? "")"
        }
        #expect(fetchedPeople.sorted() == people)
        let fetchedCars = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car")).map { $0.value(forKey: "numberPlate") as? String ?? "" }
        #expect(fetchedCars.sorted() == cars)
        // Every car kept its owner.
        let owned = try lines(url, "SELECT COUNT(*) FROM ZCAR WHERE ZOWNER IS NOT NULL")
        #expect(owned == (try lines(try copy2("CoreDataPlus/SampleModel_V1.sqlite"), "SELECT COUNT(*) FROM ZCAR WHERE ZOWNER IS NOT NULL")))
    }

    /// A second, untouched copy of a fixture.
    private func copy2(_ store: String) throws -> URL {
        let sub = folder.url.appendingPathComponent("original")
        try? FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let url = sub.appendingPathComponent((store as NSString).lastPathComponent)
        if !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/" + store), to: url)
        }
        return url
    }

    /// BookMigration's app migrates Model1 to Model3 with mapping models (Book.authorName into Author objects, Book.fileURL
    /// into File objects; see BookMigrationTests). Without them, by inference alone, the store migrates through Model2
    /// and Model3, keeping books, titles and users; what only the mapping models carry (authors, files) is not made.
    @Test func bookMigrationModel1MigratesThroughEachVersionByInference() throws {
        let url = try copy("BookMigration/Model1.sqlite")
        let titles = try lines(url, "SELECT ZTITLE FROM ZBOOK")
        let users = try lines(url, "SELECT ZUSERID FROM ZUSER")
        #expect(titles.count == 4)
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/BookMigration/Model.xcdatamodeld"))
        let newest = try #require(bundle.model(named: "Model3"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: newest)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.automatic)
        #expect(newest.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
        #expect(books.compactMap { $0.value(forKey: "title") as? String }.sorted() == titles)
        let migratedUsers = try context.fetch(FetchRequest<ManagedObject>(entityName: "User"))
        #expect(migratedUsers.map { "\($0.value(forKey: "userId") ?? "nil")" }.sorted() == users)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Author")) == 0)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "File")) == 0)
    }
}
