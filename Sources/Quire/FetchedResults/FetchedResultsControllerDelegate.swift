import QuireCore
import Foundation

/// Told how a ``FetchedResultsController``'s results change (`NSFetchedResultsControllerDelegate`). Every
/// method has a default that does nothing; implement those you need. Called on the context's queue.
///
/// A delegate is told of each round of changes in one of three ways, as in Core Data: the whole results as a
/// ``FetchedResultsSnapshot`` when it implements ``controller(_:didChangeContentWith:)-(_,FetchedResultsSnapshot)``;
/// otherwise, for a controller without a section key path, as a `CollectionDifference` of object IDs when it
/// implements ``controller(_:didChangeContentWith:)-(_,CollectionDifference<ObjectID>)``; otherwise object by object
/// and section by section, between ``controllerWillChangeContent(_:)`` and ``controllerDidChangeContent(_:)``.
/// A delegate that implements one of the first two gets no other calls.
///
/// ```swift
/// final class ListModel: FetchedResultsControllerDelegate {
///     var rows: [ObjectID] = []
///     func controller(_ controller: FetchedResultsController<Item>, didChangeContentWith diff: CollectionDifference<ObjectID>) {
///         rows = rows.applying(diff) ?? controller.fetchedObjects?.map(\.objectID) ?? []
///     }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    /// The object type of the controller.
    associatedtype Result: ManagedObject

    /// The results changed; here they are whole, as section names and object IDs
    /// (`controller(_:didChangeContentWith:)` with an `NSDiffableDataSourceSnapshot`). Also called after each
    /// ``FetchedResultsController/performFetch()`` with the results it fetched. When implemented, no other
    /// method of the delegate is called.
    func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith snapshot: FetchedResultsSnapshot)
    /// The results changed, as a difference of their object IDs from the last round's
    /// (`controller(_:didChangeContentWith:)` with a `CollectionDifference<NSManagedObjectID>`): an object
    /// inserted or deleted is one insertion or removal; one that moved, or changed in place, is a removal at
    /// its old offset and an insertion at its new one, associated with each other. Called only for a controller
    /// without a ``FetchedResultsController/sectionNameKeyPath`` whose delegate does not implement the snapshot
    /// form; not called by `performFetch()`. When implemented, no other method of the delegate is called.
    func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith diff: CollectionDifference<ObjectID>)

    /// Changes are about to be reported (`controllerWillChangeContent(_:)`).
    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)
    /// An object was inserted, deleted, moved or updated (`controller(_:didChange:at:for:newIndexPath:)`).
    func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section was inserted or deleted (`controller(_:didChange:atSectionIndex:for:)`).
    func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// Every change of the round was reported (`controllerDidChangeContent(_:)`).
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
    /// The index title of a section (`controller(_:sectionIndexTitleForSectionName:)`); nil for the default,
    /// the name's first letter capitalized.
    func controller(_ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    /// Not implemented: the controller goes on to the difference or the object-by-object calls.
    public func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        controller.delegateLacksCallback = true
    }
    /// Not implemented: the controller goes on to the object-by-object calls.
    public func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith diff: CollectionDifference<ObjectID>) {
        controller.delegateLacksCallback = true
    }
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    /// Does nothing.
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    /// Does nothing.
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
    /// Nil: the default title.
    public func controller(
        _ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String
    ) -> String? { nil }
}
