import Foundation
import Testing

import Quire

/// A delegate that takes whole snapshots (Core Data's `NSDiffableDataSourceSnapshot` callback) and counts any
/// other call it gets.
private final class SnapshotTaker: FetchedResultsControllerDelegate {
    typealias Result = ManagedObject
    var snapshots: [FetchedResultsSnapshot] = []
    var otherCalls = 0
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        snapshots.append(snapshot)
    }
    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { otherCalls += 1 }
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) { otherCalls += 1 }
}

/// A delegate that applies collection differences of object IDs (Core Data's `CollectionDifference` callback)
/// to its own list, and counts any other call it gets.
private final class DifferenceApplier: FetchedResultsControllerDelegate {
    typealias Result = ManagedObject
    var rows: [ObjectID] = []
    var differences: [CollectionDifference<ObjectID>] = []
    var otherCalls = 0
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith diff: CollectionDifference<ObjectID>) {
        differences.append(diff)
        rows = rows.applying(diff) ?? []
    }
    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { otherCalls += 1 }
    func controller(
        _ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) { otherCalls += 1 }
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) { otherCalls += 1 }
}

/// Fetched results controllers as Core Data's since 2019: sections keyed on a Boolean, no tracking without a
/// delegate, and the snapshot and difference callbacks.
@Suite struct FetchedResultsDifferenceTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "done", type: .boolean, defaultValue: false),
                AttributeDescription(name: "weight", type: .double, defaultValue: 0.0),
            ])
        ])
    }

    /// Items `(title, rank, done)` saved into a new store of `type`.
    static func stack(_ type: StoreType, _ folder: TemporaryFolder, _ items: [(String, Int64, Bool)]) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Items.\(type.rawValue.lowercased())"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for item in items { insert(item, into: context) }
            try context.save()
        }
        return context
    }

    @discardableResult
    static func insert(_ item: (String, Int64, Bool), into context: ManagedObjectContext) -> ManagedObject {
        let object = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
        object.setValue(item.0, forKey: "title")
        object.setValue(item.1, forKey: "rank")
        object.setValue(item.2, forKey: "done")
        return object
    }

    static func controller(_ context: ManagedObjectContext, sections: String? = nil) -> FetchedResultsController<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = (sections.map { [SortKey($0)] } ?? []) + [SortKey("rank")]
        return FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: sections)
    }

    static func titles(_ ids: [ObjectID], in context: ManagedObjectContext) -> [String] {
        ids.map { context.object(with: $0).value(forKey: "title") as? String ?? "?" }
    }

    @Test(arguments: types)
    func sectionsKeyedOnABooleanAreNamedZeroAndOne(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(type, folder, [("a", 1, false), ("b", 2, true), ("c", 3, false)])
        try context.performAndWait {
            let controller = Self.controller(context, sections: "done")
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["0", "1"])
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1])
            #expect(controller.sectionIndexTitles == ["0", "1"])
            // A whole double names its section without a fraction, as NSNumber describes it.
            let item = try #require(controller.fetchedObjects?.first)
            item.setValue(3.0, forKey: "weight")
            let byWeight = Self.controller(context, sections: "weight")
            try byWeight.performFetch()
            #expect(byWeight.sections?.map(\.name) == ["0", "3"])
        }
    }

    @Test(arguments: types)
    func withoutADelegateTheControllerDoesNotTrackChanges(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(type, folder, [("a", 1, false), ("b", 2, false)])
        try context.performAndWait {
            let controller = Self.controller(context)
            try controller.performFetch()
            Self.insert(("c", 3, false), into: context)
            context.processPendingChanges()
            // Core Data's "no tracking" mode: the results are those of the fetch.
            #expect(controller.fetchedObjects?.count == 2)
            // With a delegate it tracks again once it fetches again.
            let delegate = SnapshotTaker()
            controller.delegate = delegate
            try controller.performFetch()
            Self.insert(("d", 4, false), into: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 4)
        }
    }

    @Test(arguments: types)
    func aSnapshotDelegateGetsWholeResultsAndNothingElse(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(type, folder, [("a", 1, false), ("b", 2, true), ("c", 3, false)])
        try context.performAndWait {
            let controller = Self.controller(context, sections: "done")
            let delegate = SnapshotTaker()
            controller.delegate = delegate
            try controller.performFetch()
            // performFetch() hands the first snapshot over.
            let first = try #require(delegate.snapshots.last)
            #expect(first.sectionIdentifiers == ["0", "1"])
            #expect(Self.titles(first.itemIdentifiers(inSection: "0"), in: context) == ["a", "c"])
            #expect(first.numberOfItems == 3 && first.numberOfSections == 2 && first.reloadedItemIdentifiers.isEmpty)

            let b = try #require(controller.fetchedObjects?.first { $0.value(forKey: "title") as? String == "b" })
            b.setValue(5, forKey: "rank")
            Self.insert(("d", 0, true), into: context)
            context.processPendingChanges()
            #expect(delegate.snapshots.count == 2)
            let second = try #require(delegate.snapshots.last)
            #expect(Self.titles(second.itemIdentifiers(inSection: "1"), in: context) == ["d", "b"])
            #expect(second.reloadedItemIdentifiers == [b.objectID])
            #expect(second.sectionIdentifier(containingItem: b.objectID) == "1")
            #expect(second.indexOfItem(b.objectID) == 3)
            #expect(delegate.otherCalls == 0)
        }
    }

    @Test(arguments: types)
    func aDifferenceDelegateGetsCollectionDifferencesOfObjectIDs(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(type, folder, [("a", 1, false), ("b", 2, false), ("c", 3, false), ("d", 4, false)])
        try context.performAndWait {
            let controller = Self.controller(context)
            let delegate = DifferenceApplier()
            controller.delegate = delegate
            try controller.performFetch()
            #expect(delegate.differences.isEmpty)
            delegate.rows = try #require(controller.fetchedObjects).map(\.objectID)
            let objects = try #require(controller.fetchedObjects)

            // An insert, a delete, a move and a change in place in one round.
            Self.insert(("e", 0, false), into: context)
            context.delete(objects[1])
            objects[0].setValue(10, forKey: "rank")
            objects[2].setValue("c2", forKey: "title")
            context.processPendingChanges()

            let difference = try #require(delegate.differences.last)
            #expect(Self.titles(delegate.rows, in: context) == ["e", "c2", "d", "a"])
            #expect(delegate.rows == controller.fetchedObjects?.map(\.objectID))
            #expect(difference.insertions.count == 3 && difference.removals.count == 3)
            // The moved and the changed objects are removed and inserted again, each pair associated.
            let paired = difference.inferringMoves().compactMap { change -> ObjectID? in
                if case .insert(_, let element, let associated?) = change, associated >= 0 { return element }
                return nil
            }
            #expect(Set(paired) == [objects[0].objectID, objects[2].objectID])
            #expect(delegate.otherCalls == 0)
        }
    }

    @Test func aDifferenceIsNotUsedWithSections() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(.sqlite, folder, [("a", 1, false)])
        try context.performAndWait {
            let controller = Self.controller(context, sections: "done")
            let delegate = DifferenceApplier()
            controller.delegate = delegate
            try controller.performFetch()
            Self.insert(("b", 2, true), into: context)
            context.processPendingChanges()
            // Core Data calls the difference form only without a section key path: the object-by-object calls
            // come instead (will, the insert, did; the new section's report goes to a method it lacks).
            #expect(delegate.differences.isEmpty)
            #expect(delegate.otherCalls == 3)
        }
    }
}
