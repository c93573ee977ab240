import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Real SQLite stores written by Core Data on Apple platforms (Fixtures/CoreData, see SOURCES.md there), opened
/// with the Xcode model that wrote them: every object read as the entity Core Data wrote, every relationship
/// followed, a change saved into a copy and read back, and the schema left as Core Data made it.
@Suite struct CoreDataStoreTests {
    /// One corpus store and the model version that wrote it.
    struct Case: CustomTestStringConvertible, Sendable {
        let store: String
        let model: String
        let version: String
        /// An entity to insert a copy of an existing object of (strings and UUIDs changed, to keep unique
        /// constraints), and a string attribute to change on an existing object.
        let insert: String
        let change: (entity: String, attribute: String)
        var testDescription: String { store }
    }

    static let cases: [Case] = [
        Case(
            store: "CoreDataPlus/SampleModel_V1.sqlite", model: "CoreDataPlus/SampleModel.xcdatamodeld", version: "SampleModel",
            insert: "ExpensiveSportCar", change: ("Person", "firstName")),
        Case(
            store: "CoreDataPlus/SampleModel_V2.sqlite", model: "CoreDataPlus/SampleModel.xcdatamodeld", version: "SampleModel2",
            insert: "LuxuryCar", change: ("Car", "maker")),
        Case(
            store: "CoreDataPlus/SampleModel3_V1.sqlite", model: "CoreDataPlus/SampleModel3.xcdatamodeld", version: "SampleModel3",
            insert: "User", change: ("User", "name")),
        // SampleModel2's model is built in code; SampleModel2.xcdatamodeld is transcribed from the stores' Z_MODELCACHE.
        // Its stores have derived-attribute triggers on ZPAGE and ZBOOK and Core Data's persistent-history tables.
        Case(
            store: "CoreDataPlus/SampleModel2_V1.sqlite", model: "CoreDataPlus/SampleModel2.xcdatamodeld",
            version: "SampleModel2_V1", insert: "Page", change: ("Feedback", "comment")),
        Case(
            store: "CoreDataPlus/SampleModel2_V2.sqlite", model: "CoreDataPlus/SampleModel2.xcdatamodeld",
            version: "SampleModel2_V2", insert: "Page", change: ("Feedback", "comment")),
        Case(
            store: "BookMigration/Model1.sqlite", model: "BookMigration/Model.xcdatamodeld", version: "Model1",
            insert: "Book", change: ("Book", "title")),
        // MagicalRecord's Recipes store (Core Data 241, 2009), written with an Xcode 3 model: a binary `elements`
        // archive of Xcode's own classes, which Quire reads as a compiled model.
        Case(
            store: "MagicalRecord/Recipes.sqlite", model: "MagicalRecord/Recipes.xcdatamodeld", version: "Recipes",
            insert: "Recipe", change: ("Recipe", "name")),
    ]

    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Copies a fixture store (with its write-ahead log, where it has one) into the test's folder, writable.
    func copy(_ store: String) throws -> URL {
        let source = try FixtureFiles.url("CoreData/" + store)
        let url = folder.file(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: url)
        let wal = URL(fileURLWithPath: source.path + "-wal")
        if FileManager.default.fileExists(atPath: wal.path) {
            try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: url.path + "-wal"))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path + "-wal")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    func model(_ testCase: Case) throws -> ManagedObjectModel {
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/" + testCase.model))
        return try #require(bundle.model(named: testCase.version))
    }

    /// Rows per entity name, as sqlite3 counts them: `SELECT Z_ENT, COUNT(*)` of every table, named through
    /// the store's own Z_PRIMARYKEY.
    func rowCounts(_ url: URL) throws -> [String: Int] {
        var names: [String: String] = [:]
        for line in try sqlite3(url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000").split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            if parts.count == 2 { names[parts[0]] = parts[1] }
        }
        var counts: [String: Int] = [:]
        let tables = try sqlite3(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'")
        for table in tables.split(separator: "\n") {
            for line in try sqlite3(url, "SELECT Z_ENT, COUNT(*) FROM \(table) GROUP BY Z_ENT").split(separator: "\n") {
                let parts = line.split(separator: "|").map(String.init)
                guard parts.count == 2, let name = names[parts[0]], let count = Int(parts[1]) else { continue }
                counts[name, default: 0] += count
            }
        }
        return counts
    }

    /// The store's schema as sqlite3 prints it.
    func schema(_ url: URL) throws -> String { try sqlite3(url, ".schema") }

    @Test(arguments: cases) func opensWithItsModelAndReadsEveryObjectAsItsEntity(_ testCase: Case) throws {
        let url = try copy(testCase.store)
        let expected = try rowCounts(url)
        #expect(!expected.isEmpty)
        let model = try model(testCase)
        let (coordinator, context) = try Fixtures.stack(model, at: url)
        let store = try #require(coordinator.persistentStores.first)
        let uuid = try sqlite3(url, "SELECT Z_UUID FROM Z_METADATA").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(store.identifier == uuid)
        // Renamed entities keep their old Z_NAME (SampleModel_V2: LuxuryCar was ExpensiveSportCar).
        for entity in coordinator.managedObjectModel.entities {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = false
            let objects = try context.fetch(request)
            let stored = expected[entity.name] ?? entity.renamingIdentifier.flatMap { expected[$0] } ?? 0
            #expect(objects.count == stored, "\(entity.name)")
            for object in objects {
                #expect(object.entity === entity)
                for relationship in entity.allRelationships {
                    guard let destination = relationship.resolvedDestination else { continue }
                    let value = object.value(forKey: relationship.name)
                    let related: [ManagedObject]
                    if relationship.isToMany {
                        related = (value as? Set<ManagedObject>).map(Array.init) ?? (value as? [ManagedObject]) ?? []
                    } else {
                        related = (value as? ManagedObject).map { [$0] } ?? []
                    }
                    for member in related {
                        #expect(member.entity.isKind(of: destination), "\(entity.name).\(relationship.name)")
                        // The inverse points back.
                        if let inverse = relationship.resolvedInverse {
                            let back = member.value(forKey: inverse.name)
                            let backs = (back as? Set<ManagedObject>).map(Array.init) ?? (back as? ManagedObject).map { [$0] } ?? []
                            #expect(backs.contains { $0 === object }, "\(entity.name).\(relationship.name) inverse")
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: cases) func savesIntoACopyAndKeepsTheSchema(_ testCase: Case) throws {
        // The Recipes app registers a transformer for its thumbnails (UIImage to PNG data); the test's stand-in
        // keeps the data as it is, which is what a copy of an existing value needs.
        ValueTransformerRegistry.register(DataPassThroughTransformer(), forName: "ImageToDataTransformer")
        let url = try copy(testCase.store)
        let before = try rowCounts(url)
        let schemaBefore = try schema(url)
        let metadataBefore = try SQLiteStore.readMetadata(at: url)
        let history = "SELECT (SELECT COUNT(*) FROM ACHANGE), (SELECT COUNT(*) FROM ATRANSACTION), "
            + "(SELECT group_concat(Z_ENT || Z_NAME || Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT > 16000)"
        let hasHistory = schemaBefore.contains("CREATE TABLE ACHANGE")
        let historyBefore = hasHistory ? try sqlite3(url, history) : ""
        let derivedCount = "SELECT SUM(ZPAGESCOUNT) FROM ZBOOK"
        let hasDerived = schemaBefore.contains("Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT")
        let derivedBefore = hasDerived ? try sqlite3(url, derivedCount) : ""
        let model = try model(testCase)
        var insertedID: URL?
        do {
            let (coordinator, context) = try Fixtures.stack(model, at: url)
            let entities = coordinator.managedObjectModel.entitiesByName
            let changeRequest = FetchRequest<ManagedObject>(entityName: testCase.change.entity)
            let changed = try #require(try context.fetch(changeRequest).first)
            changed.setValue("Changed by Quire", forKey: testCase.change.attribute)
            let entity = try #require(entities[testCase.insert])
            let templateRequest = FetchRequest<ManagedObject>(entityName: testCase.insert)
            templateRequest.includesSubentities = false
            let template = try #require(try context.fetch(templateRequest).first)
            let copy = ManagedObject(entity: entity, insertInto: context)
            for attribute in entity.allAttributes where !attribute.isTransient {
                var value = template.value(forKey: attribute.name)
                if value is String { value = "Quire \(UUID().uuidString.prefix(8))" }
                if value is UUID { value = UUID() }
                copy.setValue(value, forKey: attribute.name)
            }
            for relationship in entity.allRelationships where !relationship.isToMany && !relationship.isTransient {
                copy.setValue(template.value(forKey: relationship.name), forKey: relationship.name)
            }
            try context.save()
            insertedID = copy.objectID.uriRepresentation()
        }
        #expect(try schema(url) == schemaBefore)
        // Every metadata key Core Data wrote is still there, unchanged (digest, checksum, _NSAutoVacuumLevel, …).
        #expect(try SQLiteStore.readMetadata(at: url) == metadataBefore)
        // The persistent-history tables and their Z_PRIMARYKEY rows are left alone.
        if hasHistory { #expect(try sqlite3(url, history) == historyBefore) }
        // The derived-attribute triggers counted the new page into its book.
        if hasDerived, let before = Int(derivedBefore.trimmingCharacters(in: .whitespacesAndNewlines)) {
            #expect(try sqlite3(url, derivedCount).trimmingCharacters(in: .whitespacesAndNewlines) == String(before + 1))
        }
        var after = try rowCounts(url)
        let insertedName = try self.model(testCase).entitiesByName[testCase.insert]?.renamingIdentifier
        let key = before[testCase.insert] != nil ? testCase.insert : insertedName ?? testCase.insert
        after[key, default: 0] -= 1
        #expect(after == before)
        let (coordinator, context) = try Fixtures.stack(try self.model(testCase), at: url)
        let uri = try #require(insertedID)
        let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        let inserted = try context.existingObject(with: id)
        #expect(inserted.entity.name == testCase.insert)
        let request = FetchRequest<ManagedObject>(entityName: testCase.change.entity)
        request.predicate = try QueryPredicate(format: "%K == %@", testCase.change.attribute, "Changed by Quire")
        #expect(try context.count(for: request) == 1)
    }

    @Test func refusesAStoreWhoseSchemaIsNotTheModels() throws {
        let url = try copy("CoreDataPlus/SampleModel_V1.sqlite")
        // SampleModel2 renamed ExpensiveSportCar; SampleModel3 has other entities altogether.
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel.xcdatamodeld"))
        let other = try #require(bundle.model(named: "SampleModel3"))
        let error = try #require(throws: QuireError.self) { try Fixtures.stack(other, at: url) }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        // The store's own error names the first difference between its tables and the model.
        let cause = try #require(error.underlying as? QuireError)
        #expect(cause.message.contains("does not match its model: the model's entity 'Maker' has no row in its Z_PRIMARYKEY"), "\(cause.message)")
    }

    @Test func refusesAStoreMissingAColumnOfItsModel() throws {
        let url = try copy("BookMigration/Model1.sqlite")
        _ = try sqlite3(url, "ALTER TABLE ZBOOK DROP COLUMN ZAUTHORNAME")
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/BookMigration/Model.xcdatamodeld"))
        let model = try #require(bundle.model(named: "Model1"))
        let error = try #require(throws: QuireError.self) { try Fixtures.stack(model, at: url) }
        let cause = (error.underlying as? QuireError) ?? error
        #expect(cause.message.contains("does not match its model: column ZBOOK.ZAUTHORNAME is missing"), "\(cause.message)")
    }
}

/// Metadata of a Core Data store through Quire: every key Core Data wrote survives a save, and metadata an
/// application sets (without Core Data's keys) is added to them.
@Suite struct CoreDataStoreMetadataTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func keysCoreDataWroteSurviveSettingMetadata() throws {
        let source = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3_V1.sqlite")
        let url = folder.file("SampleModel3_V1.sqlite")
        try FileManager.default.copyItem(at: source, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let before = try SQLiteStore.readMetadata(at: url)
        for key in ["NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey", "_NSAutoVacuumLevel"] {
            #expect(before[key] != nil, "\(key)")
        }
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3.xcdatamodeld"))
        do {
            let (coordinator, context) = try Fixtures.stack(try #require(bundle.model(named: "SampleModel3")), at: url)
            let store = try #require(coordinator.persistentStores.first)
            coordinator.setMetadata(["com.example.lastOpened": .string("today")], for: store)
            let user = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "User")).first)
            user.setValue("Renamed", forKey: "name")
            try context.save()
        }
        var after = try SQLiteStore.readMetadata(at: url)
        #expect(after.removeValue(forKey: "com.example.lastOpened") == .string("today"))
        #expect(after == before)
        // The UUID stays in Z_UUID, and out of the plist, as Core Data keeps it.
        #expect(try sqlite3(url, "SELECT Z_UUID FROM Z_METADATA") == before[StoreMetadataKey.storeUUID]?.stringValue)
    }
}

/// A transformer that stores data as it is (a stand-in for an app's image transformer).
private struct DataPassThroughTransformer: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        guard let data = value as? Data else { throw QuireError(.invalidArgument, "Not data: \(value)") }
        return data
    }
    func reverseTransformedValue(_ data: Data) throws -> Any { data }
}
