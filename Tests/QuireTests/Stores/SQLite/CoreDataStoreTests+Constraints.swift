import Foundation
import Testing

import Quire

/// Uniqueness constraints on a store Core Data wrote (CoreDataPlus `SampleModel_V1`, whose `Person` is unique by
/// first and last name together, with Core Data's `Z_Person_UNIQUE_firstName_lastName` index).
extension CoreDataStoreTests {
    static let sampleModel = Case(
        store: "CoreDataPlus/SampleModel_V1.sqlite", model: "CoreDataPlus/SampleModel.xcdatamodeld", version: "SampleModel",
        insert: "Person", change: ("Person", "firstName"))

    /// A person named as the store's Alex Rathbun (Z_PK 7), in a new context of a stack on a copy of the store.
    func insertDuplicateOfAlex(_ url: URL, policy: MergePolicy) throws -> (ManagedObjectContext, ManagedObject) {
        let (_, context) = try Fixtures.stack(try model(Self.sampleModel), at: url)
        context.mergePolicy = policy
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue("Alex", forKey: "firstName")
        person.setValue("Rathbun", forKey: "lastName")
        person.setValue(UUID(), forKey: "id")
        person.setValue(Date(timeIntervalSinceReferenceDate: 800_000_000), forKey: "updatedAt")
        return (context, person)
    }

    @Test func aCoreDataStoresConstraintRefusesADuplicateAndObjectTrumpMergesIt() throws {
        let url = try copy(Self.sampleModel.store)
        let (context, duplicate) = try insertDuplicateOfAlex(url, policy: .error)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflict = try #require(error.constraintConflicts.first)
        #expect(conflict.constraint == ["firstName", "lastName"])
        #expect(conflict.databaseObjectID?.uriRepresentation().lastPathComponent == "p7")
        #expect(conflict.conflictingObjectIDs == [duplicate.objectID])
        #expect(try sqlite3(url, "SELECT COUNT(*) FROM ZPERSON") == "20")

        // Under object trump the stored Alex takes the duplicate's values and keeps his key.
        let (merging, newcomer) = try insertDuplicateOfAlex(url, policy: .mergeByPropertyObjectTrump)
        let id = try #require(newcomer.value(forKey: "id") as? UUID)
        try merging.save()
        #expect(try sqlite3(url, "SELECT COUNT(*) FROM ZPERSON") == "20")
        #expect(try sqlite3(url, "SELECT Z_PK, hex(ZID), Z_OPT FROM ZPERSON WHERE ZFIRSTNAME = 'Alex'")
            == "7|\(id.uuidString.replacingOccurrences(of: "-", with: ""))|2")
        #expect(try sqlite3(url, "PRAGMA integrity_check") == "ok")
    }
}
