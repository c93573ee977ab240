import Foundation
import Testing

import Quire

/// Undo of attribute changes to objects inserted before the context got its undo manager: values set on an
/// object inserted into a context without one are stored without registering anything (nothing could undo
/// them), and giving the context an undo manager must make the next changes of those same objects undoable.
@Suite struct UndoInsertedObjectTests {
    @Test func changesToObjectsInsertedBeforeTheUndoManagerWasSetAreUndone() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("Undo.sqlite"))
        let ann = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        ann.setValue("Ann", forKey: "name")
        let manager = UndoManager()
        context.undoManager = manager
        ann.setValue("Anna", forKey: "name")
        ann.setValue(Int64(42), forKey: "salary")
        context.processPendingChanges()
        #expect(manager.canUndo)
        context.undo()
        #expect(ann.value(forKey: "name") as? String == "Ann")
        #expect(ann.value(forKey: "salary") as? Int64 == 0)

        // Saved, the values undone are the ones on disk.
        try context.save()
        context.reset()
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        let saved = try context.fetch(request)
        #expect(saved.map { $0.value(forKey: "name") as? String } == ["Ann"])
        #expect(saved.map { $0.value(forKey: "salary") as? Int64 } == [0])
    }
}
