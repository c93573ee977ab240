import Foundation
import Quire

/// What the list and the editor show of a note: plain values, made on the document context's queue and handed
/// to the main thread.
public struct NoteSummary: Sendable, Hashable {
    /// The note.
    public var id: ObjectID
    /// Its title.
    public var title: String
    /// Its text.
    public var body: String
    /// Its tags' names, sorted.
    public var tags: [String]
    /// The attached image's bytes, if any.
    public var image: Data?

    /// The line under the title in the list: the tags, or the start of the text.
    public var detail: String {
        let text = body.split(separator: "\n").first.map(String.init) ?? ""
        if tags.isEmpty { return String(text.prefix(60)) }
        return tags.map { "#\($0)" }.joined(separator: " ")
    }
}

/// A notebook: a `PersistentDocument` of the Notebook's model, saved in any of the nine ``NotebookFormat``s.
///
/// Its context is the document's private-queue context: the application touches it inside
/// `performAndWait` (from the main thread) and gets plain ``NoteSummary`` values out. Every editing method below
/// must be called inside the context's `performAndWait`; each ends the user action (one undo step, named for the
/// Edit menu) with `processPendingChanges()`.
public final class NotebookDocument: PersistentDocument {
    /// The Mac store this document was read from, when it was opened from one: it is then shown read-only.
    public private(set) var macStoreURL: URL?

    /// Whether the document is read-only (opened from a Mac store: Save As makes a notebook of it).
    public var isReadOnly: Bool { macStoreURL != nil }

    /// The document's format, from its type.
    public var format: NotebookFormat { NotebookFormat(typeName: fileType) ?? .standard }

    /// A new, untitled notebook in the standard format (zip, SQLite).
    public static func makeUntitled() throws -> NotebookDocument {
        NotebookFormat.registerAll()
        let document = try NotebookDocument(type: NotebookFormat.standard.typeName, model: NotebookModel.shared)
        document.prepare()
        return document
    }

    /// Opens a notebook, in whichever of the nine formats it is, or a Core Data store from a Mac (read-only).
    ///
    /// - Parameter url: A notebook package, zip or tar file, a file inside a notebook package (what a file
    ///   chooser hands over when the user opened the package folder and picked a file in it), or a store file.
    /// - Throws: `QuireError`: a file that is neither a notebook nor a store, a store the Notebook's model cannot
    ///   read, or what opening a document throws.
    public static func open(_ url: URL) throws -> NotebookDocument {
        NotebookFormat.registerAll()
        let url = packageRoot(of: url) ?? url
        let contents = try DocumentContents(contentsOf: url)
        let container = contents.container, storeType = contents.storeType, mimeType = contents.mimeType
        contents.close()
        guard let format = container.documentFormat else { return try openMacStore(url, storeType: storeType) }
        guard mimeType == NotebookFormat.mimeType else {
            throw QuireError(
                .documentTypeMismatch,
                "'\(url.lastPathComponent)' is a document of type '\(mimeType ?? "none")', not a notebook (\(NotebookFormat.mimeType)).",
                context: .init(file: url))
        }
        let type = NotebookFormat(container: format, store: storeType)
        let document = try NotebookDocument(contentsOf: url, ofType: type.typeName, model: NotebookModel.shared)
        document.prepare()
        return document
    }

    /// The notebook package `url` is in (or is), when it is a file inside one.
    static func packageRoot(of url: URL) -> URL? {
        var candidate = url.standardizedFileURL
        while candidate.path != "/" {
            let mimetype = candidate.appendingPathComponent("mimetype")
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), isFolder.boolValue,
                let text = try? String(contentsOf: mimetype, encoding: .utf8),
                text.trimmingCharacters(in: .whitespacesAndNewlines) == NotebookFormat.mimeType
            {
                return candidate
            }
            candidate = candidate.deletingLastPathComponent()
        }
        return nil
    }

    /// Opens a bare store file, as a Mac's `NSPersistentDocument` saves one, read-only: the store is copied into
    /// a package in a private folder and opened with the Notebook's model, which checks that the store's tables
    /// are the model's. The original file is never written.
    static func openMacStore(_ url: URL, storeType: StoreType) throws -> NotebookDocument {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notebook-mac-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Imported.\(NotebookFormat.fileExtension)")
        try DocumentContents.writePackage(
            at: package, storeAt: try consolidatedCopy(of: url, storeType: storeType, in: folder), mimeType: NotebookFormat.mimeType,
            storeType: storeType)
        let type = NotebookFormat(container: .package, store: storeType)
        let document: NotebookDocument
        do {
            document = try NotebookDocument(contentsOf: package, ofType: type.typeName, model: NotebookModel.shared)
        } catch {
            throw QuireError(
                .documentTypeMismatch,
                "'\(url.lastPathComponent)' is a \(storeType.rawValue) store of another model than the Notebook's: \(error)",
                context: .init(file: url))
        }
        document.macStoreURL = url
        document.prepare()
        return document
    }

    /// A copy of a store in `folder` whose main file holds all of it. Core Data on a Mac keeps an SQLite store in
    /// WAL mode: the latest transactions may still be in `store-wal` beside it, which a copy of the main file alone
    /// would lose. The store and its `-wal` and `-shm` are copied together and the copy is opened and closed once
    /// (SQLite moves the log into the main file when its last connection closes). The Mac's files are only read.
    static func consolidatedCopy(of url: URL, storeType: StoreType, in folder: URL) throws -> URL {
        guard storeType == .sqlite else { return url }
        let copy = folder.appendingPathComponent("Mac-\(url.lastPathComponent)")
        try FileManager.default.copyItem(at: url, to: copy)
        for suffix in ["-wal", "-shm"] {
            let sidecar = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: sidecar.path) {
                try FileManager.default.copyItem(at: sidecar, to: URL(fileURLWithPath: copy.path + suffix))
            }
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: NotebookModel.shared)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: copy)
        try coordinator.remove(store)
        return copy
    }

    /// What every open document needs: its context merges the saves of background contexts (the import), and
    /// the search title follows the notebook's title.
    func prepare() {
        managedObjectContext.automaticallyMergesChangesFromParent = true
        managedObjectContext.performAndWait { searchMetadata.title = notebookTitle.isEmpty ? nil : notebookTitle }
    }

    /// Sets the search metadata from the content (title and tags), as every save should write it: call before
    /// saving.
    public func updateSearchMetadata() {
        managedObjectContext.performAndWait {
            searchMetadata.title = notebookTitle.isEmpty ? nil : notebookTitle
            let request = FetchRequest<ManagedObject>(entityName: NotebookModel.tag)
            request.sortDescriptors = [SortKey("name")]
            let tags = (try? managedObjectContext.fetch(request)) ?? []
            searchMetadata.keywords = tags.compactMap { $0.value(forKey: "name") as? String }.filter { !$0.isEmpty }
        }
    }

    // MARK: Saving

    /// Saves over the document's file, with the search metadata of its content.
    public func saveInPlace() throws {
        updateSearchMetadata()
        try save()
    }

    /// Saves the notebook at a new place in a format (Save As); a document read from a Mac store becomes an
    /// ordinary, editable notebook there.
    public func save(to url: URL, format: NotebookFormat) throws {
        updateSearchMetadata()
        try save(to: url, ofType: format.typeName, for: .saveAs)
        macStoreURL = nil
    }

    /// Autosaves (in place for a saved notebook, into the autosave folder for an untitled one).
    public func autosaveNow() throws {
        updateSearchMetadata()
        try autosave()
    }

    // MARK: Reading (inside performAndWait)

    /// The notebook object, if there is one yet.
    func notebookObject() -> ManagedObject? {
        let request = FetchRequest<ManagedObject>(entityName: NotebookModel.notebook)
        request.fetchLimit = 1
        return (try? managedObjectContext.fetch(request))?.first
    }

    /// The notebook's title ("" until set).
    public var notebookTitle: String { notebookObject()?.value(forKey: "title") as? String ?? "" }

    /// What the list and the editor show of a note.
    public func summary(of id: ObjectID) -> NoteSummary? {
        guard let note = try? managedObjectContext.existingObject(with: id), !note.isDeleted else { return nil }
        return Self.summary(of: note)
    }

    /// What the list and the editor show of a note object.
    public static func summary(of note: ManagedObject) -> NoteSummary {
        let tags = (note.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }
        return NoteSummary(
            id: note.objectID, title: note.value(forKey: "title") as? String ?? "", body: note.value(forKey: "body") as? String ?? "",
            tags: tags.sorted(), image: note.value(forKey: "image") as? Data)
    }

    /// How many notes the notebook has.
    public func noteCount() -> Int {
        (try? managedObjectContext.count(for: FetchRequest<ManagedObject>(entityName: NotebookModel.note))) ?? 0
    }

    // MARK: Editing (inside performAndWait; each call is one undo step)

    /// Ends a user action: one undo step, named for the Edit menu ("Undo Add Note").
    func endAction(_ name: String) {
        undoManager?.setActionName(name)
        managedObjectContext.processPendingChanges()
    }

    /// Sets the notebook's title.
    public func setNotebookTitle(_ title: String) {
        guard title != notebookTitle else { return }
        let notebook = notebookObject() ?? ManagedObject(entity: entity(NotebookModel.notebook), insertInto: managedObjectContext)
        notebook.setValue(title, forKey: "title")
        searchMetadata.title = title.isEmpty ? nil : title
        endAction("Rename Notebook")
    }

    /// Adds a note and returns it.
    @discardableResult
    public func addNote(title: String, body: String = "", tags: [String] = []) -> ObjectID {
        let note = ManagedObject(entity: entity(NotebookModel.note), insertInto: managedObjectContext)
        note.setValue(title, forKey: "title")
        note.setValue(body, forKey: "body")
        note.setValue(Date(), forKey: "created")
        note.setValue(Date(), forKey: "modified")
        applyTags(tags, to: note)
        // The window keeps the note by its ID (the selection, the list's rows) across saves, and a save replaces
        // a temporary ID: ask for the permanent one now, as Core Data apps do, so that the ID handed out stays
        // valid (without it, the note could no longer be found by that ID after the next autosave).
        try? managedObjectContext.obtainPermanentIDs(for: [note])
        endAction("Add Note")
        return note.objectID
    }

    /// Deletes a note.
    public func deleteNote(_ id: ObjectID) {
        guard let note = try? managedObjectContext.existingObject(with: id) else { return }
        managedObjectContext.delete(note)
        endAction("Delete Note")
    }

    /// Changes a note's title, text and tags (what the editor holds); does nothing when they are the same.
    public func update(_ id: ObjectID, title: String, body: String, tags: [String]) {
        guard let note = try? managedObjectContext.existingObject(with: id), let current = summary(of: id) else { return }
        let tags = Self.normalized(tags)
        guard current.title != title || current.body != body || current.tags != tags else { return }
        if current.title != title { note.setValue(title, forKey: "title") }
        if current.body != body { note.setValue(body, forKey: "body") }
        if current.tags != tags { applyTags(tags, to: note) }
        note.setValue(Date(), forKey: "modified")
        endAction("Edit Note")
    }

    /// Attaches an image (its bytes are stored as external data when large) or removes it (nil).
    public func setImage(_ data: Data?, of id: ObjectID) {
        guard let note = try? managedObjectContext.existingObject(with: id) else { return }
        note.setValue(data, forKey: "image")
        note.setValue(Date(), forKey: "modified")
        endAction(data == nil ? "Remove Image" : "Attach Image")
    }

    /// Tag names as the notebook keeps them: trimmed, without empty ones or repeats, sorted.
    public static func normalized(_ tags: [String]) -> [String] {
        Array(Set(tags.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })).sorted()
    }

    /// Gives a note exactly these tags, making the tags that do not exist yet.
    func applyTags(_ names: [String], to note: ManagedObject) {
        let names = Self.normalized(names)
        var tags: Set<ManagedObject> = []
        for name in names {
            let request = FetchRequest<ManagedObject>(entityName: NotebookModel.tag)
            request.predicate = try? QueryPredicate(format: "name == %@", name)
            request.fetchLimit = 1
            if let existing = (try? managedObjectContext.fetch(request))?.first {
                tags.insert(existing)
            } else {
                let tag = ManagedObject(entity: entity(NotebookModel.tag), insertInto: managedObjectContext)
                tag.setValue(name, forKey: "name")
                tags.insert(tag)
            }
        }
        note.setValue(tags, forKey: "tags")
    }

    func entity(_ name: String) -> EntityDescription {
        guard let entity = managedObjectModel.entitiesByName[name] else {
            preconditionFailure("The Notebook's model has no entity \(name).")
        }
        return entity
    }
}
