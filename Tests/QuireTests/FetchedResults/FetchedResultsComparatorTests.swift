import Foundation
import Testing

import Quire

/// A delegate that only lets its controllers track changes.
private final class Listener: FetchedResultsControllerDelegate {
    typealias Result = ManagedObject
}

/// A fetched results controller whose sort key is a Swift comparator: the first fetch and the changes it
/// tracks order the objects with it, and a cached layout made for one comparator is not reused for another.
@Suite struct FetchedResultsComparatorTests {
    static func names(_ controller: FetchedResultsController<ManagedObject>) -> [String] {
        (controller.fetchedObjects ?? []).map { $0.value(forKey: "firstName") as? String ?? "nil" }
    }

    @Test func trackedChangesFollowTheComparator() throws {
        let library = try LibraryFixture()
        let context = library.context
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Author")
            request.predicate = try QueryPredicate(format: "age > 30")
            // Longest first, as a comparator of its own (ascending, like the one below).
            request.sortDescriptors = [SortKey("firstName") { a, b in
                ComparatorSortTests.byLength.customComparator?.compare(b, a) ?? .orderedSame
            }]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, cacheName: "byLength")
            // A controller tracks changes only with a delegate (or a stream), as in Core Data.
            let recorder = Listener()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.names(controller) == ["Émile", "Chloé", "Ann", "ANN"])

            // Same key path, direction and cache name, another comparator: not the cached order.
            let shortFirst = FetchRequest<ManagedObject>(entityName: "Author")
            shortFirst.predicate = request.predicate
            shortFirst.sortDescriptors = [ComparatorSortTests.byLength]
            let other = FetchedResultsController(fetchRequest: shortFirst, managedObjectContext: context, cacheName: "byLength")
            other.delegate = recorder
            try other.performFetch()
            #expect(Self.names(other) == ["ANN", "Ann", "Chloé", "Émile"])

            let author = EntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Maximilian", forKey: "firstName")
            author.setValue(44, forKey: "age")
            context.processPendingChanges()
            #expect(Self.names(controller) == ["Maximilian", "Émile", "Chloé", "Ann", "ANN"])
            #expect(Self.names(other) == ["ANN", "Ann", "Chloé", "Émile", "Maximilian"])
        }
    }
}
