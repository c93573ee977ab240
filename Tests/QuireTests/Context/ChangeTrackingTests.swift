import Foundation
import Testing

import Quire
import QuireTestSupport

/// What counts as a change: an object inserted and deleted before any save is none, and a document undone
/// back to its saved state is clean again (issue 14, item 5).
@Suite struct ChangeTrackingTests {
    /// Each inserted object gets an array of values of its own, copied from the entity's defaults (as bytes when
    /// no default holds a reference): setting one object's values changes no other object's, nor the defaults.
    @Test func insertedObjectsStartAtTheDefaultsAndChangeOnlyTheirOwnValues() throws {
        let folder = try TemporaryFolder()
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "count", type: .integer64, defaultValue: 5),
            AttributeDescription(name: "ratio", type: .double, defaultValue: 0.5),
            AttributeDescription(name: "flag", type: .boolean, defaultValue: true),
            AttributeDescription(name: "when", type: .date, defaultValue: Date(timeIntervalSinceReferenceDate: 100)),
            AttributeDescription(name: "title", type: .string),
        ])
        let labelled = EntityDescription(name: "Labelled", properties: [
            AttributeDescription(name: "count", type: .integer64, defaultValue: 7),
            AttributeDescription(name: "label", type: .string, defaultValue: "none"),
        ])
        let (_, context) = try Fixtures.stack(ManagedObjectModel(entities: [note, labelled]), at: folder.file("D.sqlite"))
        let when = Date(timeIntervalSinceReferenceDate: 100)

        // Defaults without references (numbers, a Boolean, a date, nil): each object's own copy.
        let first = EntityDescription.insertNewObject(forEntityName: "Note", into: context)
        let second = EntityDescription.insertNewObject(forEntityName: "Note", into: context)
        first.setValue(Int64(1), forKey: "count")
        first.setValue(2.5, forKey: "ratio")
        first.setValue(false, forKey: "flag")
        first.setValue("first", forKey: "title")
        let third = EntityDescription.insertNewObject(forEntityName: "Note", into: context)
        for object in [second, third] {
            #expect(object.value(forKey: "count") as? Int64 == 5)
            #expect(object.value(forKey: "ratio") as? Double == 0.5)
            #expect(object.value(forKey: "flag") as? Bool == true)
            #expect(object.value(forKey: "when") as? Date == when)
            #expect(object.value(forKey: "title") == nil)
        }
        #expect(first.value(forKey: "count") as? Int64 == 1)
        #expect(first.value(forKey: "ratio") as? Double == 2.5)
        #expect(first.value(forKey: "flag") as? Bool == false)
        #expect(first.value(forKey: "when") as? Date == when)
        #expect(first.value(forKey: "title") as? String == "first")

        // A default with a reference (a string): shared until the first set copies it.
        let labelledFirst = EntityDescription.insertNewObject(forEntityName: "Labelled", into: context)
        let labelledSecond = EntityDescription.insertNewObject(forEntityName: "Labelled", into: context)
        labelledFirst.setValue("changed", forKey: "label")
        labelledFirst.setValue(Int64(1), forKey: "count")
        let labelledThird = EntityDescription.insertNewObject(forEntityName: "Labelled", into: context)
        for object in [labelledSecond, labelledThird] {
            #expect(object.value(forKey: "count") as? Int64 == 7)
            #expect(object.value(forKey: "label") as? String == "none")
        }
        #expect(labelledFirst.value(forKey: "label") as? String == "changed")
        #expect(labelledFirst.value(forKey: "count") as? Int64 == 1)
        try context.save()
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        let counts = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "count") as? Int64 }
        #expect(counts.sorted() == [1, 5, 5])
        let labels = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Labelled")).compactMap { $0.value(forKey: "label") as? String }
        #expect(labels.sorted() == ["changed", "none", "none"])
    }

    @Test func insertingThenDeletingAnUnsavedObjectLeavesNoChanges() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(DocumentFixtures.model(), at: folder.file("Changes.sqlite"))
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
        let note = ManagedObject(entity: entity, insertInto: context)
        note.setValue("draft", forKey: "title")
        #expect(context.hasChanges)
        context.delete(note)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
        context.processPendingChanges()
        #expect(!context.hasChanges)
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) == 0)
    }

    @Test func undoingBackToTheSavedStateMakesTheDocumentClean() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let folder = try TemporaryFolder()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["one"])
        try document.save(to: folder.file("Clean.notes"), ofType: kind.typeName, for: .saveAs)
        #expect(!document.isDocumentEdited)
        let context = document.managedObjectContext
        let note = try context.performAndWait { try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first) }
        context.performAndWait {
            note.setValue("two", forKey: "title")
            context.processPendingChanges()
        }
        #expect(document.isDocumentEdited)
        context.performAndWait { context.undo() }
        #expect(context.performAndWait { note.value(forKey: "title") as? String } == "one")
        #expect(!document.isDocumentEdited)
        context.performAndWait { context.redo() }
        #expect(document.isDocumentEdited)
        try document.save()
        #expect(!document.isDocumentEdited)
        context.performAndWait { context.undo() }
        #expect(document.isDocumentEdited)
        context.performAndWait { context.redo() }
        #expect(!document.isDocumentEdited)
        document.close()
        #expect(try DocumentFixtures.titles(at: folder.file("Clean.notes"), kind: kind) == ["two"])
    }

    @Test func anUntitledDocumentUndoneToEmptyIsClean() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        defer { document.close() }
        #expect(!document.isDocumentEdited)
        DocumentFixtures.fill(document, titles: ["one"])
        #expect(document.isDocumentEdited)
        document.managedObjectContext.performAndWait { document.managedObjectContext.undo() }
        #expect(!document.isDocumentEdited)
    }
}

/// IDs whose records are gone: a store removed and added again, an object inserted and deleted before any
/// save (issue 14, item 6).
@Suite struct StaleObjectIDTests {
    @Test func anIDOfARemovedStoreIsNotFound() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Stale.sqlite")
        let (coordinator, context) = try Fixtures.stack(DocumentFixtures.model(), at: url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Note"])
        let note = ManagedObject(entity: entity, insertInto: context)
        note.setValue("kept", forKey: "title")
        try context.save()
        let staleID = note.objectID
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let fresh = ManagedObjectContext()
        fresh.persistentStoreCoordinator = coordinator
        try fresh.performAndWait {
            expectQuireError(.managedObjectReferentialIntegrity) { try fresh.existingObject(with: staleID) }
            let fault = fresh.object(with: staleID)
            #expect(fault.isFault)
            expectQuireError(.managedObjectReferentialIntegrity) { try fault.validatedValue(forKey: "title") }
            #expect(fault.value(forKey: "title") == nil)
            expectQuireError(.managedObjectReferentialIntegrity) { try fresh.existingObject(with: staleID) }
            // The record itself is there under its new ID.
            let titles = try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }
            #expect(titles == ["kept"])
        }
    }

    @Test func anObjectInsertedThenDeletedIsNotFound() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(DocumentFixtures.model(), at: folder.file("Gone.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Note"])
        let note = ManagedObject(entity: entity, insertInto: context)
        let id = note.objectID
        #expect(try context.existingObject(with: id) === note)
        context.delete(note)
        expectQuireError(.managedObjectReferentialIntegrity) { try context.existingObject(with: id) }
        context.processPendingChanges()
        expectQuireError(.managedObjectReferentialIntegrity) { try context.existingObject(with: id) }
    }
}
