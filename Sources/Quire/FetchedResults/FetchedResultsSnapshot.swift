import QuireCore

/// A ``FetchedResultsController``'s results as section names and object IDs, what Core Data hands a delegate as
/// an `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>` (a UIKit/AppKit type, so Quire has its own):
/// the argument of ``FetchedResultsControllerDelegate/controller(_:didChangeContentWith:)-(_,FetchedResultsSnapshot)``.
///
/// ```swift
/// func controller(_ controller: FetchedResultsController<Item>, didChangeContentWith snapshot: FetchedResultsSnapshot) {
///     for section in snapshot.sectionIdentifiers {
///         print(section, snapshot.itemIdentifiers(inSection: section).count)
///     }
///     list.reload(snapshot.reloadedItemIdentifiers)
/// }
/// ```
///
/// The names and methods are those of `NSDiffableDataSourceSnapshot`. Objects appear by their IDs, temporary ones
/// for objects not saved yet.
public struct FetchedResultsSnapshot: Sendable, Hashable {
    /// The sections' names, in order (`sectionIdentifiers`); one empty name for a controller without a
    /// section key path.
    public let sectionIdentifiers: [String]
    /// Each section's object IDs, in order, parallel to ``sectionIdentifiers``.
    public let itemIdentifiersBySection: [[ObjectID]]
    /// The objects of this round that changed without being inserted or deleted (`reloadedItemIdentifiers`):
    /// those whose values a list shows may differ; empty in the snapshot of `performFetch()`.
    public let reloadedItemIdentifiers: [ObjectID]

    /// Creates a snapshot of sections and their object IDs.
    ///
    /// - Parameters:
    ///   - sections: Each section's name and object IDs, in order.
    ///   - reloadedItemIdentifiers: The IDs of objects that changed in place.
    public init(sections: [(name: String, objectIDs: [ObjectID])], reloadedItemIdentifiers: [ObjectID] = []) {
        sectionIdentifiers = sections.map(\.name)
        itemIdentifiersBySection = sections.map(\.objectIDs)
        self.reloadedItemIdentifiers = reloadedItemIdentifiers
    }

    /// Every object ID, section after section (`itemIdentifiers`).
    public var itemIdentifiers: [ObjectID] { itemIdentifiersBySection.flatMap { $0 } }
    /// How many objects there are (`numberOfItems`).
    public var numberOfItems: Int { itemIdentifiersBySection.reduce(0) { $0 + $1.count } }
    /// How many sections there are (`numberOfSections`).
    public var numberOfSections: Int { sectionIdentifiers.count }

    /// The object IDs of a section (`itemIdentifiers(inSection:)`); empty for a name no section has.
    public func itemIdentifiers(inSection identifier: String) -> [ObjectID] {
        indexOfSection(identifier).map { itemIdentifiersBySection[$0] } ?? []
    }

    /// How many objects a section has (`numberOfItems(inSection:)`); 0 for a name no section has.
    public func numberOfItems(inSection identifier: String) -> Int { itemIdentifiers(inSection: identifier).count }

    /// The index of a section (`indexOfSection(_:)`), or nil.
    public func indexOfSection(_ identifier: String) -> Int? { sectionIdentifiers.firstIndex(of: identifier) }

    /// The index of an object among all of them, section after section (`indexOfItem(_:)`), or nil.
    ///
    /// - Complexity: O(n) in the number of objects.
    public func indexOfItem(_ identifier: ObjectID) -> Int? { itemIdentifiers.firstIndex(of: identifier) }

    /// The name of the section that holds an object (`sectionIdentifier(containingItem:)`), or nil.
    ///
    /// - Complexity: O(n) in the number of objects.
    public func sectionIdentifier(containingItem identifier: ObjectID) -> String? {
        itemIdentifiersBySection.firstIndex { $0.contains(identifier) }.map { sectionIdentifiers[$0] }
    }
}
