import Foundation
import Testing

import Quire

/// `print(model)` shows what Core Data's description shows (issue 14): each entity with its class, superentity
/// and properties, each attribute with its type, each relationship with its destination, inverse, cardinality
/// and delete rule.
@Suite struct ModelDescriptionTests {
    func smallModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        person.managedObjectClassName = "Person"
        let name = AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "Anonymous")
        name.userInfo = ["b": "2", "a": "1"]
        person.properties = [
            name,
            RelationshipDescription(name: "runs", destination: "Run", toMany: true, inverse: "person", deleteRule: .cascade),
        ]
        let run = EntityDescription(name: "Run")
        let scratch = AttributeDescription(name: "scratch", type: .transformable)
        scratch.isTransient = true
        run.properties = [
            AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
            RelationshipDescription(name: "person", destination: "Person", inverse: "runs"),
            scratch,
        ]
        let daily = EntityDescription(name: "DailyRun")
        run.subentities = [daily]
        return ManagedObjectModel(entities: [run, person, daily])
    }

    @Test func theModelPrintsEveryEntityWithItsPropertiesAsCoreDataDoes() throws {
        let model = smallModel()
        let expected = """
            (<ManagedObjectModel>) isEditable 1, entities {
                DailyRun = (<EntityDescription>) name DailyRun, managedObjectClassName ManagedObject, renamingIdentifier DailyRun, isAbstract 0, superentity name Run, properties {}, subentities (), userInfo {}, versionHashModifier (null);
                Person = (<EntityDescription>) name Person, managedObjectClassName Person, renamingIdentifier Person, isAbstract 0, superentity name (null), properties {
                    name = (<AttributeDescription>), name name, isOptional 0, isTransient 0, entity Person, renamingIdentifier name, versionHashModifier (null), userInfo {a = 1; b = 2;}, attributeType string, attributeValueClassName String, defaultValue "Anonymous";
                    runs = (<RelationshipDescription>), name runs, isOptional 1, isTransient 0, entity Person, renamingIdentifier runs, versionHashModifier (null), userInfo {}, destination entity Run, inverseRelationship person, minCount 0, maxCount 0, isOrdered 0, isToMany 1, deleteRule cascade;
                }, subentities (), userInfo {}, versionHashModifier (null);
                Run = (<EntityDescription>) name Run, managedObjectClassName ManagedObject, renamingIdentifier Run, isAbstract 0, superentity name (null), properties {
                    person = (<RelationshipDescription>), name person, isOptional 1, isTransient 0, entity Run, renamingIdentifier person, versionHashModifier (null), userInfo {}, destination entity Person, inverseRelationship runs, minCount 0, maxCount 1, isOrdered 0, isToMany 0, deleteRule nullify;
                    processID = (<AttributeDescription>), name processID, isOptional 0, isTransient 0, entity Run, renamingIdentifier processID, versionHashModifier (null), userInfo {}, attributeType integer64, attributeValueClassName Int64, defaultValue -1;
                    scratch = (<AttributeDescription>), name scratch, isOptional 1, isTransient 1, entity Run, renamingIdentifier scratch, versionHashModifier (null), userInfo {}, attributeType transformable, attributeValueClassName (null), defaultValue (null);
                }, subentities (DailyRun), userInfo {}, versionHashModifier (null);
            }, fetch request templates {}
            """
        #expect(model.description == expected)
        #expect("\(model)" == expected)
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.description.hasPrefix("(<EntityDescription>) name Person, managedObjectClassName Person,"))
        #expect(person.description.contains("\n    runs = (<RelationshipDescription>), name runs,"))
    }
}
