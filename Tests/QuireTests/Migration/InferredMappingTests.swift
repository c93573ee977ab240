import Foundation
import Testing

import Quire

/// What inference maps and what it refuses, on small models.
@Suite struct InferredMappingTests {
    /// A Person entity with the given properties (and a Pet entity to point at).
    private func model(_ person: [PropertyDescription], personName: String = "Person", renaming: String? = nil) -> ManagedObjectModel {
        let entity = EntityDescription(name: personName, properties: person)
        entity.renamingIdentifier = renaming
        let pet = EntityDescription(name: "Pet", properties: [AttributeDescription(name: "name", type: .string)])
        return ManagedObjectModel(entities: [entity, pet])
    }

    private func attribute(_ name: String, _ type: AttributeType, optional: Bool = true, default value: Any? = nil, renaming: String? = nil)
        -> AttributeDescription
    {
        let attribute = AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value)
        attribute.renamingIdentifier = renaming
        return attribute
    }

    private func refusal(_ source: ManagedObjectModel, _ destination: ManagedObjectModel) throws -> QuireError {
        let error = try #require(throws: QuireError.self) {
            try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        }
        #expect(error.code == .inferredMappingModel)
        return error
    }

    @Test func identicalModelsCopyEveryEntity() throws {
        let v1 = model([attribute("name", .string)])
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v1)
        #expect(mapping.entityMappings.map(\.mappingType) == [.copy, .copy])
        #expect(mapping.entityMappings.map(\.name) == ["PersonToPerson", "PetToPet"])
        #expect(mapping.isMapping(from: v1, to: v1))
    }

    @Test func renamesFollowRenamingIdentifiers() throws {
        let v1 = model([attribute("name", .string), attribute("age", .integer16)])
        let v2 = model(
            [attribute("fullName", .string, renaming: "name"), attribute("years", .integer64, renaming: "age")],
            personName: "Human", renaming: "Person")
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let human = try #require(mapping.entityMappingsByName["PersonToHuman"])
        #expect(human.mappingType == .transform && human.sourceEntityName == "Person")
        let sources = human.attributeMappings.map { mapping -> String in
            guard case .sourceValue(let key)? = mapping.valueExpression else { return "?" }
            return "\(mapping.name)<-\(key)"
        }
        #expect(sources == ["fullName<-name", "years<-age"])
        #expect(mapping.isMapping(from: v1, to: v2) && !mapping.isMapping(from: v2, to: v1))

        // The same renaming identifier on both versions also links them.
        let a = model([attribute("nickname", .string, renaming: "alias")])
        let b = model([attribute("handle", .string, renaming: "alias")])
        let linked = try MappingModel.inferredMappingModel(forSourceModel: a, destinationModel: b)
        #expect(linked.entityMappingsByName["PersonToPerson"]?.attributeMappings.first?.name == "handle")
    }

    @Test func addedAndRemovedEntitiesAndAttributes() throws {
        let v1 = model([attribute("name", .string), attribute("legacy", .string)])
        let extra = EntityDescription(name: "Car", properties: [AttributeDescription(name: "plate", type: .string)])
        let v2 = ManagedObjectModel(entities: [
            EntityDescription(name: "Person", properties: [attribute("name", .string), attribute("score", .double, optional: false, default: 1.5)]),
            extra,
        ])
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        #expect(mapping.entityMappings.map { "\($0.name):\($0.mappingType)" } == ["AddCar:add", "PersonToPerson:transform", "RemovePet:remove"])
        #expect(mapping.entityMappingsByName["PersonToPerson"]?.attributeMappings.map(\.name) == ["name"])
    }

    @Test func lightweightTypeAndOptionalityChangesAreMapped() throws {
        let v1 = model([attribute("count", .integer32), attribute("ratio", .float), attribute("blob", .binaryData), attribute("note", .string, optional: false)])
        let v2 = model([
            attribute("count", .integer16), attribute("ratio", .double), attribute("blob", .transformable),
            attribute("note", .string),
        ])
        #expect(throws: Never.self) { try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2) }
        let required = model([attribute("count", .decimal, optional: false, default: 0)])
        #expect(throws: Never.self) { try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: required) }
    }

    @Test func changesInferenceCannotMapAreRefusedNamingEntityAndProperty() throws {
        let v1 = model([attribute("name", .string), RelationshipDescription(name: "pets", destination: "Pet", toMany: true)])

        var error = try refusal(v1, model([attribute("name", .string, optional: false)]))
        #expect(error.context.entity == "Person" && error.context.key == "name")
        #expect(error.message.contains("'Person.name' becomes required without a default value"))

        error = try refusal(v1, model([attribute("name", .string), attribute("email", .string, optional: false)]))
        #expect(error.context.key == "email" && error.message.contains("new attribute 'Person.email' is required"))

        error = try refusal(v1, model([attribute("name", .uuid)]))
        #expect(error.message.contains("'Person.name' changes type from string to uuid"))

        error = try refusal(v1, model([attribute("name", .string), RelationshipDescription(name: "pets", destination: "Pet")]))
        #expect(error.context.key == "pets" && error.message.contains("changes from to-many to to-one"))

        error = try refusal(v1, model([attribute("name", .string), attribute("pets", .string)]))
        #expect(error.context.key == "pets" && error.message.contains("was the relationship 'Person.pets'"))

        error = try refusal(v1, model([attribute("name", .string), RelationshipDescription(name: "pets", destination: "Person", toMany: true)]))
        #expect(error.message.contains("points at 'Person' where it pointed at 'Pet'"))

        let abstract = model([attribute("name", .string)])
        abstract.entitiesByName["Person"]?.isAbstract = true
        error = try refusal(v1, abstract)
        #expect(error.context.entity == "Person" && error.message.contains("is abstract"))

        let twice = model([attribute("first", .string, renaming: "name"), attribute("second", .string, renaming: "name")])
        error = try refusal(v1, twice)
        #expect(error.message.contains("both claim the old attribute 'name'"))
    }
}
