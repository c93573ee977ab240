import Foundation
import Testing

import Quire

/// Merge policies on the atomic stores, whose optimistic locking compares a version kept per object.
@Suite struct AtomicStoreMergePolicyTests {
    static let cases: [(StoreType, MergePolicyType)] = [StoreType.xml, .binary, .inMemory].flatMap { type in
        MergePolicyType.allCases.map { (type, $0) }
    }

    @Test(arguments: cases)
    func twoContextsEditTheSamePerson(type: StoreType, policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let folder = try TemporaryFolder()
        let url = type == .inMemory ? nil : folder.file("People.\(type.rawValue.lowercased())")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: MergePolicyTests.peopleModel())
        try coordinator.addPersistentStore(type: type, at: url)
        let entities = coordinator.managedObjectModel.entitiesByName
        let seed = ManagedObjectContext()
        seed.persistentStoreCoordinator = coordinator
        let ada = ManagedObject(entity: try #require(entities["Person"]), insertInto: seed)
        ada.setValue("Ada", forKey: "name")
        ada.setValue(Int64(100), forKey: "salary")
        ada.setValue("Engineer", forKey: "title")
        try seed.save()

        let a = ManagedObjectContext()
        let b = ManagedObjectContext()
        a.persistentStoreCoordinator = coordinator
        b.persistentStoreCoordinator = coordinator
        let adaInA = try a.existingObject(with: ada.objectID)
        let adaInB = try b.existingObject(with: ada.objectID)
        adaInA.setValue(Int64(200), forKey: "salary")
        try a.save()
        b.mergePolicy = policy
        adaInB.setValue(Int64(300), forKey: "salary")
        adaInB.setValue("Lead", forKey: "title")
        if policy == .error {
            let error = try #require(throws: QuireError.self) { try b.save() }
            #expect(error.code == .managedObjectMerge)
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.objectID == ada.objectID)
            #expect(conflict.persistedValues?["salary"] == .integer(200))
            #expect(conflict.objectValues["salary"] == .integer(300))
            #expect(adaInB.isUpdated)
            return
        }
        try b.save()
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let stored = try reader.existingObject(with: ada.objectID)
        let salary = stored.value(forKey: "salary") as? Int64
        let title = stored.value(forKey: "title") as? String
        switch policy {
        case .mergeByPropertyStoreTrump: #expect(salary == 200 && title == "Lead")
        case .mergeByPropertyObjectTrump, .overwrite: #expect(salary == 300 && title == "Lead")
        case .rollback: #expect(salary == 200 && title == "Engineer")
        default: break
        }
        #expect(!b.hasChanges)
        adaInB.setValue(Int64(400), forKey: "salary")
        try b.save()
        reader.refresh(stored, mergeChanges: false)
        #expect(stored.value(forKey: "salary") as? Int64 == 400)
    }
}
