import Foundation
import Testing

import Quire

/// Core Data's tutorial, end to end: the Run entity built in code, saved, reopened.
@Suite struct TutorialTests {
    @Test func runIsSavedAndReadBackByANewCoordinator() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Runs.sqlite")
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        do {
            let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: url)
            try context.performAndWait {
                let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Run"])
                let run = ManagedObject(entity: entity, insertInto: context)
                #expect(run.value(forKey: "processID") as? Int64 == -1)
                run.setValue(date, forKey: "date")
                let second = ManagedObject(entity: entity, insertInto: context)
                second.setValue(date.addingTimeInterval(60), forKey: "date")
                second.setValue(4242, forKey: "processID")
                try context.save()
                #expect(!run.objectID.isTemporaryID)
                #expect(!context.hasChanges)
            }
        }
        let (_, context) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("date")]
        let runs = try context.fetch(request)
        #expect(runs.count == 2)
        #expect(runs[0].value(forKey: "date") as? Date == date)
        #expect(runs[0].value(forKey: "processID") as? Int64 == -1)
        #expect(runs[1].value(forKey: "processID") as? Int64 == 4242)
        #expect(runs[1].value(forKey: "date") as? Date == date.addingTimeInterval(60))
    }

    @Test func requiredDateIsEnforcedAtSave() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Runs.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        let run = ManagedObject(entity: entity, insertInto: context)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationMissingMandatoryProperty)
        #expect(error.context.key == "date")
        #expect(run.objectID.isTemporaryID)
        run.setValue(Date(), forKey: "date")
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Run")) == 1)
    }

    @Test func modelIsFrozenOnceACoordinatorUsesIt() throws {
        let model = Fixtures.runModel()
        #expect(model.isEditable)
        model.entities[0].properties.append(AttributeDescription(name: "note", type: .string))
        _ = try PersistentStoreCoordinator(managedObjectModel: model)
        #expect(!model.isEditable)
        #expect(model.entitiesByName["Run"]?.propertiesByName["note"] != nil)
    }

    @Test func typedSubclassReadsAndWritesThroughStorage() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.runModel()
        model.entities[0].managedObjectClass = Run.self
        let url = folder.file("Typed.sqlite")
        do {
            let (_, context) = try Fixtures.stack(model, at: url)
            let run = Run(context: context)
            #expect(run.processID == -1)
            run.processID = 7
            run.date = Date(timeIntervalSinceReferenceDate: 10)
            #expect(run.value(forKey: "processID") as? Int64 == 7)
            #expect(run.changedValues()["processID"] as? Int64 == 7)
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Fixtures.runModelWithClass(), at: url)
        let runs = try context.fetch(FetchRequest<Run>(entityName: "Run"))
        #expect(runs.count == 1)
        #expect(runs[0].isFault)
        #expect(runs[0].processID == 7)
        #expect(!runs[0].isFault)
        #expect(runs[0].date == Date(timeIntervalSinceReferenceDate: 10))
    }
}

/// The tutorial's entity as a typed subclass.
final class Run: ManagedObject {
    @Managed("date") var date: Date
    @Managed("processID") var processID: Int64
}

extension Fixtures {
    static func runModelWithClass() -> ManagedObjectModel {
        let model = runModel()
        model.entities[0].managedObjectClass = Run.self
        return model
    }
}
