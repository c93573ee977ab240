import CGtk
import Dispatch
import Foundation
import NotebookKit
import Quire

/// One document's window: the notebook's title and the search field at the top, the list of notes (driven by a
/// `FetchedResultsController`, ``NoteListFeed``) beside the note's editor, and a status line with the import's
/// progress.
///
/// The document's context is a private-queue context: the window reads and edits it inside `performAndWait`
/// (from the main thread), and the list's changes come back from that queue through `DispatchQueue.main`,
/// which GLib's loop runs thanks to ``GLibMainQueue``.
///
/// Window actions (`win.…`, exported on D-Bus at `/org/quire/Notebook/window/<id>`): `new-note` (s: a title, ""
/// for "New note"), `delete-note`, `undo`, `redo`, `save`, `save-as` (the chooser), `save-as-file` ((sss):
/// container, store type and path, as the chooser's choices name them), `revert`, `close`, `import` (u: how
/// many notes), `attach-image` (s: a path, "" for the chooser), `remove-image`, `select-note` (s: a title; as a click on its row), `search` (s), `search-focus`,
/// `set-title` (s: the notebook's title), and `status`, whose state is a JSON summary of the window.
@MainActor
final class DocumentWindow {
    unowned let application: NotebookApplication
    let document: NotebookDocument
    let window: UnsafeMutablePointer<GtkWindow>

    // Widgets (owned by the window's widget tree, alive as long as the window).
    let readOnlyBar: Widget
    let notebookTitleEntry: Widget
    let searchEntry: Widget
    let list: Widget
    let editor: Widget
    let titleEntry: Widget
    let tagsEntry: Widget
    let bodyView: Widget
    let picture: Widget
    let progressBar: Widget
    let statusLabel: Widget

    /// The list's feed (its controller lives on the document context's queue).
    var feed: NoteListFeed?
    /// Which feed the changes arriving on the main queue belong to: changes of a feed replaced since are dropped.
    var feedGeneration = 0
    /// The notes the list shows, in order, and their rows.
    var rows: [NoteSummary] = []
    var rowWidgets: [Widget] = []
    /// The note in the editor.
    var selectedID: ObjectID?
    /// Set while the window changes the list itself, so that selection signals are not taken for the user's.
    var applyingChanges = false
    /// The running import's progress.
    var importing: (done: Int, total: Int)?
    /// The last thing the status line said.
    var message = ""
    /// Counts the rounds of list changes applied (the status reports it).
    var listRounds = 0
    var autosaveTimer: GLibTimer?
    var actions: [String: OpaquePointer] = [:]
    var isClosed = false

    init(application: NotebookApplication, document: NotebookDocument) {
        self.application = application
        self.document = document
        window = cast(gtk_application_window_new(application.app))!
        gtk_application_window_set_show_menubar(cast(window), 1)
        gtk_window_set_default_size(window, 900, 600)

        let root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!

        readOnlyBar = gtk_label_new(document.macStoreURL.map(MacStore.note(for:)) ?? "")!
        gtk_label_set_wrap(cast(readOnlyBar), 1)
        gtk_widget_add_css_class(readOnlyBar, "read-only-note")
        gtk_widget_set_visible(readOnlyBar, document.isReadOnly ? 1 : 0)
        gtk_box_append(cast(root), readOnlyBar)

        let top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        Self.margins(top, 6)
        notebookTitleEntry = gtk_entry_new()!
        gtk_entry_set_placeholder_text(cast(notebookTitleEntry), "Notebook title")
        gtk_widget_set_hexpand(notebookTitleEntry, 1)
        gtk_box_append(cast(top), notebookTitleEntry)
        searchEntry = gtk_search_entry_new()!
        gtk_widget_set_size_request(searchEntry, 260, -1)
        gtk_box_append(cast(top), searchEntry)
        gtk_box_append(cast(root), top)

        let paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL)!
        gtk_widget_set_vexpand(paned, 1)
        let scroller = gtk_scrolled_window_new()!
        gtk_widget_set_size_request(scroller, 300, -1)
        list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(cast(list), GTK_SELECTION_SINGLE)
        gtk_scrolled_window_set_child(cast(scroller), list)
        gtk_paned_set_start_child(cast(paned), scroller)
        gtk_paned_set_shrink_start_child(cast(paned), 0)

        editor = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        Self.margins(editor, 8)
        titleEntry = gtk_entry_new()!
        gtk_entry_set_placeholder_text(cast(titleEntry), "Title")
        gtk_widget_add_css_class(titleEntry, "title-entry")
        gtk_box_append(cast(editor), titleEntry)
        tagsEntry = gtk_entry_new()!
        gtk_entry_set_placeholder_text(cast(tagsEntry), "Tags, separated by commas")
        gtk_box_append(cast(editor), tagsEntry)
        let bodyScroller = gtk_scrolled_window_new()!
        gtk_widget_set_vexpand(bodyScroller, 1)
        bodyView = gtk_text_view_new()!
        gtk_text_view_set_wrap_mode(cast(bodyView), GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_left_margin(cast(bodyView), 6)
        gtk_text_view_set_top_margin(cast(bodyView), 6)
        gtk_scrolled_window_set_child(cast(bodyScroller), bodyView)
        gtk_box_append(cast(editor), bodyScroller)
        picture = gtk_picture_new()!
        gtk_widget_set_size_request(picture, -1, 160)
        gtk_picture_set_can_shrink(cast(picture), 1)
        gtk_box_append(cast(editor), picture)
        gtk_paned_set_end_child(cast(paned), editor)
        // The list a third of the window, the editor the rest.
        gtk_paned_set_position(cast(paned), 320)
        gtk_box_append(cast(root), paned)

        let bottom = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        Self.margins(bottom, 6)
        statusLabel = gtk_label_new("")!
        gtk_widget_set_hexpand(statusLabel, 1)
        gtk_label_set_xalign(cast(statusLabel), 0)
        gtk_box_append(cast(bottom), statusLabel)
        progressBar = gtk_progress_bar_new()!
        gtk_widget_set_size_request(progressBar, 240, -1)
        gtk_widget_set_valign(progressBar, GTK_ALIGN_CENTER)
        gtk_progress_bar_set_show_text(cast(progressBar), 1)
        gtk_widget_set_visible(progressBar, 0)
        gtk_box_append(cast(bottom), progressBar)
        gtk_box_append(cast(root), bottom)

        gtk_window_set_child(window, root)
        Self.installStyle()
        connectSignals()
        addActions()
        loadNotebookTitle()
        reloadList()
        loadEditor(nil)
        autosaveTimer = GLibTimer(seconds: application.autosaveSeconds) { [weak self] in
            self?.autosave()
            return self != nil
        }
        refreshState()
    }

    static func margins(_ widget: Widget, _ size: Int32) {
        gtk_widget_set_margin_top(widget, size)
        gtk_widget_set_margin_bottom(widget, size)
        gtk_widget_set_margin_start(widget, size)
        gtk_widget_set_margin_end(widget, size)
    }

    static var styleInstalled = false

    /// The few styles of the window: the read-only note's band, the note title's size.
    static func installStyle() {
        guard !styleInstalled, let display = gdk_display_get_default() else { return }
        styleInstalled = true
        let provider = gtk_css_provider_new()
        let css = """
            .read-only-note { background: #fcefc2; color: #4a3b00; padding: 10px 12px; }
            .title-entry { font-size: 140%; font-weight: bold; }
            .note-title { font-weight: bold; }
            .note-detail { opacity: 0.65; font-size: 90%; }
            """
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(display, opaque(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        unref(provider)
    }

    func present() { gtk_window_present(window) }

    /// Whether the window holds nothing worth keeping: an untitled, unchanged, empty notebook.
    var isBlank: Bool {
        document.fileURL == nil && !document.isReadOnly && !document.isDocumentEdited
            && document.managedObjectContext.performAndWait { document.noteCount() } == 0
    }

    // MARK: Signals

    func connectSignals() {
        onSignalWithPointer(list, "row-selected", { [unowned self] row in self.rowSelected(row) })
        onSignal(titleEntry, "activate") { [unowned self] in self.commitEditor() }
        onSignal(tagsEntry, "activate") { [unowned self] in self.commitEditor() }
        onSignal(notebookTitleEntry, "activate") { [unowned self] in self.commitNotebookTitle() }
        onSignal(searchEntry, "search-changed") { [unowned self] in self.reloadList() }
        for widget in [titleEntry, tagsEntry, bodyView] { onFocusLeave(widget) { [unowned self] in self.commitEditor() } }
        onFocusLeave(notebookTitleEntry) { [unowned self] in self.commitNotebookTitle() }
        onSignalReturningBool(window, "close-request", { [unowned self] in
            self.requestClose()
            return true  // the window closes itself once the document is saved or discarded
        })
    }

    /// Calls `body` when keyboard focus leaves `widget` (a GtkEventControllerFocus, owned by the widget).
    func onFocusLeave(_ widget: Widget, _ body: @escaping () -> Void) {
        let controller = gtk_event_controller_focus_new()
        onSignal(controller, "leave", body)
        gtk_widget_add_controller(widget, controller)
    }

    // MARK: The list

    var searchText: String { string(gtk_editable_get_text(opaque(searchEntry))) ?? "" }

    /// Makes a new feed for the search field's text: the list is reloaded from its first fetch, then follows
    /// the controller's changes.
    func reloadList() {
        feedGeneration += 1
        let generation = feedGeneration
        let search = searchText
        let sink: @Sendable ([NoteListChange]) -> Void = { [weak self] changes in
            // On the document context's queue: hand the changes to the main thread, where GTK lives.
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.apply(changes, generation: generation) }
            }
        }
        let document = self.document
        do {
            // Made, and the old one released, on the context's queue, where the controllers live.
            try document.managedObjectContext.performAndWait {
                feed = nil
                feed = try NoteListFeed(document: document, search: search, sink: sink)
            }
        } catch {
            application.report(error, title: "Could not list the notes")
        }
    }

    /// Applies a round of the controller's changes to the list, row by row.
    func apply(_ changes: [NoteListChange], generation: Int) {
        guard generation == feedGeneration, !isClosed else { return }
        applyingChanges = true
        defer { applyingChanges = false }
        for change in changes {
            switch change {
            case .reload(let notes):
                for row in rowWidgets { gtk_list_box_remove(cast(list), row) }
                rows = []
                rowWidgets = []
                for (offset, note) in notes.enumerated() { insertRow(note, at: offset) }
            case .remove(let offset, _):
                guard rowWidgets.indices.contains(offset) else { continue }
                gtk_list_box_remove(cast(list), rowWidgets[offset])
                rowWidgets.remove(at: offset)
                rows.remove(at: offset)
            case .insert(let offset, let note, _):
                insertRow(note, at: min(offset, rows.count))
            }
        }
        listRounds += 1
        // Keep the note in the editor selected where it went; forget it when it left the list.
        if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) {
            gtk_list_box_select_row(cast(list), cast(rowWidgets[index]))
        } else {
            gtk_list_box_unselect_all(cast(list))
        }
        refreshState()
    }

    func insertRow(_ note: NoteSummary, at offset: Int) {
        let row = gtk_list_box_row_new()!
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        Self.margins(box, 6)
        let title = gtk_label_new(note.title.isEmpty ? "Untitled note" : note.title)!
        gtk_label_set_xalign(cast(title), 0)
        gtk_label_set_ellipsize(cast(title), PANGO_ELLIPSIZE_END)
        gtk_widget_add_css_class(title, "note-title")
        gtk_box_append(cast(box), title)
        let detail = gtk_label_new(note.detail)!
        gtk_label_set_xalign(cast(detail), 0)
        gtk_label_set_ellipsize(cast(detail), PANGO_ELLIPSIZE_END)
        gtk_widget_add_css_class(detail, "note-detail")
        gtk_box_append(cast(box), detail)
        gtk_list_box_row_set_child(cast(row), box)
        gtk_list_box_insert(cast(list), row, Int32(offset))
        rows.insert(note, at: offset)
        rowWidgets.insert(row, at: offset)
    }

    func rowSelected(_ row: UnsafeMutableRawPointer?) {
        guard !applyingChanges else { return }
        guard let row, let index = rowWidgets.firstIndex(where: { UnsafeMutableRawPointer($0) == row }) else { return }
        let id = rows[index].id
        guard id != selectedID else { return }
        commitEditor()
        selectedID = id
        loadEditor(document.managedObjectContext.performAndWait { document.summary(of: id) })
        refreshState()
    }

    // MARK: The editor

    /// Shows a note in the editor (nil: none).
    func loadEditor(_ note: NoteSummary?) {
        gtk_editable_set_text(opaque(titleEntry), note?.title ?? "")
        gtk_editable_set_text(opaque(tagsEntry), note?.tags.joined(separator: ", ") ?? "")
        gtk_text_buffer_set_text(gtk_text_view_get_buffer(cast(bodyView)), note?.body ?? "", -1)
        showImage(note?.image)
        let editable: gboolean = note != nil && !document.isReadOnly ? 1 : 0
        gtk_widget_set_sensitive(editor, note != nil ? 1 : 0)
        gtk_editable_set_editable(opaque(titleEntry), editable)
        gtk_editable_set_editable(opaque(tagsEntry), editable)
        gtk_text_view_set_editable(cast(bodyView), editable)
    }

    func showImage(_ data: Data?) {
        guard let data, !data.isEmpty else {
            gtk_picture_set_paintable(cast(picture), nil)
            gtk_widget_set_visible(picture, 0)
            return
        }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        if let texture = gdk_texture_new_from_bytes(bytes, &error) {
            gtk_picture_set_paintable(cast(picture), opaque(texture))
            unref(texture)
            gtk_widget_set_visible(picture, 1)
        } else {
            if let error { g_error_free(error) }
            gtk_widget_set_visible(picture, 0)
        }
    }

    /// Writes what the editor holds into the note (one undo step), if it changed.
    func commitEditor() {
        guard let id = selectedID, !document.isReadOnly, !isClosed else { return }
        let title = string(gtk_editable_get_text(opaque(titleEntry))) ?? ""
        let tags = (string(gtk_editable_get_text(opaque(tagsEntry))) ?? "").split(separator: ",").map(String.init)
        let buffer = gtk_text_view_get_buffer(cast(bodyView))
        var start = GtkTextIter(), end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        let body = takeString(gtk_text_buffer_get_text(buffer, &start, &end, 0)) ?? ""
        let document = self.document
        document.managedObjectContext.performAndWait { document.update(id, title: title, body: body, tags: tags) }
        refreshState()
    }

    func loadNotebookTitle() {
        let title = document.managedObjectContext.performAndWait { document.notebookTitle }
        gtk_editable_set_text(opaque(notebookTitleEntry), title)
        gtk_editable_set_editable(opaque(notebookTitleEntry), document.isReadOnly ? 0 : 1)
    }

    func commitNotebookTitle() {
        guard !document.isReadOnly, !isClosed else { return }
        let title = string(gtk_editable_get_text(opaque(notebookTitleEntry))) ?? ""
        let document = self.document
        document.managedObjectContext.performAndWait { document.setNotebookTitle(title) }
        refreshState()
    }

    /// After undo, redo or revert: the editor shows the note as it now is (or nothing, if it is gone).
    func reloadEditorFromDocument() {
        let document = self.document
        let note = selectedID.flatMap { id in document.managedObjectContext.performAndWait { document.summary(of: id) } }
        if note == nil { selectedID = nil }
        loadEditor(note)
        loadNotebookTitle()
    }

    // MARK: State

    /// What the status action reports (and the tests read).
    struct Status: Codable {
        var title: String
        var notebookTitle: String
        var file: String?
        var format: String
        var edited: Bool
        var readOnly: Bool
        var notes: Int
        var rows: [String]
        var selected: String?
        var selectedHasImage: Bool
        var canUndo: Bool
        var canRedo: Bool
        var undoTitle: String
        var importing: Bool
        var imported: Int
        var listRounds: Int
        var message: String
        var autosaved: String?
    }

    /// Updates the window title (with the edited mark), the actions' enabled state, the status line and the
    /// status action.
    func refreshState() {
        guard !isClosed else { return }
        let document = self.document
        let edited = document.isDocumentEdited
        let (count, notebookTitle, canUndo, canRedo, undoTitle) = document.managedObjectContext.performAndWait {
            (document.noteCount(), document.notebookTitle, document.undoManager?.canUndo ?? false, document.undoManager?.canRedo ?? false,
             document.undoManager?.undoMenuItemTitle ?? "Undo")
        }
        let name = document.macStoreURL?.lastPathComponent ?? document.fileURL?.lastPathComponent ?? "Untitled"
        let title = document.isReadOnly ? "\(name) (read-only) — Notebook" : "\(edited ? "*" : "")\(name) — Notebook"
        gtk_window_set_title(window, title)
        let writable = !document.isReadOnly
        enable("save", writable)
        enable("revert", writable && document.fileURL != nil)
        enable("undo", writable && canUndo)
        enable("redo", writable && canRedo)
        enable("new-note", writable)
        enable("delete-note", writable && selectedID != nil)
        enable("attach-image", writable && selectedID != nil)
        enable("remove-image", writable && selectedID != nil)
        enable("import", writable && importing == nil)
        enable("set-title", writable)
        var line = count == 1 ? "1 note" : "\(count) notes"
        if rows.count != count { line += " (\(rows.count) shown)" }
        if !message.isEmpty { line += " — \(message)" }
        gtk_label_set_text(cast(statusLabel), line)
        let selected = rows.first { $0.id == selectedID }
        let status = Status(
            title: title, notebookTitle: notebookTitle, file: document.fileURL?.path, format: document.format.typeName, edited: edited,
            readOnly: document.isReadOnly, notes: count, rows: rows.map(\.title), selected: selected?.title,
            selectedHasImage: selected?.image != nil, canUndo: canUndo, canRedo: canRedo, undoTitle: undoTitle,
            importing: importing != nil, imported: importing?.done ?? 0, listRounds: listRounds, message: message,
            autosaved: document.autosavedContentsFileURL?.path)
        if let action = actions["status"], let json = try? JSONEncoder().encode(status) {
            g_simple_action_set_state(action, g_variant_new_string(String(decoding: json, as: UTF8.self)))
        }
    }

    func enable(_ name: String, _ enabled: Bool) {
        if let action = actions[name] { g_simple_action_set_enabled(action, enabled ? 1 : 0) }
    }

    func say(_ text: String) {
        message = text
        refreshState()
    }
}
