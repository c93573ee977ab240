import Foundation
import Testing

@testable import Quire
import QuireCore
import QuireStores

/// Version hashes, differences between versions, compatibility with store metadata, merged models.
@Suite struct ModelVersionTests {
    @Test func differencesNameEntitiesAndProperties() throws {
        let versions = try FixtureFiles.journalVersions()
        let oneToTwo = ModelDifference(from: versions[0], to: versions[1])
        #expect(oneToTwo.addedEntities == ["Place"] && oneToTwo.removedEntities.isEmpty)
        let entry = try #require(oneToTwo.changedEntities.first { $0.entityName == "Entry" })
        #expect(entry.addedProperties == ["text", "wordCount"])
        #expect(entry.removedProperties == ["body"])
        #expect(entry.changedProperties == ["mood"])
        #expect(!entry.entityItselfChanged)
        #expect(oneToTwo.description.hasPrefix("entity Place added; Entry: text, wordCount added, body removed, mood changed"))

        let twoToThree = ModelDifference(from: versions[1], to: versions[2])
        #expect(twoToThree.addedEntities == ["Journal"] && twoToThree.removedEntities == ["Notebook"])
        #expect(ModelDifference(from: versions[2], to: versions[2]).isEmpty)
        #expect(ModelDifference(from: versions[2], to: versions[2]).description == "no differences")

        let hashesOnly = ModelDifference(storeVersionHashes: versions[0].entityVersionHashesByName, model: versions[1])
        #expect(hashesOnly.description == "entity Place added; entity Entry changed; entity Notebook changed; entity Tag changed")
    }

    @Test func versionHashesIgnoreWhatPersistenceDoesNotSee() throws {
        let model = try FixtureFiles.journalVersions()[0]
        let copy = try ManagedObjectModel(serializedRepresentation: model.serializedRepresentation())
        let entry = try #require(copy.entitiesByName["Entry"])
        entry.userInfo = ["note": "ignored"]
        entry.attributesByName["title"]?.defaultValue = "Untitled"
        entry.properties.append(AttributeDescription(name: "draft", type: .string))
        entry.properties.last?.isTransient = true
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
        entry.attributesByName["body"]?.versionHashModifier = "markdown"
        #expect(copy.entitiesByName["Entry"]?.versionHash != model.entitiesByName["Entry"]?.versionHash)
        #expect(ModelDifference(from: model, to: copy).changedEntities.first?.changedProperties == ["body"])
    }

    @Test func configurationsAreCompatibleWithTheMetadataOfTheirVersion() throws {
        let versions = try FixtureFiles.journalVersions()
        let metadata = StoreMetadataKey.standard(type: .sqlite, uuid: "X", model: versions[0])
        #expect(versions[0].isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        #expect(versions[0].isConfiguration("Default", compatibleWithStoreMetadata: metadata))
        #expect(!versions[1].isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        #expect(!versions[0].isConfiguration(nil, compatibleWithStoreMetadata: [:]))

        // A configuration whose entities kept their hashes is compatible even though others changed.
        let later = try ManagedObjectModel(serializedRepresentation: versions[0].serializedRepresentation())
        later.setEntities([try #require(later.entitiesByName["Tag"])], forConfigurationName: "Tags")
        later.entitiesByName["Notebook"]?.versionHashModifier = "2"
        #expect(later.isConfiguration("Tags", compatibleWithStoreMetadata: metadata))
        #expect(!later.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func theModelOfAStoreIsFoundAmongVersions() throws {
        let versions = try FixtureFiles.journalVersions()
        let metadata = StoreMetadataKey.standard(type: .sqlite, uuid: "X", model: versions[1])
        #expect(ManagedObjectModel.mergedModel(from: versions, forStoreMetadata: metadata) === versions[1])
        #expect(ManagedObjectModel.mergedModel(from: [versions[0], versions[2]], forStoreMetadata: metadata) == nil)
    }

    @Test func modelsSplitInTwoMergeBackAndMatchTheWholeModelsMetadata() throws {
        let whole = Fixtures.companyModel()
        let metadata = StoreMetadataKey.standard(type: .sqlite, uuid: "X", model: whole)
        let document = ModelDocument(model: whole)
        func part(_ names: Set<String>) throws -> ManagedObjectModel {
            var piece = document
            piece.entities = document.entities.filter { names.contains($0.name) }
            piece.configurations = [:]
            let model = ManagedObjectModel()
            // Relationships cross the parts, so each part alone is not a valid model; merged, it is.
            piece.entities = piece.entities.map { entity in
                var entity = entity
                if let parent = entity.parent, !names.contains(parent) { entity.parent = nil }
                return entity
            }
            try piece.apply(to: model)
            return model
        }
        let people = try part(["Department", "Employee", "Manager", "Badge"])
        let work = try part(["Project", "Task"])
        let merged = try ManagedObjectModel.mergedModel(from: [people, work])
        #expect(merged.entities.map(\.name).sorted() == whole.entities.map(\.name).sorted())
        #expect(merged.entityVersionHashesByName == whole.entityVersionHashesByName)
        #expect(ManagedObjectModel.mergedModel(from: [work, people], forStoreMetadata: metadata)?.entities.count == 6)
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel.mergedModel(from: [people, people]) }
        #expect(error.code == .invalidModel && error.message.contains("'Badge'"))
    }
}
