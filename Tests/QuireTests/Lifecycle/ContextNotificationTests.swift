import Foundation
import Synchronization
import Testing

import Quire

/// Collects the notifications one context posts under a name.
final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [[AnyHashable: Any]] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, from context: ManagedObjectContext) {
        token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [unowned self] note in
            lock.withLock { entries.append(note.userInfo ?? [:]) }
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    var all: [[AnyHashable: Any]] { lock.withLock { entries } }

    /// The objects of the last notification under a key, by their "name" or "title" values.
    func names(_ key: String, at index: Int = -1) -> Set<String> {
        let list = all
        guard !list.isEmpty else { return [] }
        let info = list[index < 0 ? list.count + index : index]
        let objects = info[key] as? Set<ManagedObject> ?? []
        return Set(objects.map { ($0.value(forKey: $0.entity.propertiesByName["name"] != nil ? "name" : "title") as? String) ?? "?" })
    }
}

/// `objectsDidChangeNotification`, `willSaveNotification`, object sets in `didSaveNotification`, the merge
/// notification and the `objectChanges` stream (issue 16).
@Suite struct ContextNotificationTests {
    @Test func objectsDidChangeReportsEachKindOfChangeAtProcessPendingChanges() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(departmentEmployeesRule: .cascade), at: folder.file("N.sqlite"))
        let log = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, from: context)
        let department = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
        department.setValue("Sales", forKey: "name")
        let ann = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        ann.setValue("Ann", forKey: "name")
        ann.setValue(department, forKey: "department")
        #expect(log.all.isEmpty)
        context.processPendingChanges()
        #expect(log.all.count == 1)
        #expect(log.names("inserted") == ["Sales", "Ann"])
        #expect(log.all[0]["updated"] == nil)
        try context.save()
        #expect(log.all.count == 1)

        ann.setValue("Anna", forKey: "name")
        ann.setValue(Int64(10), forKey: "salary")
        context.processPendingChanges()
        #expect(log.names("updated") == ["Anna"])

        // A deletion reports the cascade too.
        context.delete(department)
        context.processPendingChanges()
        #expect(log.names("deleted") == ["Sales", "Anna"])
        try context.save()

        let bob = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        bob.setValue("Bob", forKey: "name")
        try context.save()
        context.refresh(bob, mergeChanges: false)
        context.processPendingChanges()
        #expect((log.all.last?["refreshed"] as? Set<ManagedObject>) == [bob])

        // Inserted and deleted in one event: nothing to report.
        let count = log.all.count
        let ghost = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        context.delete(ghost)
        context.processPendingChanges()
        #expect(log.all.count == count)

        context.reset()
        #expect(log.all.last?["invalidatedAll"] as? Bool == true)
    }

    @Test func performBlocksEndWithObjectsDidChangeAndSavesPostWillAndDidSaveWithObjects() async throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("P.sqlite"))
        let changes = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, from: context)
        let willSave = NotificationLog(ManagedObjectContext.willSaveNotification, from: context)
        let didSave = NotificationLog(ManagedObjectContext.didSaveNotification, from: context)
        let idsOnly = NotificationLog(ManagedObjectContext.didSaveObjectIDsNotification, from: context)
        try await context.perform {
            let department = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            department.setValue("Ops", forKey: "name")
        }
        #expect(changes.all.count == 1)
        #expect(changes.names("inserted") == ["Ops"])
        try await context.perform { try context.save() }
        #expect(willSave.all.count == 1)
        #expect(didSave.all.count == 1)
        let saved = try #require(didSave.all.first)
        let objects = try #require(saved["inserted"] as? Set<ManagedObject>)
        let ids = try #require(saved["inserted_objectIDs"] as? Set<ObjectID>)
        #expect(objects.count == 1 && ids.count == 1)
        #expect(context.performAndWait { objects.first?.objectID } == ids.first)
        #expect(ids.first?.isTemporaryID == false)
        #expect(idsOnly.all.first?["inserted"] == nil)
        #expect(idsOnly.all.first?["inserted_objectIDs"] as? Set<ObjectID> == ids)
        // Nothing to save: no notifications.
        try await context.perform { try context.save() }
        #expect(willSave.all.count == 1)
    }

    /// A save's did-save notification reports the objects it inserted, whether or not the objects-did-change
    /// notification before it reported just those (the save shares that set only when it does).
    @Test func didSaveReportsTheSavedInsertsWhateverObjectsDidChangeReportedBefore() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("S.sqlite"))
        let changes = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, from: context)
        let didSave = NotificationLog(ManagedObjectContext.didSaveNotification, from: context)
        func insert(_ name: String) -> ManagedObject {
            let department = EntityDescription.insertNewObject(forEntityName: "Department", into: context)
            department.setValue(name, forKey: "name")
            return department
        }
        // Posted as the save begins, exactly the saved inserts.
        _ = insert("A")
        _ = insert("B")
        try context.save()
        #expect(changes.names("inserted") == ["A", "B"])
        #expect(didSave.names("inserted") == ["A", "B"])
        // Posted before, and another insert since.
        _ = insert("C")
        _ = insert("D")
        context.processPendingChanges()
        _ = insert("E")
        try context.save()
        #expect(changes.names("inserted") == ["E"])
        #expect(didSave.names("inserted") == ["C", "D", "E"])
        // Posted before, then one of them deleted before the save.
        _ = insert("F")
        let gone = insert("G")
        context.processPendingChanges()
        context.delete(gone)
        try context.save()
        #expect(didSave.names("inserted") == ["F"])
        // Posted before, then rolled back, and others inserted as many.
        _ = insert("H")
        context.processPendingChanges()
        context.rollback()
        _ = insert("I")
        try context.save()
        #expect(didSave.names("inserted") == ["I"])
        // The saved objects have their permanent IDs, and the IDs the notification lists are theirs.
        let saved = try #require(didSave.all.last)
        let objects = try #require(saved[ManagedObjectContext.insertedObjectsKey] as? Set<ManagedObject>)
        let ids = try #require(saved[ManagedObjectContext.insertedObjectIDsKey] as? Set<ObjectID>)
        #expect(Set(objects.map(\.objectID)) == ids)
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        let count = try context.count(for: FetchRequest<ManagedObject>(entityName: "Department"))
        #expect(count == 7)
    }

    @Test func mergesAndTheStreamReportChangesFromAnotherContext() async throws {
        let folder = try TemporaryFolder()
        let (coordinator, reader) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("M.sqlite"))
        let writer = ManagedObjectContext()
        writer.persistentStoreCoordinator = coordinator
        let (sales, ops) = try writer.performAndWait {
            let sales = EntityDescription.insertNewObject(forEntityName: "Department", into: writer)
            sales.setValue("Sales", forKey: "name")
            let ops = EntityDescription.insertNewObject(forEntityName: "Department", into: writer)
            ops.setValue("Ops", forKey: "name")
            try writer.save()
            return (sales.objectID, ops.objectID)
        }
        // The reader holds both.
        let held = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Department")) }
        #expect(held.count == 2)
        let stream = reader.objectChanges
        let changes = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, from: reader)
        let merges = NotificationLog(ManagedObjectContext.didMergeChangesObjectIDsNotification, from: reader)
        let saved = try writer.performAndWait {
            let observer = NotificationLog(ManagedObjectContext.didSaveNotification, from: writer)
            writer.object(with: sales).setValue("Sales & Marketing", forKey: "name")
            writer.delete(writer.object(with: ops))
            let hr = EntityDescription.insertNewObject(forEntityName: "Department", into: writer)
            hr.setValue("HR", forKey: "name")
            try writer.save()
            return try #require(ContextDidSave(Notification(
                name: ManagedObjectContext.didSaveNotification, object: nil, userInfo: observer.all.first)))
        }
        reader.mergeChanges(fromContextDidSave: saved)
        let report = try #require(changes.all.last)
        reader.performAndWait {
            #expect(changes.names("refreshed") == ["Sales & Marketing"])
            #expect((report["deleted"] as? Set<ManagedObject>)?.map(\.objectID) == [ops])
            #expect(changes.names("inserted") == ["HR"])
        }
        #expect(merges.all.count == 1)
        #expect((merges.all.first?["deleted_objectIDs"] as? Set<ObjectID>) == [ops])
        var iterator = stream.makeAsyncIterator()
        let streamed = try #require(await iterator.next())
        #expect(streamed.deletedObjectIDs == [ops])
        #expect(streamed.refreshedObjectIDs == [sales])
        #expect(streamed.insertedObjectIDs.count == 1)
    }
}
