import Foundation
import Testing

import Quire

/// A composite attribute's own `isOptional`: a required composite whose elements are all nil fails the save with
/// Core Data's missing-mandatory-property error, naming the composite.
@Suite struct CompositeAttributeValidationTests {
    /// People with a required home address (no element has a default) and an optional work address.
    static func model() -> ManagedObjectModel {
        let home = CompositeAttributeDescription(name: "home", elements: [
            AttributeDescription(name: "street", type: .string),
            AttributeDescription(name: "city", type: .string),
            CompositeAttributeDescription(name: "geo", elements: [AttributeDescription(name: "lat", type: .double)]),
        ], isOptional: false)
        let work = CompositeAttributeDescription(name: "work", elements: [AttributeDescription(name: "office", type: .string)])
        return ManagedObjectModel(entities: [EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string), home, work,
        ])])
    }

    @Test(arguments: CompositeAttributeTests.storeTypes)
    func aRequiredCompositeWithoutAValueFailsTheSave(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let url = CompositeAttributeTests.url(folder, type)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let person = ManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: context)
        person.setValue("Ada", forKey: "name")

        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationMissingMandatoryProperty)
        #expect(error.context.key == "home" && error.context.entity == "Person")
        #expect(error.message.contains("home"))
        #expect(throws: QuireError.self) { try person.validateForInsert() }

        // A nested element is a value: the composite is there.
        person.setValue(["geo": ["lat": 45.76]], forKey: "home")
        try person.validateForInsert()
        try context.save()

        // Emptied again: the update fails, and the store keeps the saved value.
        person.setValue(nil, forKey: "home")
        let update = try #require(throws: QuireError.self) { try context.save() }
        #expect(update.code == .validationMissingMandatoryProperty && update.context.key == "home")
        if url != nil {
            let reader = try PersistentStoreCoordinator(managedObjectModel: model)
            try reader.addPersistentStore(type: type, at: url)
            let readContext = ManagedObjectContext()
            readContext.persistentStoreCoordinator = reader
            let read = try #require(try readContext.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first)
            #expect(((read.value(forKey: "home") as? [String: Any])?["geo"] as? [String: Any])?["lat"] as? Double == 45.76)
        }
        person.setValue(["city": "Lyon"], forKey: "home")
        try context.save()
        #expect(person.value(forKey: "work") == nil)
    }

    /// A required composite nested in an optional one is checked when its parent has a value.
    @Test func aRequiredNestedCompositeIsCheckedWhenItsParentHasAValue() throws {
        let folder = try TemporaryFolder()
        let address = CompositeAttributeDescription(name: "address", elements: [
            AttributeDescription(name: "street", type: .string),
            CompositeAttributeDescription(name: "geo", elements: [AttributeDescription(name: "lat", type: .double)], isOptional: false),
        ])
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Place", properties: [address])])
        let (_, context) = try Fixtures.stack(model, at: folder.file("Places.sqlite"))
        let place = ManagedObject(entity: try #require(model.entitiesByName["Place"]), insertInto: context)
        try context.save()
        place.setValue(["street": "1 rue Mercière"], forKey: "address")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationMissingMandatoryProperty && error.context.key == "address.geo")
        place.setValue(["street": "1 rue Mercière", "geo": ["lat": 45.76]], forKey: "address")
        try context.save()
    }
}
