import Foundation
import Testing

import Quire
import QuirePostgres

/// Uniqueness constraints enforced on save, on every store type: conflicts among the saved objects and with stored
/// records, thrown under the error policy and resolved by the others as Core Data resolves them.
@Suite struct UniquenessConstraintTests {
    /// Every store type; PostgreSQL when the test server runs.
    static let storeTypes: [StoreType] = [.sqlite, .xml, .binary, .inMemory] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// People unique by email, cars unique by maker and plate together; a person owns cars.
    static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "city", type: .string),
            RelationshipDescription(name: "cars", destination: "Car", toMany: true, inverse: "owner", deleteRule: .cascade),
        ])
        person.uniquenessConstraints = [["email"]]
        let car = EntityDescription(name: "Car", properties: [
            AttributeDescription(name: "maker", type: .string),
            AttributeDescription(name: "plate", type: .string),
            RelationshipDescription(name: "owner", destination: "Person", inverse: "cars"),
        ])
        car.uniquenessConstraints = [["maker", "plate"]]
        return ManagedObjectModel(entities: [person, car])
    }

    /// A store of `type` (in a fresh folder) and a context on it.
    struct Stack {
        let folder: TemporaryFolder
        let coordinator: PersistentStoreCoordinator
        let type: StoreType

        init(_ type: StoreType, model: ManagedObjectModel = UniquenessConstraintTests.model()) throws {
            self.type = type
            folder = try TemporaryFolder()
            coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            let url = switch type {
            case .inMemory: nil as URL?
            case .postgres: PostgresTestServer.storeURL()
            default: folder.file("Store.\(type.rawValue.lowercased())")
            }
            try coordinator.addPersistentStore(type: type, at: url)
        }

        func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
            return context
        }

        /// What a fresh context reads back: entity name and sorted "key=value" lines per object.
        func stored(_ entity: String, _ key: String) throws -> [String] {
            let request = FetchRequest<ManagedObject>(entityName: entity)
            return try context().fetch(request).map { ($0.value(forKey: key) as? String) ?? "nil" }.sorted()
        }
    }

    @discardableResult
    static func person(_ context: ManagedObjectContext, email: String?, name: String?, city: String? = nil) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue(email, forKey: "email")
        person.setValue(name, forKey: "name")
        person.setValue(city, forKey: "city")
        return person
    }

    @discardableResult
    static func car(_ context: ManagedObjectContext, _ maker: String, _ plate: String, owner: ManagedObject? = nil) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Car"])
        let car = ManagedObject(entity: entity, insertInto: context)
        car.setValue(maker, forKey: "maker")
        car.setValue(plate, forKey: "plate")
        car.setValue(owner, forKey: "owner")
        return car
    }

    @Test(arguments: storeTypes)
    func aDuplicateOfAStoredRecordFailsUnderTheErrorPolicy(type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada")
        try seed.save()

        let context = stack.context()
        let copy = try Self.person(context, email: "ada@example.com", name: "Ada L.")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflict = try #require(error.constraintConflicts.first)
        #expect(error.constraintConflicts.count == 1)
        #expect(conflict.entityName == "Person")
        #expect(conflict.constraint == ["email"])
        #expect(conflict.constraintAttributeValues == ["email": .string("ada@example.com")])
        #expect(conflict.databaseObjectID == ada.objectID)
        #expect(conflict.conflictingObjectIDs == [copy.objectID])
        #expect(conflict.conflictingValues.first?["name"] == .string("Ada L."))
        #expect(conflict.databaseValues?["name"] == .string("Ada"))
        // Nothing written, nothing changed in the context.
        #expect(copy.isInserted)
        #expect(try stack.stored("Person", "name") == ["Ada"])
    }

    @Test(arguments: storeTypes)
    func duplicatesAmongTheSavedObjectsFailUnderTheErrorPolicy(type: StoreType) throws {
        let stack = try Stack(type)
        let context = stack.context()
        let first = try Self.car(context, "Ford", "1")
        try Self.car(context, "Ford", "2")
        try Self.car(context, "Fiat", "1")
        let second = try Self.car(context, "Ford", "1")
        // Values that are nil never conflict (as in SQLite's UNIQUE indexes).
        try Self.person(context, email: nil, name: "A")
        try Self.person(context, email: nil, name: "B")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflicts = error.constraintConflicts
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.constraint == ["maker", "plate"])
        #expect(conflicts.first?.databaseObjectID == nil)
        #expect(conflicts.first?.conflictingObjectIDs == [first.objectID, second.objectID])
        #expect(try stack.stored("Car", "plate").isEmpty)

        // Without the duplicate the save goes through.
        context.delete(second)
        try context.save()
        #expect(try stack.stored("Car", "maker") == ["Fiat", "Ford", "Ford"])
        #expect(try stack.stored("Person", "name") == ["A", "B"])
    }

    @Test(arguments: storeTypes)
    func anUpdateOntoAStoredValueConflictsAndAMoveAwayFreesIt(type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada")
        let bob = try Self.person(seed, email: "bob@example.com", name: "Bob")
        try seed.save()

        bob.setValue("ada@example.com", forKey: "email")
        let error = try #require(throws: QuireError.self) { try seed.save() }
        #expect(error.constraintConflicts.first?.databaseObjectID == ada.objectID)
        #expect(error.constraintConflicts.first?.conflictingObjectIDs == [bob.objectID])

        if type == .sqlite {
            // SQLite checks its UNIQUE index row by row, so a swap takes a free value in between, and updates in
            // an order that never holds one value twice (as in Core Data). PostgreSQL's constraints are checked
            // when the save commits, so a swap in one save works there, as in the atomic stores.
            bob.setValue("bob@example.com", forKey: "email")
            ada.setValue("temporary", forKey: "email")
            try seed.save()
            bob.setValue("ada@example.com", forKey: "email")
            ada.setValue("bob@example.com", forKey: "email")
        } else {
            // Swapping the two emails in one save breaks nothing.
            ada.setValue("bob@example.com", forKey: "email")
        }
        try seed.save()
        #expect(ada.value(forKey: "email") as? String == "bob@example.com")
        #expect(try stack.stored("Person", "email") == ["ada@example.com", "bob@example.com"])
    }

    /// A stored person, and an inserted duplicate with another name, no city and a car: what each policy keeps.
    @Test(arguments: storeTypes.flatMap { type in [MergePolicyType.mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .overwriteMergePolicyType, .rollbackMergePolicyType].map { (type, $0) } })
    func policiesResolveAConflictWithAStoredRecord(type: StoreType, policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada", city: "London")
        try Self.car(seed, "Ford", "1", owner: ada)
        try seed.save()

        let context = stack.context(policy)
        let copy = try Self.person(context, email: "ada@example.com", name: "Ada Lovelace")
        let car = try Self.car(context, "Fiat", "2", owner: copy)
        try context.save()
        #expect(!context.hasChanges)

        let reader = stack.context()
        let people = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        #expect(people.count == 1)
        let survivor = try #require(people.first)
        if policy == .overwrite {
            // Core Data's overwrite: the saved object wins outright and the stored record is deleted, its to-many
            // members moved to the winner (NSMergePolicy's `_overwriteResolveConstraintConflict`).
            #expect(survivor.objectID == copy.objectID)
            #expect(!copy.isDeleted && copy.managedObjectContext === context)
        } else {
            // The stored record survives, under its own ID; the inserted duplicate is deleted.
            #expect(survivor.objectID == ada.objectID)
            #expect(copy.managedObjectContext == nil || copy.isDeleted)
        }
        let name = survivor.value(forKey: "name") as? String
        let city = survivor.value(forKey: "city") as? String
        let plates = ((survivor.value(forKey: "cars") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "plate") as? String }.sorted()
        switch policy {
        case .mergeByPropertyObjectTrump:
            // An inserted duplicate's every value wins, its nil city too (Core Data copies all of an inserted
            // object's values onto the database object); its car moves over.
            #expect(name == "Ada Lovelace" && city == nil && plates == ["1", "2"])
        case .overwrite:
            // The duplicate as it is, nil city included, with the stored record's car as well as its own.
            #expect(name == "Ada Lovelace" && city == nil && plates == ["1", "2"])
        case .mergeByPropertyStoreTrump:
            // The record keeps every value; only the duplicate's to-many members move over.
            #expect(name == "Ada" && city == "London" && plates == ["1", "2"])
        case .rollback:
            // The duplicate's state is discarded; its car is saved without an owner.
            #expect(name == "Ada" && city == "London" && plates == ["1"])
            #expect(car.value(forKey: "owner") == nil)
        default:
            break
        }
        #expect(try stack.stored("Car", "plate") == ["1", "2"])
    }

    @Test(arguments: storeTypes)
    func objectTrumpMergesDuplicatesAmongTheSavedObjects(type: StoreType) throws {
        let stack = try Stack(type)
        let context = stack.context(.mergeByPropertyObjectTrump)
        let first = try Self.person(context, email: "ada@example.com", name: "Ada", city: "London")
        try Self.person(context, email: "ada@example.com", name: "Ada Lovelace")
        try context.save()
        // The first object survives, with the later one's changes.
        #expect(try stack.stored("Person", "name") == ["Ada Lovelace"])
        #expect(try stack.stored("Person", "city") == ["London"])
        #expect(!first.isDeleted && first.managedObjectContext === context)
    }

    /// Saved objects that clash among themselves (no stored record holds the values): the one already in the
    /// store survives, the one with the smallest primary key among several, the first inserted among new ones.
    /// Under `.overwrite` and `.rollback` the others are deleted as they are; under the by-property policies their
    /// changes are merged into the survivor first (Core Data's `resolve(constraintConflicts:)`).
    @Test(arguments: storeTypes.flatMap { type in [MergePolicyType.overwriteMergePolicyType, .rollbackMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType].map { (type, $0) } })
    func theStoredObjectWithTheSmallestKeySurvivesAClashAmongSavedObjects(type: StoreType, policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada")
        let bob = try Self.person(seed, email: "bob@example.com", name: "Bob")
        try seed.save()
        #expect((ada.objectID.primaryKey ?? 0) < (bob.objectID.primaryKey ?? 0))

        let context = stack.context(policy)
        // The later record first, and a new object too: all three take one email.
        let laterBob = try context.existingObject(with: bob.objectID)
        let earlierAda = try context.existingObject(with: ada.objectID)
        let newcomer = try Self.person(context, email: "cy@example.com", name: "Cy")
        laterBob.setValue("cy@example.com", forKey: "email")
        earlierAda.setValue("cy@example.com", forKey: "email")
        newcomer.setValue("cy@example.com", forKey: "email")
        try context.save()

        let people = try stack.context().fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        #expect(people.map(\.objectID) == [ada.objectID])
        let name = people.first?.value(forKey: "name") as? String
        #expect(people.first?.value(forKey: "email") as? String == "cy@example.com")
        if policy == .mergeByPropertyObjectTrump {
            // The newcomer's name (a change of its own) is merged in; Bob changed only the email.
            #expect(name == "Cy")
        } else {
            #expect(name == "Ada")
        }
    }

    /// Deleting a record and inserting another with its unique values in one save is no conflict; SQLite deletes
    /// before it inserts, so its UNIQUE index never holds the value twice.
    @Test(arguments: storeTypes)
    func aDeletedRecordsValuesCanBeTakenInTheSameSave(type: StoreType) throws {
        let stack = try Stack(type)
        let context = stack.context()
        let ada = try Self.person(context, email: "ada@example.com", name: "Ada")
        try context.save()
        context.delete(ada)
        try Self.person(context, email: "ada@example.com", name: "Ada again")
        try context.save()
        #expect(try stack.stored("Person", "name") == ["Ada again"])
    }

    /// Store trump copies no values onto the stored record, not even into its nil properties (Core Data's
    /// `_byPropertyStoreTrumpResolveConstraintConflict:` moves only to-many members); object trump takes the
    /// values an updated duplicate changed and leaves the rest.
    @Test(arguments: storeTypes)
    func byPropertyPoliciesOntoAStoredRecord(type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada")
        let bob = try Self.person(seed, email: "bob@example.com", name: "Bob", city: "Paris")
        try seed.save()

        let storeTrump = stack.context(.mergeByPropertyStoreTrump)
        _ = try Self.person(storeTrump, email: "ada@example.com", name: "Ada L.", city: "London")
        try storeTrump.save()
        let read = stack.context()
        let stored = try read.existingObject(with: ada.objectID)
        #expect(stored.value(forKey: "city") == nil && stored.value(forKey: "name") as? String == "Ada")

        // An updated object taking a stored email: its changed email and name go over, its unchanged city does not.
        let objectTrump = stack.context(.mergeByPropertyObjectTrump)
        let bobHere = try objectTrump.existingObject(with: bob.objectID)
        bobHere.setValue("ada@example.com", forKey: "email")
        bobHere.setValue("Robert", forKey: "name")
        try objectTrump.save()
        let people = try stack.context().fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        #expect(people.map(\.objectID) == [ada.objectID])
        #expect(people.first?.value(forKey: "name") as? String == "Robert")
        #expect(people.first?.value(forKey: "city") == nil)
    }

    /// objc.io's Moody model (an Xcode model): the abstract Region's compound constraint binds its sub-entities
    /// Country and Continent together, and the compound indexes become SQLite indexes.
    @Test(arguments: storeTypes)
    func moodysInheritedCompoundConstraint(type: StoreType) throws {
        let model = try ManagedObjectModel(contentsOf: try FixtureFiles.url(
            "CoreData/Models/objcio__core-data/Moody/MoodyModel/Moody.xcdatamodeld"))
        #expect(model.entitiesByName["Region"]?.uniquenessConstraints == [["numericISO3166Code", "uniquenessDummy"]])
        let stack = try Stack(type, model: model)
        let context = stack.context()
        func insert(_ entity: String) throws -> ManagedObject {
            ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
        }
        /// A region with the date its entity needs; countries get a mood, continents a country (both required).
        func region(_ entity: String, _ code: Int16) throws -> ManagedObject {
            let object = try insert(entity)
            object.setValue(code, forKey: "numericISO3166Code")
            object.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "updatedAt")
            if entity == "Country" {
                let mood = try insert("Mood")
                mood.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "date")
                mood.setValue(object, forKey: "country")
            } else {
                let country = try region("Country", code + 1000)
                country.setValue(object, forKey: "continent")
            }
            return object
        }
        _ = try region("Country", 276)
        _ = try region("Continent", 150)
        try context.save()
        // A continent numbered as a stored country: the constraint is the abstract Region's, so it binds both.
        let europe = try region("Continent", 276)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        #expect(error.constraintConflicts.count == 1)
        #expect(error.constraintConflicts.first?.entityName == "Region")
        #expect(error.constraintConflicts.first?.conflictingObjectIDs == [europe.objectID])
        europe.setValue(Int16(1), forKey: "uniquenessDummy")
        try context.save()
        let regions = try stack.context().fetch(FetchRequest<ManagedObject>(entityName: "Region"))
        #expect(regions.count == 5)

        if type == .sqlite {
            let schema = try sqlite3(stack.folder.file("Store.sqlite"), ".schema")
            #expect(schema.contains(
                "CREATE UNIQUE INDEX Z_Region_UNIQUE_numericISO3166Code_uniquenessDummy ON ZREGION "
                    + "(ZNUMERICISO3166CODE COLLATE BINARY ASC, ZUNIQUENESSDUMMY COLLATE BINARY ASC)"))
            #expect(schema.contains(
                "CREATE INDEX Z_Mood_compoundIndex_markedForRemoteDeletion_markedForDeletionDate_date ON ZMOOD "
                    + "(ZMARKEDFORREMOTEDELETION COLLATE BINARY ASC, ZMARKEDFORDELETIONDATE COLLATE BINARY ASC, ZDATE COLLATE BINARY ASC)"))
        }
    }
}
