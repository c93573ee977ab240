import Foundation
import Testing

import Quire

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
        let metadata = Self.storeMetadata(uuid: "X", model: versions[0])
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
        let metadata = Self.storeMetadata(uuid: "X", model: versions[1])
        #expect(ManagedObjectModel.mergedModel(from: versions, forStoreMetadata: metadata) === versions[1])
        #expect(ManagedObjectModel.mergedModel(from: [versions[0], versions[2]], forStoreMetadata: metadata) == nil)
    }

    @Test func modelsSplitInTwoMergeBackAndMatchTheWholeModelsMetadata() throws {
        let whole = Fixtures.companyModel()
        let metadata = Self.storeMetadata(uuid: "X", model: whole)
        // The model's canonical JSON form, edited as any tool could.
        let document = try #require(try JSONSerialization.jsonObject(with: whole.serializedRepresentation()) as? [String: Any])
        let entities = try #require(document["entities"] as? [[String: Any]])
        func part(_ names: Set<String>) throws -> ManagedObjectModel {
            var piece = document
            // Relationships cross the parts, so each part alone is not a valid model; merged, it is.
            piece["entities"] = entities.filter { names.contains($0["name"] as? String ?? "") }.map { entity in
                var entity = entity
                if let parent = entity["parent"] as? String, !names.contains(parent) { entity["parent"] = nil }
                return entity
            }
            piece["configurations"] = [String: [String]]()
            return try ManagedObjectModel(serializedRepresentation: JSONSerialization.data(withJSONObject: piece))
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

    /// The metadata a store of `model` records (Core Data's keys): what compatibility and version lookups read.
    static func storeMetadata(uuid: String, model: ManagedObjectModel) -> [String: PropertyListValue] {
        [
            StoreMetadataKey.storeType: .string(StoreType.sqlite.rawValue),
            StoreMetadataKey.storeUUID: .string(uuid),
            StoreMetadataKey.modelVersionHashes: .dictionary(model.entityVersionHashesByName.mapValues { .data($0) }),
            StoreMetadataKey.modelVersionHashesVersion: .integer(3),
            StoreMetadataKey.modelVersionIdentifiers: .array(model.versionIdentifiers.sorted().map { .string($0) }),
            StoreMetadataKey.persistenceFrameworkVersion: .integer(1),
        ]
    }
}
