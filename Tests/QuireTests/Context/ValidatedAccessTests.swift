import Foundation
import Testing

import Quire
import QuireTestSupport

/// A note whose folder is declared non-optional.
final class FiledNote: ManagedObject {
    @Managed("title") var title: String?
    @Managed("folder") var folder: ManagedObject
}

/// Keys and values from input: the throwing accessors, out-of-range integers failing validation at save, and
/// a non-optional `@Managed` to-one reading no object (issue 14, item 9).
@Suite struct ValidatedAccessTests {
    static func model() -> ManagedObjectModel {
        let reading = EntityDescription(name: "Reading", properties: [
            AttributeDescription(name: "small", type: .integer16, defaultValue: 0),
            AttributeDescription(name: "medium", type: .integer32, defaultValue: 0),
            AttributeDescription(name: "when", type: .date),
        ])
        return ManagedObjectModel(entities: [reading])
    }

    @Test func integersOutOfTheirTypesRangeFailValidationAtSave() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: folder.file("Range.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Reading"])
        let reading = ManagedObject(entity: entity, insertInto: context)
        reading.setValue(40_000, forKey: "small")
        #expect(reading.value(forKey: "small") as? Int64 == 40_000)
        let error = expectQuireError(.validationNumberTooLarge) { try context.save() }
        #expect(error?.context.key == "small")
        #expect(throws: QuireError.self) { try reading.validateForInsert() }
        try reading.setValidatedValue(Int64(Int32.min) - 1, forKey: "medium")
        reading.setValue(Int16(7), forKey: "small")
        let small = expectQuireError(.validationNumberTooSmall) { try context.save() }
        #expect(small?.context.key == "medium")
        var candidate: Any? = 70_000
        expectQuireError(.validationNumberTooLarge) { try reading.validateValue(&candidate, forKey: "small") }
        reading.setValue(Int32(-5), forKey: "medium")
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Reading")) == 1)
    }

    @Test func theThrowingAccessorsReportUnknownKeysAndWrongTypes() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: folder.file("Keys.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Reading"])
        let reading = ManagedObject(entity: entity, insertInto: context)
        let unknown = expectQuireError(.unknownKey) { try reading.setValidatedValue(1, forKey: "large") }
        #expect(unknown?.context.key == "large" && unknown?.context.entity == "Reading")
        expectQuireError(.unknownKey) { try reading.validatedValue(forKey: "large") }
        expectQuireError(.invalidValue) { try reading.setValidatedValue("yesterday", forKey: "when") }
        expectQuireError(.invalidValue) { try reading.setValidatedValue(1.5, forKey: "small") }
        #expect(reading.value(forKey: "when") == nil)
        try reading.setValidatedValue(12, forKey: "small")
        #expect(try reading.validatedValue(forKey: "small") as? Int16 == 12)
    }

    @Test func aNonOptionalToOneReadingNoObjectDoesNotTrap() throws {
        let folder = try TemporaryFolder()
        let model = DocumentFixtures.model()
        model.entitiesByName["Note"]?.managedObjectClass = FiledNote.self
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Filed.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Note"])
        let note = FiledNote(entity: entity, insertInto: context)
        let placeholder = note.folder
        #expect(placeholder.managedObjectContext == nil)
        #expect(placeholder.entity.name == "Folder")
        #expect(try note.validatedValue(forKey: "folder") == nil)
        let inbox = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Folder"]), insertInto: context)
        note.folder = inbox
        #expect(note.folder === inbox)
        let relationship = try #require(entity.propertiesByName["tags"])
        expectQuireError(.invalidValue) { try note.setValidatedValue(inbox, forKey: relationship.name) }
        expectQuireError(.invalidValue) { try note.setValidatedValue("Inbox", forKey: "folder") }
    }
}
