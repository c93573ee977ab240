import Foundation
import Testing

import Quire
import QuireCore
import QuireTestSupport

/// "Index in Spotlight" and "Store in External Record File" as model files carry them (Xcode's
/// `spotlightIndexingEnabled` and `storedInTruthFile`; a compiled model's `_P` bits 0x100 and 0x200), on
/// attributes and relationships, through to the records a save writes.
@Suite struct ExternalRecordModelFlagTests {
    @Test("An Xcode model's flags, on attributes and relationships")
    func xcodeModel() throws {
        let model = try ManagedObjectModel(contentsOf: try FixtureFiles.url("XcodeModels/Recipes.xcdatamodel"))
        let recipe = try #require(model.entitiesByName["Recipe"])
        let name = try #require(recipe.attributesByName["name"])
        let ingredients = try #require(recipe.relationshipsByName["ingredients"])
        #expect(name.isIndexedBySpotlight && name.isStoredInExternalRecord)
        #expect(recipe.attributesByName["instructions"]?.isIndexedBySpotlight == true)
        #expect(recipe.attributesByName["instructions"]?.isStoredInExternalRecord == false)
        #expect(ingredients.isIndexedBySpotlight && ingredients.isStoredInExternalRecord)
        // The flags survive the canonical form every store embeds.
        let again = try ManagedObjectModel(serializedRepresentation: try model.serializedRepresentation())
        #expect(again.entitiesByName["Recipe"]?.relationshipsByName["ingredients"]?.isStoredInExternalRecord == true)
        #expect(again.entitiesByName["Recipe"]?.attributesByName["name"]?.isStoredInExternalRecord == true)

        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records, model: model)
        let (saved, egg) = try context.performAndWait {
            let entities = coordinator.managedObjectModel.entitiesByName
            let recipe = ManagedObject(entity: try #require(entities["Recipe"]), insertInto: context)
            recipe.setValue("Omelette", forKey: "name")
            recipe.setValue("Whisk, then fry.", forKey: "instructions")
            recipe.setValue(Int16(1), forKey: "servings")
            let egg = ManagedObject(entity: try #require(entities["Ingredient"]), insertInto: context)
            egg.setValue("Egg", forKey: "name")
            egg.setValue(recipe, forKey: "recipe")
            try context.save()
            return (recipe, egg)
        }
        let values = try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: saved, in: records))
        #expect(values == ["name": "Omelette", "servings": 1, "ingredients": [.string(egg.objectID.uriRepresentation().absoluteString)]])
        // Ingredient has nothing indexed: no records.
        let store = try #require(coordinator.persistentStores.first)
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(store.identifier).appendingPathComponent("Ingredient").path))
    }

    @Test("A compiled model's flags, on attributes and relationships")
    func compiledModel() throws {
        let flags: Int64 = 0xF3 | 0x100 | 0x200   // present, optional, the "no …" bits; Spotlight; external record
        let archive = PropertyFlagTests().archive(
            attribute: ["NSAttributeType": .integer(700), "_P": .integer(flags), "NSIsOptional": .boolean(true)],
            relationship: ["NSMaxCount": .integer(0), "NSDeleteRule": .integer(1), "_P": .integer(flags), "NSIsOptional": .boolean(true)])
        let folder = try TemporaryFolder()
        let mom = folder.file("Flags.mom")
        try archive.write(to: mom)
        let model = try ManagedObjectModel(compiledModelAt: mom)
        let entity = try #require(model.entitiesByName["E"])
        #expect(entity.attributesByName["title"]?.isIndexedBySpotlight == true)
        #expect(entity.attributesByName["title"]?.isStoredInExternalRecord == true)
        #expect(entity.relationshipsByName["others"]?.isIndexedBySpotlight == true)
        #expect(entity.relationshipsByName["others"]?.isStoredInExternalRecord == true)

        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.binary, in: folder, directory: records, model: model)
        let (first, second) = try context.performAndWait {
            let e = try #require(coordinator.managedObjectModel.entitiesByName["E"])
            let first = ManagedObject(entity: e, insertInto: context)
            first.setValue("first", forKey: "title")
            let second = ManagedObject(entity: e, insertInto: context)
            second.setValue("second", forKey: "title")
            first.setValue(Set([second]), forKey: "others")
            try context.save()
            return (first, second)
        }
        #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: first, in: records))
            == ["title": "first", "others": [.string(second.objectID.uriRepresentation().absoluteString)]])
        #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: second, in: records)) == ["title": "second", "others": []])
    }
}
