import Foundation
import QuireTestSupport
import Testing

import Quire

/// objc.io's Moody (Fixtures/CoreData/Moody, its model bundle and its four `.xcmappingmodel` files), migrated as
/// the app migrates it: version 1 to 2 by inference, 2 to 6 through its mapping models, 5 to 6 with its
/// `Country5ToCountry6Policy`. What each version must hold is what objc.io's own migration tests assert
/// (`Migrations/MigrationsTests/V2.swift` … `V6.swift`): the same four moods, three countries and two continents,
/// with the continents computed by the mapping models.
@Suite struct MoodyMigrationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        EntityMigrationPolicyRegistry.shared.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
    }

    /// objc.io's policy, in Swift on Quire: after the default copy, the country gets the continent its old
    /// `isoContinent` code names, found among the objects the destination context has made so far or made anew.
    final class Country5ToCountry6Policy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let code = sInstance.value(forKey: "isoContinent") as? Int16 else { return }
            guard let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
                let context = country.managedObjectContext
            else { throw QuireError(.migration, "The country was not made.") }
            let continent =
                context.registeredObjects.first {
                    !$0.isFault && $0.entity.name == "Continent" && $0.value(forKey: "numericISO3166Code") as? Int16 == code
                }
                ?? {
                    let made = ManagedObject(entity: manager.destinationModel.entitiesByName["Continent"]!, insertInto: context)
                    made.setValue(code, forKey: "numericISO3166Code")
                    return made
                }()
            country.setValue(continent, forKey: "continent")
        }
    }

    // MARK: What each version holds (objc.io's V2.swift … V6.swift)

    struct Mood {
        let remoteID: String, country: Int16, date: Double, latitude: Double, longitude: Double, colors: String
    }
    static let moods = [
        Mood(remoteID: "64C6E1D4-7C2E-4F04-B867-1A9E2941F9FF", country: 704, date: 464441952.529884, latitude: 13.154376, longitude: 108.193359,
             colors: "a2Va3d/kSEIxJyQLiIeGCwkDOSwLmJmd"),
        Mood(remoteID: "47300BAD-DE7D-4B54-B94C-04A3EE4CD0C5", country: 710, date: 464369360.734390, latitude: -26, longitude: 28,
             colors: "a2Va3d/kSEIxJyQLiIeGCwkDOSwLmJmd"),
        Mood(remoteID: "83922344-ED0B-4ABE-B8B0-E00F4E7E1D94", country: 231, date: 464442000.641578, latitude: 7.013668, longitude: 41.308594,
             colors: "8fP4YVtDZWU3usfgRT8gTE8cTTktfHlf"),
        Mood(remoteID: "3A9BAEFD-7716-41C0-9FFF-A7C4BCE32679", country: 710, date: 464369352.554507, latitude: -26, longitude: 28,
             colors: "XkUa493ZlI1/epW2MSIOFQ8HQSoOTUAs"),
    ]
    /// Countries: moods counted, continent code, updatedAt.
    static let countries: [Int16: (moods: Int64, continent: Int16, updatedAt: Double)] = [
        710: (2, 10004, 464687061.782827), 704: (1, 10005, 464687061.722586), 231: (1, 10004, 464687061.668211),
    ]
    /// Continents of versions 2 to 4: moods and countries counted, updatedAt.
    static let continents: [Int16: (moods: Int64, countries: Int64, updatedAt: Double)] = [
        10005: (8, 6, 465131737.392830), 10004: (8, 4, 464687061.663903),
    ]

    /// Opens a migrated store with a version of the model and checks that it holds objc.io's data for it.
    func expectData(of version: Int, at url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let model = try #require(try ModelBundle(contentsOf: try MappingModelFixtures.moodyBundle).model(named: version == 1 ? "Moody" : "Moody \(version)"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: nil, at: url)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata), sourceLocation: sourceLocation)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func all(_ entity: String) throws -> [ManagedObject] { try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) }
            func code(_ object: Any?) -> Int16? { (object as? ManagedObject)?.value(forKey: "numericISO3166Code") as? Int16 }
            func codes(_ objects: Any?) -> Set<String> {
                Set(((objects as? Set<ManagedObject>) ?? []).map {
                    $0.entity.name == "Mood" ? ($0.value(forKey: "remoteID") as? String ?? "") : "\(code($0) ?? -1)"
                })
            }
            let moods = try all("Mood")
            #expect(moods.count == 4, sourceLocation: sourceLocation)
            for expected in Self.moods {
                guard let mood = moods.first(where: { $0.value(forKey: "remoteID") as? String == expected.remoteID }) else {
                    Issue.record("Mood \(expected.remoteID) is missing in version \(version).", sourceLocation: sourceLocation)
                    continue
                }
                #expect((mood.value(forKey: "date") as? Date)?.timeIntervalSinceReferenceDate == expected.date, sourceLocation: sourceLocation)
                #expect(mood.value(forKey: "latitude") as? Double == expected.latitude, sourceLocation: sourceLocation)
                #expect(mood.value(forKey: "longitude") as? Double == expected.longitude, sourceLocation: sourceLocation)
                #expect(mood.value(forKey: "creatorID") as? String == "__defaultOwner__", sourceLocation: sourceLocation)
                #expect(mood.value(forKey: "markedForRemoteDeletion") as? Bool == false, sourceLocation: sourceLocation)
                #expect(mood.value(forKey: "markedForDeletionDate") == nil, sourceLocation: sourceLocation)
                #expect(mood.attributeValue(forKey: "colors") == .data(Data(base64Encoded: expected.colors)!), sourceLocation: sourceLocation)
                if version >= 2 { #expect(mood.value(forKey: "rating") as? Int16 == 0, sourceLocation: sourceLocation) }
                #expect(code(mood.value(forKey: "country")) == expected.country, sourceLocation: sourceLocation)
                if version == 3 || version == 4 {
                    // Mood.continent = $source.country.continent (mapping model 2-3).
                    #expect(code(mood.value(forKey: "continent")) == Self.countries[expected.country]?.continent, sourceLocation: sourceLocation)
                }
            }
            let countries = try all("Country")
            #expect(countries.count == 3, sourceLocation: sourceLocation)
            for country in countries {
                let number = code(country) ?? -1
                guard let expected = Self.countries[number] else {
                    Issue.record("Country \(number) is not one of objc.io's.", sourceLocation: sourceLocation)
                    continue
                }
                #expect(country.value(forKey: "numberOfMoods") as? Int64 == expected.moods, sourceLocation: sourceLocation)
                #expect((country.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == expected.updatedAt, sourceLocation: sourceLocation)
                #expect(country.value(forKey: "markedForDeletionDate") == nil, sourceLocation: sourceLocation)
                #expect(codes(country.value(forKey: "moods")) == Set(Self.moods.filter { $0.country == number }.map(\.remoteID)), sourceLocation: sourceLocation)
                if version == 5 {
                    // Country.isoContinent = $source.continent.numericISO3166Code (mapping model 4-5).
                    #expect(country.value(forKey: "isoContinent") as? Int16 == expected.continent, sourceLocation: sourceLocation)
                } else {
                    #expect(code(country.value(forKey: "continent")) == expected.continent, sourceLocation: sourceLocation)
                }
            }
            guard version != 5 else {
                #expect(model.entitiesByName["Continent"] == nil, sourceLocation: sourceLocation)
                return
            }
            let continents = try all("Continent")
            #expect(continents.count == 2, sourceLocation: sourceLocation)
            for continent in continents {
                let number = code(continent) ?? -1
                let members = Self.countries.filter { $0.value.continent == number }.map(\.key)
                #expect(codes(continent.value(forKey: "countries")) == Set(members.map { "\($0)" }), sourceLocation: sourceLocation)
                if version == 6 {
                    // Made by Country5ToCountry6Policy: the code alone.
                    #expect([10004, 10005].contains(number), sourceLocation: sourceLocation)
                    continue
                }
                let expected = try #require(Self.continents[number], sourceLocation: sourceLocation)
                #expect(continent.value(forKey: "numberOfMoods") as? Int64 == expected.moods, sourceLocation: sourceLocation)
                #expect(continent.value(forKey: "numberOfCountries") as? Int64 == expected.countries, sourceLocation: sourceLocation)
                #expect((continent.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == expected.updatedAt, sourceLocation: sourceLocation)
                if version >= 3 {
                    // Continent.moods = $source.countries.@distinctUnionOfSets.moods (mapping model 2-3).
                    let moods = Set(Self.moods.filter { members.contains($0.country) }.map(\.remoteID))
                    #expect(codes(continent.value(forKey: "moods")) == moods, sourceLocation: sourceLocation)
                }
            }
        }
        try coordinator.remove(store)
    }

    // MARK: Migrating

    static func versions() throws -> [ManagedObjectModel] { try ModelBundle(contentsOf: try MappingModelFixtures.moodyBundle).models }

    /// objc.io's `migrateStore(from:to:targetVersion:)` for one step: the app's mapping model, or the inferred one
    /// from version 1 to 2, into a new store.
    func step(_ url: URL, from version: Int, into target: URL) throws {
        let versions = try Self.versions()
        let (source, destination) = (versions[version - 1], versions[version])
        let mapping = try version == 1
            ? MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            : MappingModel(contentsOf: try MappingModelFixtures.file("Moody \(version)-Moody \(version + 1)"))
        #expect(mapping.isMapping(from: source, to: destination))
        try MigrationManager(sourceModel: source, destinationModel: destination)
            .migrateStore(from: url, type: .sqlite, mapping: mapping, to: target, type: .sqlite)
    }

    @Test(arguments: 1...5)
    func eachStepGivesWhatObjcIOsTestsExpect(from version: Int) throws {
        let url = try MappingModelFixtures.moodyStore(version, in: folder)
        let before = try Data(contentsOf: url)
        let target = folder.file("Migrated.moody")
        try step(url, from: version, into: target)
        try expectData(of: version + 1, at: target)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test(arguments: 1...5)
    func everyStoreMigratesProgressivelyToVersion6ThroughTheAppsMappingModels(from version: Int) throws {
        let url = try MappingModelFixtures.moodyStore(version, in: folder)
        let mappings = folder.url.appendingPathComponent("Migrations")
        try MappingModelFixtures.install(["Moody 2-Moody 3", "Moody 3-Moody 4", "Moody 4-Moody 5", "Moody 5-Moody 6"], in: mappings)
        let stages = LockedBox<[Int]>([])
        let migrated = try MigrationManager.migrateStore(
            at: url, type: .sqlite, versions: try Self.versions(), mappingModelURLs: [mappings]
        ) { progress in stages.mutate { $0.append(progress.stage) } }
        #expect(migrated)
        #expect(stages.value.last == 6 - version)
        try expectData(of: 6, at: url)
    }

    @Test func theStepsMayRunOnXMLAndBinaryStores() throws {
        for type in [StoreType.xml, .binary] {
            // Moody 4 as a store of another type (Save As), then 4 to 5 to 6 through the mapping models.
            let versions = try Self.versions()
            let sqlite = try MappingModelFixtures.moodyStore(4, in: folder)
            let url = folder.file("Moody 4.\(type.rawValue.lowercased())")
            do {
                let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[3])
                let store = try coordinator.addPersistentStore(type: .sqlite, at: sqlite)
                try coordinator.remove(try coordinator.migratePersistentStore(store, to: url, type: type))
            }
            let mappings = folder.url.appendingPathComponent("Mappings-\(type.rawValue)")
            try MappingModelFixtures.install(["Moody 4-Moody 5", "Moody 5-Moody 6"], in: mappings)
            #expect(try MigrationManager.migrateStore(at: url, type: type, versions: Array(versions[3...]), mappingModelURLs: [mappings]))
            try expectData(of: 6, at: url)
            try FileManager.default.removeItem(at: sqlite)
        }
    }

    @Test func aPolicyNobodyRegisteredIsRefusedBeforeAnythingIsWritten() throws {
        let url = try MappingModelFixtures.moodyStore(5, in: folder)
        let before = try Data(contentsOf: url)
        let versions = try Self.versions()
        let manager = MigrationManager(sourceModel: versions[4], destinationModel: versions[5])
        manager.policyRegistry = EntityMigrationPolicyRegistry()
        let mapping = try MappingModel(contentsOf: try MappingModelFixtures.file("Moody 5-Moody 6"))
        let error = expectError(.entityMigrationPolicy) { try manager.migrateStore(at: url, type: .sqlite, mapping: mapping) }
        #expect(error?.message.contains("'CountryToCountry' names the migration policy class 'Migrations.Country5ToCountry6Policy'") == true)
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".migration-") }.isEmpty)
    }
}

/// A value several threads may read and change (progress handlers are `@Sendable`).
///
/// `@unchecked Sendable`: `storage` is read and written only under `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: Value
    init(_ value: Value) { storage = value }
    var value: Value { lock.withLock { storage } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&storage) } }
}
