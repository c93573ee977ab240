import QuireCore
import Foundation

/// Told how a ``FetchedResultsController``'s results change (`NSFetchedResultsControllerDelegate`). Every
/// method has a default that does nothing; implement those you need. Called on the context's queue.
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    /// The object type of the controller.
    associatedtype Result: ManagedObject

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
