import Foundation
import Testing

import Quire

/// Moody's model tests (denormalized counters kept in `willSave()`, the merge policy subclass, the uniqueness
/// constraint resolved into the stored region), run on the port in `MoodyPortModel.swift`: the same steps and the
/// same expectations as the app's XCTest cases, on the app's own Xcode model file. Each would fail without one of
/// issue 29's fixes: `as? Int` on Integer 64 values, `changedValues()` with relationships, `willSave()` after
/// constraint resolution, a required to-many saved empty, overridable merge policies, classes bound by the model.
@Suite(.serialized) struct MoodyPortTests {
    /// The Moody model with its class names moved to the `MoodyPort` module name (so that only this suite's
    /// classes are bound to it: other suites read the same model file with ManagedObject instances).
    static func model() throws -> ManagedObjectModel {
        let source = try FixtureFiles.url("CoreData/Models/objcio__core-data/Moody/MoodyModel/Moody.xcdatamodeld")
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("Moody.xcdatamodeld/Moody.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let contents = try String(contentsOf: source.appendingPathComponent("Moody.xcdatamodel/contents"), encoding: .utf8)
        try contents.replacingOccurrences(of: "representedClassName=\"MoodyModel.", with: "representedClassName=\"MoodyPort.")
            .write(to: copy.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return try ManagedObjectModel(contentsOf: folder.url.appendingPathComponent("Moody.xcdatamodeld"))
    }

    /// One line per class, as an app registers its classes at launch.
    static func registerClasses() {
        ManagedObjectClassRegistry.register(MoodyPort.Mood.self, forClassName: "MoodyPort.Mood")
        ManagedObjectClassRegistry.register(MoodyPort.Country.self, forClassName: "MoodyPort.Country")
        ManagedObjectClassRegistry.register(MoodyPort.Continent.self, forClassName: "MoodyPort.Continent")
        ManagedObjectClassRegistry.register(MoodyPort.Region.self, forClassName: "MoodyPort.Region")
        MoodyPort.Mood.registerValueTransformers()
    }

    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        Self.registerClasses()
    }

    func context(_ type: StoreType) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try Self.model())
        if type == .inMemory {
            try coordinator.addPersistentStore(ofType: InMemoryStoreType, configurationName: nil, at: nil, options: nil)
        } else {
            let storeURL = folder.file("moody-test")
            if FileManager.default.fileExists(atPath: storeURL.path) {
                try coordinator.destroyPersistentStore(at: storeURL, ofType: SQLiteStoreType, options: nil)
            }
            try coordinator.addPersistentStore(ofType: SQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func secondContext(on first: ManagedObjectContext) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = first.persistentStoreCoordinator
        return context
    }

    // MARK: Denormalization (the app's DenormalizationTests)

    @Test func classesAreBoundByTheModel() throws {
        let context = try context(.inMemory)
        let moods = context.testInsertMoodsAndSave([.deu])
        #expect(MoodyPort.Mood.entity().name == "Mood")
        #expect(MoodyPort.Country.entity().name == "Country")
        let country = try #require(moods[0].country)
        #expect(type(of: country) == MoodyPort.Country.self)
        #expect(country.continent.map { type(of: $0) == MoodyPort.Continent.self } == true)
        let request: FetchRequest<MoodyPort.Mood> = MoodyPort.Mood.fetchRequest()
        #expect(try context.performAndWait { try context.fetch(request) }.count == 1)
        #expect(moods[0].colors == [.white])
    }

    @Test func insertingMoodUpdatesTimestampOnCountry() throws {
        let context = try context(.inMemory)
        let country = try #require(context.testInsertMoodsAndSave()[0].country)
        let updatedAt = country.updatedAt
        Thread.sleep(forTimeInterval: 0.002)
        _ = context.testInsertMoodsAndSave([country.iso3166Code])
        #expect(country.updatedAt > updatedAt)
    }

    @Test func insertingMoodUpdatesTimestampOnContinent() throws {
        let context = try context(.inMemory)
        let continent = try #require(context.testInsertMoodsAndSave()[0].country?.continent)
        let updatedAt = continent.updatedAt
        Thread.sleep(forTimeInterval: 0.002)
        _ = context.testInsertMoodsAndSave([try #require(continent.countries.first).iso3166Code])
        #expect(continent.updatedAt > updatedAt)
    }

    @Test func deletingMoodDoesNotChangeUpdatedAtOnCountry() throws {
        let context = try context(.inMemory)
        let moods = context.testInsertMoodsAndSave([.deu, .deu])
        let country = try #require(moods[0].country)
        let updatedAt = country.updatedAt
        context.testDeleteObject(moods[1])
        #expect(country.updatedAt == updatedAt)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func insertingMoodUpdatesNumberOfMoodsOnCountry(type: StoreType) throws {
        let context = try context(type)
        let country = try #require(context.testInsertMoodsAndSave()[0].country)
        _ = context.testInsertMoodsAndSave([country.iso3166Code])
        #expect(country.numberOfMoods == 2)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func insertingMoodUpdatesNumberOfMoodsOnContinent(type: StoreType) throws {
        let context = try context(type)
        let continent = try #require(context.testInsertMoodsAndSave([.deu])[0].country?.continent)
        _ = context.testInsertMoodsAndSave([.deu, .fra])
        #expect(continent.numberOfMoods == 3)
    }

    @Test func insertingMoodInNewCountryUpdatesNumberOfCountriesOnContinent() throws {
        let context = try context(.inMemory)
        let continent = try #require(context.testInsertMoodsAndSave([.deu])[0].country?.continent)
        _ = context.testInsertMoodsAndSave([.fra])
        #expect(continent.numberOfCountries == 2)
    }

    @Test func deletingMoodUpdatesNumberOfMoodsOnCountry() throws {
        let context = try context(.inMemory)
        let moods = context.testInsertMoodsAndSave([.deu, .deu])
        let country = try #require(moods[0].country)
        context.testDeleteObject(moods[1])
        #expect(country.numberOfMoods == 1)
    }

    @Test func deletingMoodUpdatesNumberOfMoodsOnContinent() throws {
        let context = try context(.inMemory)
        let moods = context.testInsertMoodsAndSave([.deu, .fra, .fra])
        let continent = try #require(moods[0].country?.continent)
        context.testDeleteObject(moods[2])
        #expect(continent.numberOfMoods == 2)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func deletingLastMoodInCountryUpdatesNumberOfCountriesOnContinent(type: StoreType) throws {
        // The country keeps no mood: its required to-many `moods` is saved empty, as on the Mac.
        let context = try context(type)
        let moods = context.testInsertMoodsAndSave([.deu, .fra])
        let continent = try #require(moods[0].country?.continent)
        context.testDeleteObject(moods[1])
        #expect(continent.numberOfCountries == 1)
    }

    @Test func deletingLastMoodInCountryUpdatesNumberOfMoodsOnContinent() throws {
        let context = try context(.inMemory)
        let moods = context.testInsertMoodsAndSave([.deu, .fra])
        let continent = try #require(moods[0].country?.continent)
        context.testDeleteObject(moods[1])
        #expect(continent.numberOfMoods == 1)
    }

    // MARK: The merge policy (the app's MoodyMergePolicyTests)

    func policyContexts(_ type: StoreType) throws -> (ManagedObjectContext, ManagedObjectContext) {
        let first = try context(type)
        let second = secondContext(on: first)
        first.mergePolicy = MoodyPort.MoodyMergePolicy(mode: .local)
        second.mergePolicy = MoodyPort.MoodyMergePolicy(mode: .local)
        return (first, second)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func conflictedUpdatedAtResolvesToLatestDate(type: StoreType) throws {
        let (context1, context2) = try policyContexts(type)
        let country1 = try #require(context1.testInsertMoodsAndSave()[0].country).materialize()
        let country2 = country1.materializedObject(in: context2)
        let winningDate = Date(timeIntervalSinceNow: 20)
        context1.performChangesAndWait { country1.updatedAt = winningDate }
        context2.performChangesAndWait { country2.updatedAt = Date(timeIntervalSinceNow: 10) }
        context2.refreshAllObjects()
        #expect(context2.performAndWait { country2.updatedAt } == winningDate)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func conflictedNumberOfMoodsOnCountryResolvesToPersistedState(type: StoreType) throws {
        let (context1, context2) = try policyContexts(type)
        let country1 = try #require(context1.testInsertMoodsAndSave([.deu])[0].country)
        _ = context2.testInsertMoodsAndSave([.deu])
        context1.performChangesAndWait { _ = context1.testInsertMoodsAndSave([.deu]) }
        #expect(country1.numberOfMoods == 3)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func conflictedNumberOfMoodsOnContinentResolvesToPersistedState(type: StoreType) throws {
        let (context1, context2) = try policyContexts(type)
        let continent1 = try #require(context1.testInsertMoodsAndSave([.deu])[0].country?.continent)
        _ = context2.testInsertMoodsAndSave([.deu])
        context1.performChangesAndWait { _ = context1.testInsertMoodsAndSave([.deu]) }
        #expect(continent1.numberOfMoods == 3)
    }

    @Test(arguments: [StoreType.inMemory, .sqlite])
    func conflictedNumberOfCountriesOnContinentResolvesToPersistedState(type: StoreType) throws {
        let (context1, context2) = try policyContexts(type)
        let continent1 = try #require(context1.testInsertMoodsAndSave([.deu])[0].country?.continent)
        _ = context2.testInsertMoodsAndSave([.fra])
        context1.performChangesAndWait { _ = context1.testInsertMoodsAndSave([.pol]) }
        #expect(continent1.numberOfCountries == 3)
    }

    // MARK: The uniqueness constraint (the app's MoodyMergePolicyConstraintTests)

    @Test func regionIsoCodeIsEnforcedToBeUnique() throws {
        let (context1, context2) = try policyContexts(.sqlite)
        let m1 = context1.testInsertMoods([.deu])[0]
        let m2 = context2.testInsertMoodsAndSave([.deu])[0]
        try context1.performAndWait { try context1.save() }
        context1.performAndWait {
            #expect(m1.country?.objectID == m2.country?.objectID)
            #expect(m1.country?.continent?.objectID == m2.country?.continent?.objectID)
            // willSave() ran again on the stored country once the duplicate's mood moved onto it.
            #expect(m1.country?.numberOfMoods == 2)
            #expect(m1.country?.continent?.numberOfCountries == 1)
            #expect(m1.country?.continent?.numberOfMoods == 2)
        }
    }
}

extension ManagedObjectContext {
    // The app's test helpers.
    func testInsertMoodsAndSave(_ isoCountries: [MoodyPort.ISOCountry] = [.deu]) -> [MoodyPort.Mood] {
        var moods: [MoodyPort.Mood] = []
        performChangesAndWait { moods = testInsertMoods(isoCountries) }
        return moods
    }

    func testInsertMoods(_ isoCountries: [MoodyPort.ISOCountry] = [.deu]) -> [MoodyPort.Mood] {
        performAndWait {
            isoCountries.map {
                MoodyPort.Mood.insert(into: self, colors: [.white], latitude: nil, longitude: nil, isoCountry: $0)
            }
        }
    }

    func testDeleteObject(_ o: MoodyPort.DelayedDeletable) {
        performChangesAndWait { o.markForLocalDeletion() }
    }
}
