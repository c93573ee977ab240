import Foundation
import Testing

import Quire

/// Records what a controller reports, in order, as text.
final class ChangeRecorder: FetchedResultsControllerDelegate {
    typealias Result = ManagedObject
    var log: [String] = []

    private func path(_ indexPath: IndexPath?) -> String {
        indexPath.map { "\($0.section).\($0.item)" } ?? "-"
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { log.append("will") }
    func controller(
        _ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        log.append("\(type) \(object.value(forKey: "title") as? String ?? "?") \(path(indexPath))>\(path(newIndexPath))")
    }
    func controller(
        _ controller: FetchedResultsController<ManagedObject>, didChange sectionInfo: FetchedResultsSectionInfo<ManagedObject>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {
        log.append("section \(type) \(sectionInfo.name) \(sectionIndex)")
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) { log.append("did") }

    func take() -> [String] {
        defer { log = [] }
        return log
    }
}

/// `FetchedResultsController`: sections, every change kind (from the context, from merges), the stream and the
/// cache (issue 16).
@Suite struct FetchedResultsControllerTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "group", type: .string),
                AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "hidden", type: .boolean, defaultValue: false),
            ])
        ])
    }

    /// Items `(title, group, rank)` saved into a new SQLite store.
    private func stack(_ folder: TemporaryFolder, _ items: [(String, String, Int64)]) throws
        -> (PersistentStoreCoordinator, ManagedObjectContext)
    {
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: folder.file("Items.sqlite"))
        try context.performAndWait {
            for item in items { insert(item, into: context) }
            try context.save()
        }
        return (coordinator, context)
    }

    @discardableResult
    private func insert(_ item: (String, String, Int64), into context: ManagedObjectContext) -> ManagedObject {
        let object = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
        object.setValue(item.0, forKey: "title")
        object.setValue(item.1, forKey: "group")
        object.setValue(item.2, forKey: "rank")
        return object
    }

    private func controller(_ context: ManagedObjectContext, cacheName: String? = nil) -> FetchedResultsController<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try? QueryPredicate(format: "hidden == NO")
        request.sortDescriptors = [SortKey("group"), SortKey("rank")]
        return FetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: cacheName)
    }

    private func layout(_ controller: FetchedResultsController<ManagedObject>) -> [String] {
        (controller.sections ?? []).map { section in
            section.name + ": " + section.objects.map { $0.value(forKey: "title") as? String ?? "?" }.joined(separator: " ")
        }
    }

    private func title(_ controller: FetchedResultsController<ManagedObject>, _ title: String) throws -> ManagedObject {
        try #require(controller.fetchedObjects?.first { $0.value(forKey: "title") as? String == title })
    }

    @Test func sectionsIndexPathsAndTitles() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try stack(folder, [("a1", "apples", 1), ("p2", "pears", 2), ("a2", "apples", 2), ("p1", "pears", 1), ("b1", "bananas", 1)])
        try context.performAndWait {
            let controller = controller(context)
            #expect(controller.sections == nil && controller.fetchedObjects == nil)
            try controller.performFetch()
            #expect(layout(controller) == ["apples: a1 a2", "bananas: b1", "pears: p1 p2"])
            let sections = try #require(controller.sections)
            #expect(sections.map(\.numberOfObjects) == [2, 1, 2])
            #expect(sections.map(\.indexTitle) == ["A", "B", "P"])
            #expect(controller.sectionIndexTitles == ["A", "B", "P"])
            #expect(controller.section(forSectionIndexTitle: "P", at: 2) == 2)
            #expect(controller.fetchedObjects?.count == 5)
            let p2 = controller.object(at: IndexPath(item: 1, section: 2))
            #expect(p2.value(forKey: "title") as? String == "p2")
            #expect(controller.indexPath(forObject: p2) == IndexPath(item: 1, section: 2))

            let unsorted = FetchRequest<ManagedObject>(entityName: "Item")
            #expect(throws: QuireError.self) {
                try FetchedResultsController(fetchRequest: unsorted, managedObjectContext: context).performFetch()
            }
            // Without a section key path: one section, named "".
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [SortKey("title", ascending: false)]
            let flat = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            try flat.performFetch()
            #expect(layout(flat) == [": p2 p1 b1 a2 a1"])
        }
    }

    @Test func reportsEachKindOfChangeFromTheContext() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try stack(folder, [("a1", "apples", 1), ("a2", "apples", 2), ("a3", "apples", 3), ("p1", "pears", 1)])
        try context.performAndWait {
            let controller = controller(context)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()

            // Insert into an existing section.
            insert(("a0", "apples", 0), into: context)
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "insert a0 ->0.0", "did"])
            #expect(layout(controller) == ["apples: a0 a1 a2 a3", "pears: p1"])

            // An insert that makes a section.
            insert(("c1", "cherries", 5), into: context)
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "section insert cherries 1", "insert c1 ->1.0", "did"])

            // A change that keeps the order: update, with both index paths.
            try title(controller, "a2").setValue("a2", forKey: "title")
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "update a2 0.2>0.2", "did"])

            // A changed sort key: a move.
            try title(controller, "a1").setValue(Int64(9), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "move a1 0.1>0.3", "did"])
            #expect(layout(controller) == ["apples: a0 a2 a3 a1", "cherries: c1", "pears: p1"])

            // A changed section key: a move into another section, and the emptied section goes.
            try title(controller, "c1").setValue("pears", forKey: "group")
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "section delete cherries 1", "move c1 1.0>1.1", "did"])
            #expect(layout(controller) == ["apples: a0 a2 a3 a1", "pears: p1 c1"])

            // No longer matching the predicate: a delete.
            try title(controller, "a3").setValue(true, forKey: "hidden")
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "delete a3 0.2>-", "did"])

            // A deletion, and the save after it reports nothing more.
            context.delete(try title(controller, "p1"))
            context.processPendingChanges()
            #expect(recorder.take() == ["will", "delete p1 1.0>-", "did"])
            try context.save()
            #expect(recorder.take().isEmpty)
            #expect(layout(controller) == ["apples: a0 a2 a1", "pears: c1"])

            // Objects of no interest change nothing.
            let hidden = insert(("h", "apples", 1), into: context)
            hidden.setValue(true, forKey: "hidden")
            context.processPendingChanges()
            #expect(recorder.take().isEmpty)
        }
    }

    @Test func reportsChangesMergedFromAnotherContextAndStreamsThem() async throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try stack(folder, [("a1", "apples", 1), ("a2", "apples", 2), ("p1", "pears", 1)])
        let writer = ManagedObjectContext()
        writer.persistentStoreCoordinator = coordinator
        let controller = controller(context)
        let recorder = ChangeRecorder()
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        let stream = controller.changeSets
        let ids = try context.performAndWait { try ["a1", "p1"].map { try title(controller, $0).objectID } }
        let saved = try writer.performAndWait {
            let log = NotificationLog(ManagedObjectContext.didSaveNotification, from: writer)
            writer.object(with: ids[0]).setValue(Int64(5), forKey: "rank")
            writer.delete(writer.object(with: ids[1]))
            insert(("b1", "bananas", 1), into: writer)
            try writer.save()
            return try #require(ContextDidSave(Notification(
                name: ManagedObjectContext.didSaveNotification, object: nil, userInfo: log.all.first)))
        }
        context.mergeChanges(fromContextDidSave: saved)
        context.performAndWait {
            #expect(recorder.take() == [
                "will", "section delete pears 1", "section insert bananas 1", "delete p1 1.0>-", "insert b1 ->1.0",
                "move a1 0.0>0.1", "did",
            ])
            #expect(layout(controller) == ["apples: a2 a1", "bananas: b1"])
        }
        var iterator = stream.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(Set(changes.sectionChanges.map { "\($0.type) \($0.name) \($0.sectionIndex)" })
            == ["insert bananas 1", "delete pears 1"])
        #expect(changes.objectChanges.count == 3)
        #expect(changes.objectChanges.contains { $0.type == .delete && $0.objectID == ids[1] && $0.indexPath == IndexPath(item: 0, section: 1) })
        #expect(changes.objectChanges.contains { $0.type == .move && $0.objectID == ids[0] && $0.newIndexPath == IndexPath(item: 1, section: 0) })
        #expect(changes.objectChanges.contains { $0.type == .insert && $0.newIndexPath == IndexPath(item: 0, section: 1) })
    }

    @Test func theCacheServesTheSameRequestUntilASaveOrDeleteCache() throws {
        let folder = try TemporaryFolder()
        let name = "items-\(UUID().uuidString)"
        let (coordinator, context) = try stack(folder, [("a1", "apples", 1), ("p1", "pears", 1)])
        defer { FetchedResultsController<ManagedObject>.deleteCache(withName: name) }
        try context.performAndWait { try controller(context, cacheName: name).performFetch() }
        // Written by another coordinator: a cache cannot see it (as in Core Data) …
        let (_, other) = try Fixtures.stack(Self.model(), at: folder.file("Items.sqlite"))
        try other.performAndWait {
            insert(("b1", "bananas", 1), into: other)
            try other.save()
        }
        let fresh = FetchRequest<ManagedObject>(entityName: "Item")
        #expect(try context.performAndWait { try context.count(for: fresh) } == 3)
        try context.performAndWait {
            let cached = controller(context, cacheName: name)
            try cached.performFetch()
            #expect(layout(cached) == ["apples: a1", "pears: p1"])
            // … until the cache is deleted.
            FetchedResultsController<ManagedObject>.deleteCache(withName: name)
            let rebuilt = controller(context, cacheName: name)
            try rebuilt.performFetch()
            #expect(layout(rebuilt) == ["apples: a1", "bananas: b1", "pears: p1"])
            // A save through the controller's coordinator makes the cache stale.
            insert(("c1", "cherries", 1), into: context)
            try context.save()
            let afterSave = controller(context, cacheName: name)
            try afterSave.performFetch()
            #expect(layout(afterSave) == ["apples: a1", "bananas: b1", "cherries: c1", "pears: p1"])
        }
        _ = coordinator
    }
}

/// A controller on a parent context follows what a child context saves into it.
@Suite struct FetchedResultsChildContextTests {
    @Test func aChildsSaveIsReportedOnTheParent() throws {
        let folder = try TemporaryFolder()
        let (_, parent) = try Fixtures.stack(FetchedResultsControllerTests.model(), at: folder.file("Child.sqlite"))
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("rank")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: parent)
        let recorder = ChangeRecorder()
        try parent.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        let child = ManagedObjectContext()
        child.parent = parent
        try child.performAndWait {
            let item = EntityDescription.insertNewObject(forEntityName: "Item", into: child)
            item.setValue("x", forKey: "title")
            try child.save()
        }
        parent.performAndWait {
            #expect(recorder.take() == ["will", "insert x ->0.0", "did"])
            #expect(controller.fetchedObjects?.count == 1)
        }
    }
}
