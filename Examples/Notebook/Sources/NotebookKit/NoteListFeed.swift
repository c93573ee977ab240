import Foundation
import Quire

/// One change to the list of notes, in the order the list applies them.
public enum NoteListChange: Sendable, Hashable {
    /// The whole list (after a fetch: the first one, or a new search).
    case reload([NoteSummary])
    /// The row at an offset goes away; `moving` when the same note comes back at another offset.
    case remove(offset: Int, moving: Bool)
    /// A row comes in at an offset; `moved` when it is a note removed just before (a move).
    case insert(offset: Int, note: NoteSummary, moved: Bool)
}

/// The list of notes as a `FetchedResultsController` keeps it: the notes matching the search, sorted by title,
/// reported as ``NoteListChange``s to a sink, which the application runs on the main thread.
///
/// The controller and this delegate live on the document context's queue (a private queue): the sink is called
/// there, and the application hands the changes to its main thread (the GTK app with `DispatchQueue.main.async`,
/// which GLib's loop runs through `MainQueueEventSource`).
public final class NoteListFeed: FetchedResultsControllerDelegate {
    public typealias Result = ManagedObject

    /// The controller (used on the document context's queue only).
    let controller: FetchedResultsController<ManagedObject>
    /// Where the changes go.
    let sink: @Sendable ([NoteListChange]) -> Void

    /// The fetch request of the notes matching `search` (title or text, ignoring case and diacritics), sorted by
    /// title then creation date.
    public static func request(search: String) -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: NotebookModel.note)
        request.sortDescriptors = [SortKey("title", comparator: .localizedStandardCompare), SortKey("created")]
        let text = search.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty {
            request.predicate = try? QueryPredicate(format: "title CONTAINS[cd] %@ OR body CONTAINS[cd] %@", text, text)
        }
        return request
    }

    /// Fetches the notes matching `search` and reports them as one ``NoteListChange/reload(_:)``; from then on
    /// reports the controller's changes. Call inside the document context's `performAndWait`; keep the feed
    /// for as long as the list follows it.
    public init(document: NotebookDocument, search: String, sink: @escaping @Sendable ([NoteListChange]) -> Void) throws {
        controller = FetchedResultsController(
            fetchRequest: Self.request(search: search), managedObjectContext: document.managedObjectContext)
        self.sink = sink
        controller.delegate = self
        try controller.performFetch()
        sink([.reload((controller.fetchedObjects ?? []).map(NotebookDocument.summary(of:)))])
    }

    /// The controller's round of changes as removals (from the last offset down) then insertions (from the
    /// first up), which is how a `CollectionDifference` applies; a note that moved (or changed in place) is a
    /// removal and an insertion associated with each other.
    public func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith diff: CollectionDifference<ObjectID>) {
        var changes: [NoteListChange] = []
        for removal in diff.removals.reversed() {
            if case .remove(let offset, _, let associated) = removal { changes.append(.remove(offset: offset, moving: associated != nil)) }
        }
        let context = controller.managedObjectContext
        for insertion in diff.insertions {
            guard case .insert(let offset, let id, let associated) = insertion else { continue }
            changes.append(.insert(offset: offset, note: NotebookDocument.summary(of: context.object(with: id)), moved: associated != nil))
        }
        if !changes.isEmpty { sink(changes) }
    }
}
