import Foundation
import Testing

import Quire

/// Changes to inserted objects in objects-did-change notifications: an object changed in the round it was
/// inserted in is reported only as inserted; once that round was posted, its later changes are reported as
/// updates (as in Core Data), although it is still unsaved. Attribute setters skip noting changes of objects
/// whose insertion is still to be posted, so this checks where that ends.
@Suite struct ContextNotificationInsertedObjectTests {
    @Test func insertedObjectsAreReportedAsUpdatedOnceTheirInsertionWasPosted() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("Inserted.sqlite"))
        let log = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, from: context)
        let ann = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        ann.setValue("Ann", forKey: "name")
        ann.setValue(Int64(10), forKey: "salary")
        context.processPendingChanges()
        #expect(log.names("inserted") == ["Ann"])
        #expect(log.all.last?["updated"] == nil)

        // Still unsaved, changed in a later round: an update, next to a new object that is only inserted.
        ann.setValue("Anna", forKey: "name")
        let bob = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        bob.setValue("Bob", forKey: "name")
        context.processPendingChanges()
        #expect(log.all.count == 2)
        #expect(log.names("updated") == ["Anna"])
        #expect(log.names("inserted") == ["Bob"])

        // A rollback posts the round too; an object inserted after it is noted afresh.
        context.rollback()
        let carl = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        carl.setValue("Carl", forKey: "name")
        context.processPendingChanges()
        #expect(log.names("inserted") == ["Carl"])
        #expect(log.all.last?["updated"] == nil)
        carl.setValue("Carla", forKey: "name")
        try context.save()
        // The save posted the change before writing, and the record holds the last value.
        #expect(log.names("updated") == ["Carla"])
        context.reset()
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        let names = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        #expect(names == ["Carla"])
    }
}
