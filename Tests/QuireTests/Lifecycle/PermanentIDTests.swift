import Foundation
import Testing

import Quire

/// `obtainPermanentIDs(for:)` on every store type that can reserve keys (issue 16).
@Suite struct PermanentIDTests {
    private func stack(_ type: StoreType, _ folder: TemporaryFolder) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Company.store"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test(arguments: [StoreType.sqlite, .xml, .binary, .inMemory])
    func permanentIDsBeforeTheSaveAreTheIDsTheSaveKeeps(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try stack(type, folder)
        try context.performAndWait {
            let department = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            department.setValue("Sales", forKey: "name")
            let employee = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
            employee.setValue("Ann", forKey: "name")
            employee.setValue(department, forKey: "department")
            #expect(department.objectID.isTemporaryID)

            try context.obtainPermanentIDs(for: [department])
            let id = department.objectID
            #expect(!id.isTemporaryID)
            #expect(id.persistentStore === coordinator.persistentStores.first)
            #expect(employee.objectID.isTemporaryID)
            #expect(department.isInserted)
            #expect((employee.value(forKey: "department") as? ManagedObject) === department)
            #expect(try context.existingObject(with: id) === department)
            #expect((department.value(forKey: "employees") as? Set<ManagedObject>) == [employee])

            try context.save()
            #expect(department.objectID == id)
            #expect(!employee.objectID.isTemporaryID && employee.objectID != id)

            // Another context reads the record under the obtained ID, with its relationship.
            let reader = ManagedObjectContext()
            reader.persistentStoreCoordinator = coordinator
            try reader.performAndWait {
                let read = try reader.existingObject(with: id)
                #expect(read.value(forKey: "name") as? String == "Sales")
                #expect((read.value(forKey: "employees") as? Set<ManagedObject>)?.first?.value(forKey: "name") as? String == "Ann")
            }

            // Keys reserved and rolled back are not handed out again.
            let discarded = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            try context.obtainPermanentIDs(for: [discarded])
            let reserved = try #require(discarded.objectID.primaryKey)
            context.rollback()
            let next = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            try context.save()
            #expect(try #require(next.objectID.primaryKey) > reserved)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 2)
        }
    }

    @Test func anotherCoordinatorNeverGetsAReservedKey() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try stack(.sqlite, folder)
        let (_, other) = try stack(.sqlite, folder)
        try context.performAndWait {
            let mine = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            mine.setValue("mine", forKey: "name")
            try context.obtainPermanentIDs(for: [mine])
            try other.performAndWait {
                let theirs = EntityDescription.insertNewObject(forEntityName: "Department", into: other)
                theirs.setValue("theirs", forKey: "name")
                try other.save()
                #expect(theirs.objectID.primaryKey != mine.objectID.primaryKey)
            }
            try context.save()
            let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).compactMap { $0.value(forKey: "name") as? String }
            #expect(names.sorted() == ["mine", "theirs"])
        }
    }

    @Test func aReadOnlyStoreRefusesAndNoIDChanges() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Company.sqlite")
        _ = try Fixtures.stack(Fixtures.companyModel(), at: url)
        var options = StoreOptions()
        options.isReadOnly = true
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url, options: options)
        context.performAndWait {
            let department = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            let before = department.objectID
            #expect(throws: QuireError.self) { try context.obtainPermanentIDs(for: [department]) }
            #expect(department.objectID == before && before.isTemporaryID)
        }
    }
}
