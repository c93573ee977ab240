import Foundation
import Testing

import Quire

extension UniquenessConstraintTests {
    /// Under object trump an inserted duplicate's to-one relationship moves to the stored record.
    @Test(arguments: storeTypes)
    func objectTrumpHandsTheDuplicatesOwnerToTheStoredRecord(type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        let ada = try Self.person(seed, email: "ada@example.com", name: "Ada")
        let bob = try Self.person(seed, email: "bob@example.com", name: "Bob")
        let car = try Self.car(seed, "Ford", "1", owner: ada)
        try seed.save()

        let context = stack.context(.mergeByPropertyObjectTrump)
        let bobHere = try context.existingObject(with: bob.objectID)
        try Self.car(context, "Ford", "1", owner: bobHere)
        try context.save()
        let reader = stack.context()
        let cars = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
        #expect(cars.map(\.objectID) == [car.objectID])
        #expect((cars.first?.value(forKey: "owner") as? ManagedObject)?.objectID == bob.objectID)
    }

    /// Under rollback an updated object that collides has its changes reverted, relationships untouched.
    @Test(arguments: storeTypes)
    func rollbackRevertsAnUpdatedDuplicateAndKeepsItsRelationships(type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        try Self.person(seed, email: "ada@example.com", name: "Ada")
        let bob = try Self.person(seed, email: "bob@example.com", name: "Bob")
        let car = try Self.car(seed, "Fiat", "7", owner: bob)
        try seed.save()

        let context = stack.context(.rollback)
        let bobHere = try context.existingObject(with: bob.objectID)
        bobHere.setValue("ada@example.com", forKey: "email")
        try context.save()
        #expect(bobHere.value(forKey: "email") as? String == "bob@example.com")
        let reader = stack.context()
        #expect(try stack.stored("Person", "email") == ["ada@example.com", "bob@example.com"])
        let carThere = try reader.existingObject(with: car.objectID)
        #expect((carThere.value(forKey: "owner") as? ManagedObject)?.objectID == bob.objectID)
    }
}
