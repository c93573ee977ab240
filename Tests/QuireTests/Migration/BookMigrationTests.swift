import Foundation
import QuireTestSupport
import Testing

import Quire

/// BookMigration (hwaxxer/BookMigration, the code of objc.io's "Custom Core Data Migrations"): its Model1 store
/// (four books of one user, each with an author's name and a file URL) migrated to Model3 as the app migrates it,
/// with its three mapping models and its `MHWBookToBookPolicy`, ported to Swift: Model1 → Model2 makes one
/// `Author` per name; Model2 → Model3 runs in two passes into one store (`Model2_to_Model3_User` first, so the
/// second pass's policy finds the users in the destination context), and makes one `File` per book and user.
/// What must hold is what the app's tests assert (`MHWMigrationFromModel1Tests`, `MHWMigrationFromModel2Tests`).
@Suite struct BookMigrationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        EntityMigrationPolicyRegistry.shared.register(BookToBookPolicy.self, as: "MHWBookToBookPolicy")
    }

    /// `MHWBookToBookPolicy`, ported: the book's attributes copied by name; for Model2 (`modelVersion` 2 in the
    /// mapping's user info) one author per name, shared through the manager's user info; for Model3 one file per
    /// user of the book, with the destination user of the same `userId`.
    final class BookToBookPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            let version = Int(mapping.userInfo["modelVersion"] ?? "")
            guard version == 2 || version == 3, let entity = manager.destinationEntity(for: mapping) else {
                return try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            }
            let context = manager.destinationContext
            let book = ManagedObject(entity: entity, insertInto: context)
            for name in entity.attributesByName.keys where sInstance.entity.attributesByName[name] != nil {
                let value = sInstance.attributeValue(forKey: name)
                if !value.isNull { book.setValue(value, forKey: name) }
            }
            if version == 2 {
                var authors = manager.userInfo["authors"] as? [String: ManagedObject] ?? [:]
                let name = sInstance.value(forKey: "authorName") as? String ?? ""
                let author = authors[name] ?? {
                    let made = ManagedObject(entity: manager.destinationModel.entitiesByName["Author"]!, insertInto: context)
                    made.setValue(name, forKey: "name")
                    return made
                }()
                authors[name] = author
                manager.userInfo["authors"] = authors
                book.addObject(author, toRelationship: "authors")
            } else {
                for user in (sInstance.value(forKey: "users") as? Set<ManagedObject>) ?? [] {
                    let file = ManagedObject(entity: manager.destinationModel.entitiesByName["File"]!, insertInto: context)
                    file.setValue(sInstance.attributeValue(forKey: "fileURL"), forKey: "fileURL")
                    file.setValue(book, forKey: "book")
                    let request = FetchRequest<ManagedObject>(entityName: "User")
                    request.predicate = try QueryPredicate(format: "userId = %d", user.value(forKey: "userId") as? Int32 ?? 0)
                    file.setValue(try context.fetch(request).last, forKey: "user")
                }
            }
            manager.associate(sourceInstance: sInstance, withDestinationInstance: book, for: mapping)
        }
    }

    static func versions() throws -> [ManagedObjectModel] { try ModelBundle(contentsOf: try MappingModelFixtures.bookBundle).models }

    /// The app's `progressivelyMigrateURL`: each step into a new store, Model2 → Model3 in its two passes (users
    /// first), then the new store in place of the old.
    func migrateAsTheAppDoes(_ url: URL) throws {
        let versions = try Self.versions()
        let model2 = folder.file("Model1.Model2.sqlite")
        try MigrationManager(sourceModel: versions[0], destinationModel: versions[1]).migrateStore(
            from: url, type: .sqlite, mapping: try MappingModel(contentsOf: try MappingModelFixtures.file("Model1_to_Model2")),
            to: model2, type: .sqlite)
        let model3 = folder.file("Model1.Model3.sqlite")
        let manager = MigrationManager(sourceModel: versions[1], destinationModel: versions[2])
        for pass in ["Model2_to_Model3_User", "Model2_to_Model3"] {
            let mapping = try MappingModel(contentsOf: try MappingModelFixtures.file(pass))
            #expect(mapping.isMapping(from: versions[1], to: versions[2]))
            try manager.migrateStore(from: model2, type: .sqlite, mapping: mapping, to: model3, type: .sqlite)
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[2])
        try coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: model3, type: .sqlite)
        try coordinator.destroyPersistentStore(at: model3, type: .sqlite)
        try coordinator.destroyPersistentStore(at: model2, type: .sqlite)
    }

    func open(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let model = try #require(try Self.versions().last)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test func model1ToModel3MakesTheAuthorsAndFilesTheAppsTestsExpect() throws {
        let url = try MappingModelFixtures.bookStore(in: folder)
        let titles = try sqlite3(url, "SELECT ZTITLE || ' by ' || ZAUTHORNAME FROM ZBOOK ORDER BY ZTITLE").split(separator: "\n").map(String.init)
        #expect(titles == ["Cosmos by Witold Gombrowicz", "Extinction by Thomas Bernhard", "Metamorphosis by Franz Kafka", "The Trial by Franz Kafka"])
        try migrateAsTheAppDoes(url)
        let (_, context) = try open(url)
        try context.performAndWait {
            // MHWMigrationFromModel1Tests: users and books remain, every book has its author, one Franz Kafka who
            // wrote two of them.
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "User")) == 3)
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
            let byTitle = books.map { book in
                "\(book.value(forKey: "title") as? String ?? "") by "
                    + ((book.value(forKey: "authors") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted().joined(separator: ", ")
            }
            #expect(byTitle.sorted() == titles)
            let kafka = FetchRequest<ManagedObject>(entityName: "Author")
            kafka.predicate = try QueryPredicate(format: "name LIKE 'Franz Kafka'")
            #expect(try context.count(for: kafka) == 1)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Author")) == 3)
            let kafkasBooks = FetchRequest<ManagedObject>(entityName: "Book")
            kafkasBooks.predicate = try QueryPredicate(format: "ANY authors.name LIKE 'Franz Kafka'")
            #expect(try context.count(for: kafkasBooks) == 2)
            // MHWMigrationFromModel2Tests: every file has its book; the user with userId 1 the policy chose has the
            // four files, one per book, with the book's file URL.
            let files = try context.fetch(FetchRequest<ManagedObject>(entityName: "File"))
            #expect(files.count == 4)
            #expect(files.allSatisfy { $0.value(forKey: "book") != nil })
            let owners = Set(files.compactMap { ($0.value(forKey: "user") as? ManagedObject)?.objectID })
            #expect(owners.count == 1)
            let owner = try #require(files.first?.value(forKey: "user") as? ManagedObject)
            #expect(owner.value(forKey: "userId") as? Int32 == 1)
            #expect((owner.value(forKey: "files") as? Set<ManagedObject>)?.count == 4)
            for file in files {
                let book = try #require(file.value(forKey: "book") as? ManagedObject)
                #expect(file.attributeValue(forKey: "fileURL") != .null)
                #expect((book.value(forKey: "files") as? Set<ManagedObject>)?.contains(file) == true)
            }
        }
        // Nothing of the steps is left beside the store.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["Model1.sqlite"])
    }

    /// A second pass adds to the store the first pass made: with the users' pass alone, Model3 has the users and
    /// nothing else; the books' pass adds the books, authors and files, and keeps the users.
    @Test func aSecondPassAddsToTheStoreTheFirstMade() throws {
        let url = try MappingModelFixtures.bookStore(in: folder)
        let versions = try Self.versions()
        let model2 = folder.file("Model2.sqlite")
        try MigrationManager(sourceModel: versions[0], destinationModel: versions[1]).migrateStore(
            from: url, type: .sqlite, mapping: try MappingModel(contentsOf: try MappingModelFixtures.file("Model1_to_Model2")),
            to: model2, type: .sqlite)
        let model3 = folder.file("Model3.sqlite")
        let manager = MigrationManager(sourceModel: versions[1], destinationModel: versions[2])
        try manager.migrateStore(
            from: model2, type: .sqlite, mapping: try MappingModel(contentsOf: try MappingModelFixtures.file("Model2_to_Model3_User")),
            to: model3, type: .sqlite)
        let counts = { (url: URL) throws -> [String] in
            try ["ZUSER", "ZBOOK", "ZAUTHOR", "ZFILE"].map { table in "\(table) \(try sqlite3(url, "SELECT COUNT(*) FROM \(table)"))" }
        }
        #expect(try counts(model3) == ["ZUSER 3", "ZBOOK 0", "ZAUTHOR 0", "ZFILE 0"])
        let uuid = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: model3)[StoreMetadataKey.storeUUID]
        try manager.migrateStore(
            from: model2, type: .sqlite, mapping: try MappingModel(contentsOf: try MappingModelFixtures.file("Model2_to_Model3")),
            to: model3, type: .sqlite)
        #expect(try counts(model3) == ["ZUSER 3", "ZBOOK 4", "ZAUTHOR 3", "ZFILE 4"])
        // The store kept its identity across the passes.
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: model3)[StoreMetadataKey.storeUUID] == uuid)
    }

    /// Automatic migration searches the given folders for the mapping models of each step; Model2 to Model3 has two,
    /// which only the app can order, so it is refused naming them, and the store is left as it was.
    @Test func twoMappingModelsForOneStepAreRefusedByAutomaticMigration() throws {
        let url = try MappingModelFixtures.bookStore(in: folder)
        let before = try Data(contentsOf: url)
        let mappings = folder.url.appendingPathComponent("Mappings")
        try MappingModelFixtures.install(["Model1_to_Model2", "Model2_to_Model3", "Model2_to_Model3_User"], in: mappings)
        let model = try ManagedObjectModel(contentsOf: try MappingModelFixtures.bookBundle)
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        options.mappingModelURLs = [mappings]
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let error = expectError(.migrationMissingMappingModel) { try coordinator.addPersistentStore(type: .sqlite, at: url, options: options) }
        #expect(error?.message.contains("Model2_to_Model3.xcmappingmodel, Model2_to_Model3_User.xcmappingmodel") == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: url) == before)
    }
}
