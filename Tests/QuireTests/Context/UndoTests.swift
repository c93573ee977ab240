import Foundation
import Testing

import Quire

/// The undo manager on its own, and a context's undo of inserts, deletes, attribute and relationship changes.
@Suite struct UndoTests {
    final class Box {
        var value = 0
    }

    @Test func groupsByEventUndoAndRedo() {
        let manager = UndoManager()
        let box = Box()
        func set(_ value: Int) {
            let old = box.value
            box.value = value
            manager.registerUndo(withTarget: box) { _ in set(old) }
        }
        set(1)
        set(2)
        manager.setActionName("Typing")
        manager.endEvent()
        set(3)
        #expect(manager.canUndo)
        #expect(manager.undoActionName == "")
        manager.undo()
        #expect(box.value == 2)
        #expect(manager.undoMenuItemTitle == "Undo Typing")
        manager.undo()
        #expect(box.value == 0)
        #expect(!manager.canUndo)
        #expect(manager.canRedo)
        #expect(manager.redoActionName == "Typing")
        manager.redo()
        #expect(box.value == 2)
        manager.redo()
        #expect(box.value == 3)
        #expect(!manager.canRedo)
        manager.undo()
        set(7)
        #expect(!manager.canRedo, "a new change clears redo")
    }

    @Test func explicitGroupsNestAndLevelsOfUndoTrim() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        manager.levelsOfUndo = 2
        let box = Box()
        func set(_ value: Int) {
            let old = box.value
            box.value = value
            manager.registerUndo(withTarget: box) { _ in set(old) }
        }
        for value in 1...3 {
            manager.beginUndoGrouping()
            set(value * 10)
            manager.beginUndoGrouping()
            set(value * 10 + 1)
            #expect(manager.groupingLevel == 2)
            manager.endUndoGrouping()
            manager.endUndoGrouping()
        }
        manager.undo()
        #expect(box.value == 21)
        manager.undo()
        #expect(box.value == 11)
        manager.undo()
        #expect(box.value == 11, "only two levels are kept")
        manager.disableUndoRegistration()
        manager.beginUndoGrouping()
        set(99)
        manager.endUndoGrouping()
        manager.enableUndoRegistration()
        #expect(!manager.canUndo)
        manager.removeAllActions()
        #expect(!manager.canRedo)
    }

    func makeContext() throws -> (TemporaryFolder, ManagedObjectContext, ManagedObjectModel) {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(DocumentFixtures.model(), at: folder.file("Undo.sqlite"))
        context.undoManager = UndoManager()
        return (folder, context, coordinator.managedObjectModel)
    }

    @Test func undoInsertAttributeAndTransientChanges() throws {
        let (_, context, model) = try makeContext()
        let entity = try #require(model.entitiesByName["Note"])
        let note = ManagedObject(entity: entity, insertInto: context)
        note.setValue("first", forKey: "title")
        context.processPendingChanges()
        note.setValue("second", forKey: "title")
        note.setValue("scratch", forKey: "draft")
        context.undo()
        #expect(note.value(forKey: "title") as? String == "first")
        #expect(note.value(forKey: "draft") == nil)
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(!context.hasChanges)
        context.redo()
        #expect(context.insertedObjects == [note])
        #expect(note.value(forKey: "title") as? String == "first")
        context.redo()
        #expect(note.value(forKey: "draft") as? String == "scratch")
        try context.save()
        #expect(note.value(forKey: "title") as? String == "second")
    }

    @Test func undoRestoresRelationshipsOnBothSides() throws {
        let (_, context, model) = try makeContext()
        let entities = model.entitiesByName
        let inbox = ManagedObject(entity: try #require(entities["Folder"]), insertInto: context)
        let archive = ManagedObject(entity: try #require(entities["Folder"]), insertInto: context)
        let note = ManagedObject(entity: try #require(entities["Note"]), insertInto: context)
        let tag = ManagedObject(entity: try #require(entities["Tag"]), insertInto: context)
        note.setValue(inbox, forKey: "folder")
        try context.save()
        note.setValue(archive, forKey: "folder")
        note.addObject(tag, toRelationship: "tags")
        context.undo()
        #expect(note.value(forKey: "folder") as? ManagedObject === inbox)
        #expect((inbox.value(forKey: "notes") as? Set<ManagedObject>) == [note])
        #expect((archive.value(forKey: "notes") as? Set<ManagedObject>) == [])
        #expect((tag.value(forKey: "notes") as? Set<ManagedObject>) == [])
        #expect((note.value(forKey: "tags") as? Set<ManagedObject>) == [])
        context.redo()
        #expect(note.value(forKey: "folder") as? ManagedObject === archive)
        #expect((archive.value(forKey: "notes") as? Set<ManagedObject>) == [note])
        #expect((tag.value(forKey: "notes") as? Set<ManagedObject>) == [note])
    }

    @Test func undoDeleteBeforeAndAfterSave() throws {
        let (folder, context, model) = try makeContext()
        let entities = model.entitiesByName
        let inbox = ManagedObject(entity: try #require(entities["Folder"]), insertInto: context)
        let note = ManagedObject(entity: try #require(entities["Note"]), insertInto: context)
        note.setValue("kept", forKey: "title")
        note.setValue(inbox, forKey: "folder")
        try context.save()
        context.delete(note)
        context.processPendingChanges()
        #expect((inbox.value(forKey: "notes") as? Set<ManagedObject>) == [])
        context.undo()
        #expect(!note.isDeleted)
        #expect((inbox.value(forKey: "notes") as? Set<ManagedObject>) == [note])
        context.redo()
        try context.save()
        #expect(note.managedObjectContext == nil)
        context.undo()
        #expect(note.managedObjectContext === context)
        #expect(note.isInserted)
        try context.save()
        let (_, other) = try Fixtures.stack(DocumentFixtures.model(), at: folder.file("Undo.sqlite"))
        let titles = try other.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }
        #expect(titles == ["kept"])
    }

    @Test func undoAfterSaveMarksTheDocumentEdited() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let folder = try TemporaryFolder()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["one"])
        try document.save(to: folder.file("Undo.notes"), ofType: kind.typeName, for: .saveAs)
        #expect(!document.isDocumentEdited)
        let context = document.managedObjectContext
        let undoManager = try #require(document.undoManager)
        context.performAndWait {
            #expect(undoManager.canUndo)
            undoManager.undo()
        }
        #expect(document.isDocumentEdited)
        try document.save()
        document.close()
        #expect(try DocumentFixtures.titles(at: folder.file("Undo.notes"), kind: kind) == [])
    }
}
