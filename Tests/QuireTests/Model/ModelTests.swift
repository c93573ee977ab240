import Foundation
import Testing

import Quire

@Suite struct ModelTests {
    @Test func canonicalFormRoundTripsAndIsStable() throws {
        let model = Fixtures.companyModel()
        model.entitiesByName["Employee"]?.userInfo = ["note": "x"]
        (model.entitiesByName["Employee"]?.propertiesByName["salary"] as? AttributeDescription)?.isIndexed = true
        model.setEntities([model.entitiesByName["Badge"]!], forConfigurationName: "Badges")
        let data = try model.serializedRepresentation()
        let folder = try TemporaryFolder()
        try data.write(to: folder.file("model.json"))
        let read = try ManagedObjectModel(contentsOf: folder.file("model.json"))
        #expect(try read.serializedRepresentation() == data)
        #expect(read.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(read.entitiesByName["Manager"]?.superentity?.name == "Employee")
        #expect((read.entitiesByName["Employee"]?.propertiesByName["salary"] as? AttributeDescription)?.defaultValue as? Int64 == 0)
        #expect(read.entities(forConfigurationName: "Badges").map(\.name) == ["Badge"])
    }

    @Test func versionHashesChangeOnlyWithPersistence() throws {
        let base = Fixtures.runModel().entities[0].versionHash
        #expect(base.count == 32)
        #expect(Fixtures.runModel().entities[0].versionHash == base)
        let renamedUserInfo = Fixtures.runModel()
        renamedUserInfo.entities[0].userInfo = ["anything": "else"]
        #expect(renamedUserInfo.entities[0].versionHash == base)
        let optional = Fixtures.runModel()
        optional.entities[0].properties[0].isOptional = true
        #expect(optional.entities[0].versionHash != base)
        let modified = Fixtures.runModel()
        modified.entities[0].versionHashModifier = "2"
        #expect(modified.entities[0].versionHash != base)
        let retyped = Fixtures.runModel()
        (retyped.entities[0].properties[1] as? AttributeDescription)?.attributeType = .integer32
        #expect(retyped.entities[0].versionHash != base)
    }

    @Test func malformedModelDataIsRefusedWithWhere() throws {
        let error = try #require(throws: QuireError.self) {
            try ManagedObjectModel(serializedRepresentation: Data(#"{"format": 1, "entities": [{"name": 3}]}"#.utf8))
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("entities"))
        #expect(throws: QuireError.self) { try ManagedObjectModel(serializedRepresentation: Data("garbage".utf8)) }
        let entity = #"{"name": "%@", "abstract": false, "parent": "%@", "attributes": [], "relationships": [], "userInfo": {}}"#
        let loop = #"{"format": 1, "configurations": {}, "versionIdentifiers": [], "localization": {}, "entities": ["#
            + String(format: entity, "A", "B") + ", " + String(format: entity, "B", "A") + "]}"
        let loopError = try #require(throws: QuireError.self) { try ManagedObjectModel(serializedRepresentation: Data(loop.utf8)) }
        #expect(loopError.message.contains("its own ancestor"))
    }

    @Test func lifecycleHooksRunInOrder() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.runModel()
        model.entities[0].managedObjectClass = HookedRun.self
        let (_, context) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        let run = HookedRun(context: context)
        #expect(run.events == ["awakeFromInsert"])
        #expect(run.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: 1))
        try context.save()
        #expect(run.events == ["awakeFromInsert", "willSave", "didSave"])
        context.refresh(run, mergeChanges: false)
        #expect(run.events.suffix(2) == ["willTurnIntoFault", "didTurnIntoFault"])
        _ = run.value(forKey: "processID")
        #expect(run.events.last == "awakeFromFetch")
    }
}

final class HookedRun: ManagedObject {
    var events: [String] = []
    override func awakeFromInsert() {
        events.append("awakeFromInsert")
        setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "date")
    }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
    override func willSave() { events.append("willSave") }
    override func didSave() { events.append("didSave") }
    override func willTurnIntoFault() { events.append("willTurnIntoFault") }
    override func didTurnIntoFault() { events.append("didTurnIntoFault") }
}
