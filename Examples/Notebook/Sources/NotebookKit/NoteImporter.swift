import Foundation
import Quire

/// Imports many notes on a background context of the document's coordinator, a batch per save, while the
/// window stays responsive: each save is merged into the document's context (which merges its coordinator's
/// other saves, `automaticallyMergesChangesFromParent`), whose fetched-results controller then reports the new
/// rows, and the progress goes to the main queue.
public enum NoteImporter {
    /// Notes saved per batch: each save is one merge into the document's context and one round of list changes.
    public static let batchSize = 200

    /// The words sample notes are made of.
    static let words = [
        "zucchini", "plumber", "invoice", "garden", "library", "meeting", "tickets", "birthday", "recipe", "bicycle",
        "lecture", "harbour", "sketch", "budget", "letter", "concert", "window", "ferry", "lantern", "orchard",
    ]
    /// The tags sample notes get.
    static let tagNames = ["home", "work", "travel", "ideas"]

    /// The title of the `index`th sample note (1-based), made of the sample words: the same for the same index.
    public static func sampleTitle(_ index: Int) -> String {
        "\(words[index % words.count].capitalized) \(words[(index / words.count + 3) % words.count]) \(index)"
    }

    /// Starts importing `count` sample notes into `document` and returns at once.
    ///
    /// - Parameters:
    ///   - count: How many notes.
    ///   - document: The notebook; its coordinator is used from the background context (the coordinator is
    ///     `Sendable`; the document itself is not touched off the main thread).
    ///   - progress: Called on the importing context's queue after each batch with the notes saved so far and the
    ///     total.
    ///   - completion: Called on that queue at the end with the IDs of the notes imported, or the error.
    public static func importSampleNotes(
        count: Int, into coordinator: PersistentStoreCoordinator,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void,
        completion: @escaping @Sendable (Result<[ObjectID], any Error>) -> Void
    ) {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = "Notebook import"
        context.perform {
            do {
                let model = coordinator.managedObjectModel
                guard let noteEntity = model.entitiesByName[NotebookModel.note], let tagEntity = model.entitiesByName[NotebookModel.tag] else {
                    throw QuireError(.invalidModel, "The model has no Note or Tag entity.")
                }
                var tags: [String: ManagedObject] = [:]
                let existing = FetchRequest<ManagedObject>(entityName: NotebookModel.tag)
                for tag in try context.fetch(existing) {
                    if let name = tag.value(forKey: "name") as? String { tags[name] = tag }
                }
                for name in tagNames where tags[name] == nil {
                    let tag = ManagedObject(entity: tagEntity, insertInto: context)
                    tag.setValue(name, forKey: "name")
                    tags[name] = tag
                }
                var imported: [ObjectID] = []
                var pending: [ManagedObject] = []
                let start = Date()
                for index in stride(from: 1, through: count, by: 1) {
                    let note = ManagedObject(entity: noteEntity, insertInto: context)
                    note.setValue(sampleTitle(index), forKey: "title")
                    note.setValue("Imported note \(index) of \(count).", forKey: "body")
                    note.setValue(start.addingTimeInterval(Double(index)), forKey: "created")
                    note.setValue(start, forKey: "modified")
                    if let tag = tags[tagNames[index % tagNames.count]] { note.setValue(Set([tag]), forKey: "tags") }
                    pending.append(note)
                    if pending.count == batchSize || index == count {
                        try context.save()
                        imported += pending.map(\.objectID)
                        pending.removeAll()
                        context.reset()
                        // The tags were reset with the rest: fetch them again (now saved) for the next batch.
                        tags = [:]
                        for tag in try context.fetch(existing) {
                            if let name = tag.value(forKey: "name") as? String { tags[name] = tag }
                        }
                        progress(index, count)
                    }
                }
                completion(.success(imported))
            } catch {
                context.rollback()
                completion(.failure(error))
            }
        }
    }
}

extension NotebookDocument {
    /// Makes an import just finished one undo step of the document (and so an edit: a Save writes it): undoing
    /// it deletes the imported notes, redoing brings them back. Call inside the context's `performAndWait`.
    ///
    /// The import saved into the working store from another context, and merges register no undo, so
    /// without this the document would not count as edited.
    public func registerImport(of ids: [ObjectID]) {
        guard let undoManager, !ids.isEmpty else { return }
        undoManager.beginUndoGrouping()
        undoManager.registerUndo(withTarget: self) { document in
            for id in ids {
                if let note = try? document.managedObjectContext.existingObject(with: id) { document.managedObjectContext.delete(note) }
            }
        }
        undoManager.setActionName("Import Notes")
        undoManager.endUndoGrouping()
    }
}
