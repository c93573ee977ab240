import QuireCore
import Foundation
import Testing

/// Xcode 3 `elements` files: keyed archives of Xcode's `XDPMModel`.
@Suite("Xcode 3 elements files")
struct XcodeElementsTests {
    @Test("Recipes elements match the Recipes store")
    func recipes() throws {
        let model = try CompiledModelDecoder.decodeArchive(try CompiledModelFixtures.data("Elements/Recipes.elements"))
        let schema = try CompiledModelFixtures.schema("Recipes")
        #expect(model.source == .xcodeElements)
        #expect(model.entities.map(\.name) == schema.modelEntities.map(\.name).sorted())
        #expect(Set(schema.versionHashes.keys) == Set(model.entities.map(\.name)))
        for entity in model.entities {
            let columns = try #require(schema.tables["Z" + entity.name.uppercased()])
            for attribute in entity.attributes where !attribute.isTransient {
                #expect(columns.contains("Z" + attribute.name.uppercased()), "\(entity.name).\(attribute.name)")
            }
            for relationship in entity.relationships where !relationship.isToMany {
                #expect(columns.contains("Z" + relationship.name.uppercased()), "\(entity.name).\(relationship.name)")
            }
        }
        let ingredient = try #require(model.entity(named: "Ingredient"))
        #expect(ingredient.managedObjectClassName == "Ingredient")
        #expect(ingredient.attribute(named: "displayOrder")?.kind == .integer16)
        #expect(ingredient.attribute(named: "displayOrder")?.defaultValue == .integer(0))
        #expect(ingredient.attribute(named: "name")?.defaultValue == .string("Ingredient Name"))
        #expect(ingredient.attribute(named: "name")?.isOptional == false)
        let recipe = try #require(model.entity(named: "Recipe"))
        let ingredients = try #require(recipe.relationship(named: "ingredients"))
        #expect(ingredients.isToMany && ingredients.destinationEntityName == "Ingredient" && ingredients.inverseName == "recipe")
        #expect(ingredients.inverseEntityName == "Ingredient" && ingredients.deleteRuleKind == .cascade)
        #expect(recipe.attribute(named: "thumbnailImage")?.valueTransformerName == "ImageToDataTransformer")
        #expect(model.entity(named: "RecipeType")?.managedObjectClassName == nil)
        #expect(model.warnings.isEmpty, "\(model.warnings)")
    }

    @Test("Notebook elements")
    func notebook() throws {
        let model = try CompiledModelDecoder.decodeArchive(try CompiledModelFixtures.data("Elements/Notebook.elements"))
        #expect(model.entities.map(\.name) == ["Note", "Tag"])
        let note = try #require(model.entity(named: "Note"))
        #expect(note.managedObjectClassName == "TINBNote")
        #expect(note.attributes.map(\.name) == ["content", "ticdsSyncID", "title"])
        let tags = try #require(note.relationship(named: "tags"))
        #expect(tags.isToMany && tags.destinationEntityName == "Tag" && tags.inverseName == "notes")
        #expect(note.userInfo["com.apple.syncservices.Syncable"] == .string("NO"))
        #expect(model.warnings.isEmpty, "\(model.warnings)")
    }
}
