import Foundation
import QuireTestSupport
import Testing

import Quire

/// CoreDataPlus's migrations (Fixtures/CoreData/CoreDataPlus), with its code ported to Swift on Quire: SampleModel
/// version 2 to 3 through its `V2toV3.xcmappingmodel` and `V2to3MakerPolicy` (on `Car` and its sub-entities
/// `SportCar` and `LuxuryCar`), and SampleModel3 version 1 to 3 through its staged migration (a custom stage that
/// makes a `Pet` of each user's pet name, then a lightweight one). What must hold is what CoreDataPlus's tests
/// assert (`Migrations_Tests.test_MigrationFromV2ToV3`, `StagedMigrations_Tests.test_MigrationFromV1ToV3`).
@Suite struct CoreDataPlusMigrationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        // The mapping model names the class with a placeholder module CoreDataPlus's tests replace at run time.
        EntityMigrationPolicyRegistry.shared.register(MakerPolicy.self, as: "REPLACE_AT_RUNTIME.V2to3MakerPolicy")
    }

    /// `V2to3MakerPolicy`, ported: after the default copy, the car joins the maker its old `maker` string names,
    /// found among the objects the destination context has made so far or made anew.
    final class MakerPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let name = sInstance.value(forKey: "maker") as? String else { return }
            guard let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
                let context = car.managedObjectContext
            else { throw QuireError(.migration, "The car was not made.") }
            let maker =
                context.registeredObjects.first { !$0.isFault && $0.entity.name == "Maker" && $0.value(forKey: "name") as? String == name }
                ?? {
                    let made = ManagedObject(entity: manager.destinationModel.entitiesByName["Maker"]!, insertInto: context)
                    made.setValue(name, forKey: "name")
                    return made
                }()
            maker.addObject(car, toRelationship: "cars")
        }
    }

    func copy(_ name: String) throws -> URL {
        let url = folder.file(name)
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/" + name), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    /// CoreDataPlus's heavyweight migration, V2 to V3 in place, as its `Migrator` runs it.
    @Test func sampleModelV2ToV3ThroughItsMappingModelAndPolicy() throws {
        let url = try copy("SampleModel_V2.sqlite")
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel.xcdatamodeld"))
        let (v2, v3) = (bundle.models[1], bundle.models[2])
        let mapping = try MappingModel(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/MappingModels/V2toV3.xcmappingmodel"))
        #expect(mapping.isMapping(from: v2, to: v3))
        #expect(mapping.entityMappings.map(\.name) == ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])
        try MigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(at: url, type: .sqlite, mapping: mapping)
        try expectMigrated(url, model: v3)
    }

    /// The same through automatic migration: the mapping model found where the options say, the step before it
    /// (from V1) inferred.
    @Test(arguments: ["SampleModel_V1.sqlite", "SampleModel_V2.sqlite"])
    func automaticMigrationFindsTheMappingModel(_ store: String) throws {
        let url = try copy(store)
        let newest = try #require(try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel.xcdatamodeld")).models.last)
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        options.mappingModelURLs = [try FixtureFiles.url("CoreData/CoreDataPlus/MappingModels")]
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: newest)
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url, options: options))
        try expectMigrated(url, model: newest)
    }

    func expectMigrated(_ url: URL, model: ManagedObjectModel) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let cars = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Maker")) == 10)
            #expect(cars.count == 125)
            for car in cars {
                #expect(car.value(forKey: "createdBy") != nil, "\(car.value(forKey: "numberPlate") ?? "")")
                let previousOwners = (car.value(forKey: "previousOwners") as? Set<ManagedObject>) ?? []
                if let owner = car.value(forKey: "owner") as? ManagedObject {
                    #expect(previousOwners.contains(owner))
                    #expect(((owner.value(forKey: "previousCars") as? Set<ManagedObject>) ?? []).contains(car))
                } else {
                    #expect(previousOwners.isEmpty)
                }
            }
            // The sub-entities' objects stay of their entities.
            let luxury = FetchRequest<ManagedObject>(entityName: "LuxuryCar")
            #expect(try context.count(for: luxury) == 5)
        }
    }

    /// CoreDataPlus's staged migration of SampleModel3, V1 → V2 custom, V2 → V3 lightweight, through a container
    /// with the manager in Core Data's option.
    @Test func sampleModel3StagedFromV1ToV3() throws {
        let url = try copy("SampleModel3_V1.sqlite")
        let bundleURL = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3.xcdatamodeld")
        let bundle = try ModelBundle(contentsOf: bundleURL)
        let (v1, v2, v3) = try (#require(bundle.model(named: "SampleModel3")), #require(bundle.model(named: "SampleModel3_v2")),
            #require(bundle.model(named: "SampleModel3_v3")))
        let addPets = CustomMigrationStage(
            migratingFrom: try ManagedObjectModelReference(name: "SampleModel3", in: bundleURL, versionChecksum: v1.versionChecksum),
            to: try ManagedObjectModelReference(name: "SampleModel3_v2", in: bundleURL, versionChecksum: v2.versionChecksum))
        addPets.label = "V1 to V2 (Add Pet entity and denormalize User entity)"
        addPets.didMigrateHandler = { manager, _ in
            guard let container = manager.container else { return }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for user in try context.fetch(FetchRequest<ManagedObject>(entityName: "User")) {
                    if let petName = user.value(forKey: "petName") as? String {
                        let pet = ManagedObject(entity: container.managedObjectModel.entitiesByName["Pet"]!, insertInto: context)
                        pet.setValue(petName, forKey: "name")
                        user.setValue(pet, forKey: "pet")
                    }
                }
                try context.save()
            }
        }
        let dropPetNames = LightweightMigrationStage([v3.versionChecksum])
        dropPetNames.label = "V2 to V3 (remove petName from User entity)"
        let container = try PersistentContainer(name: "SampleModel3", managedObjectModel: v3)
        let description = PersistentStoreDescription(url: url)
        description.setOption(StagedMigrationManager([addPets, dropPetNames]), forKey: "NSPersistentStoreStagedMigrationManagerOptionKey")
        container.persistentStoreDescriptions = [description]
        let failure = LockedBox<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.mutate { $0 = error } }
        #expect(failure.value == nil, "\(String(describing: failure.value))")
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let users = try context.fetch(FetchRequest<ManagedObject>(entityName: "User"))
            #expect(users.count == 12)
            for user in users {
                let pet = user.value(forKey: "pet") as? ManagedObject
                #expect(pet != nil, "Pet should not be nil after migration to V3")
                #expect(pet?.value(forKey: "name") as? String != nil)
            }
        }
        #expect(try Set(sqlite3(url, "SELECT ZNAME FROM ZPET").split(separator: "\n")).count == 12)
    }
}
