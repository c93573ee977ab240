import CGtk
import Dispatch
import Foundation
import NotebookKit
import Quire

extension DocumentWindow {
    /// Adds a window action; `parameter` is its GVariant type string, if it takes one.
    func addAction(_ name: String, parameter: String? = nil, _ body: @escaping (OpaquePointer?) -> Void) {
        let action = withVariantType(parameter) { g_simple_action_new(name, $0) }!
        onSignalWithPointer(action, "activate", { body(OpaquePointer($0)) })
        g_action_map_add_action(opaque(window), opaque(action))
        actions[name] = action
        unref(action)  // the window's action map holds it
    }

    func addActions() {
        addAction("new-note", parameter: "s") { [unowned self] value in self.newNote(title: stringValue(of: value) ?? "") }
        addAction("delete-note") { [unowned self] _ in self.deleteNote() }
        addAction("undo") { [unowned self] _ in self.undo(redo: false) }
        addAction("redo") { [unowned self] _ in self.undo(redo: true) }
        addAction("save") { [unowned self] _ in self.save() }
        addAction("save-as") { [unowned self] _ in self.chooseSaveAs() }
        addAction("save-as-file", parameter: "(sss)") { [unowned self] value in
            guard let value else { return }
            let parts = (0..<3).map { index -> String in
                let child = g_variant_get_child_value(value, gsize(index))
                defer { g_variant_unref(child) }
                return stringValue(of: child) ?? ""
            }
            guard let format = NotebookFormat(containerID: parts[0], storeID: parts[1]) else {
                self.say("Unknown format \(parts[0]) \(parts[1])")
                return
            }
            _ = self.saveAs(URL(fileURLWithPath: parts[2]), format: format)
        }
        addAction("revert") { [unowned self] _ in self.confirmRevert() }
        addAction("close") { [unowned self] _ in self.requestClose() }
        addAction("import", parameter: "u") { [unowned self] value in
            self.startImport(count: Int(value.map { g_variant_get_uint32($0) } ?? 1000))
        }
        addAction("attach-image", parameter: "s") { [unowned self] value in
            let path = stringValue(of: value) ?? ""
            if path.isEmpty {
                FileDialogs.image(parent: self.window) { [weak self] url in self?.attachImage(url) }
            } else {
                self.attachImage(URL(fileURLWithPath: path))
            }
        }
        addAction("select-note", parameter: "s") { [unowned self] value in
            // What a click on the row does: the list box's selection, whose "row-selected" loads the editor.
            guard let title = stringValue(of: value), let index = self.rows.firstIndex(where: { $0.title == title }) else { return }
            gtk_list_box_select_row(cast(self.list), cast(self.rowWidgets[index]))
        }
        addAction("remove-image") { [unowned self] _ in self.setImage(nil) }
        addAction("search", parameter: "s") { [unowned self] value in
            // The search field reports the change ("search-changed"), which reloads the list.
            gtk_editable_set_text(opaque(self.searchEntry), stringValue(of: value) ?? "")
        }
        addAction("search-focus") { [unowned self] _ in gtk_widget_grab_focus(self.searchEntry) }
        addAction("set-title", parameter: "s") { [unowned self] value in
            gtk_editable_set_text(opaque(self.notebookTitleEntry), stringValue(of: value) ?? "")
            self.commitNotebookTitle()
        }
        let status = g_simple_action_new_stateful("status", nil, g_variant_new_string("{}"))!
        g_action_map_add_action(opaque(window), opaque(status))
        actions["status"] = status
        unref(status)
    }

    // MARK: Notes

    func newNote(title: String) {
        guard !document.isReadOnly else { return }
        commitEditor()
        let document = self.document
        let id = document.managedObjectContext.performAndWait { document.addNote(title: title.isEmpty ? "New note" : title) }
        selectedID = id
        loadEditor(document.managedObjectContext.performAndWait { document.summary(of: id) })
        gtk_widget_grab_focus(titleEntry)
        refreshState()
    }

    func deleteNote() {
        guard let id = selectedID, !document.isReadOnly else { return }
        let document = self.document
        document.managedObjectContext.performAndWait { document.deleteNote(id) }
        selectedID = nil
        loadEditor(nil)
        refreshState()
    }

    func undo(redo: Bool) {
        commitEditor()
        let document = self.document
        document.managedObjectContext.performAndWait {
            if redo { document.undoManager?.redo() } else { document.undoManager?.undo() }
            // Report the changes now (the list follows them) rather than at the next event's end.
            document.managedObjectContext.processPendingChanges()
        }
        reloadEditorFromDocument()
        refreshState()
    }

    func attachImage(_ url: URL) {
        do {
            setImage(try Data(contentsOf: url))
        } catch {
            application.report(error, title: "Could not read the image “\(url.lastPathComponent)”")
        }
    }

    func setImage(_ data: Data?) {
        guard let id = selectedID, !document.isReadOnly else { return }
        commitEditor()
        let document = self.document
        document.managedObjectContext.performAndWait { document.setImage(data, of: id) }
        showImage(data)
        refreshState()
    }

    // MARK: Saving

    /// Save: over the file, or Save As for an untitled notebook.
    func save() {
        guard !document.isReadOnly else { return }
        guard document.fileURL != nil else { return chooseSaveAs() }
        commitEditor()
        commitNotebookTitle()
        do {
            try document.saveInPlace()
            if let url = document.fileURL { RecentDocuments.add(url) }
            say("Saved")
        } catch {
            application.report(error, title: "Could not save the notebook")
        }
    }

    func chooseSaveAs(then next: (() -> Void)? = nil) {
        commitEditor()
        commitNotebookTitle()
        let name = document.fileURL?.lastPathComponent
            ?? document.macStoreURL.map { $0.deletingPathExtension().lastPathComponent + "." + NotebookFormat.fileExtension }
            ?? "Untitled.\(NotebookFormat.fileExtension)"
        FileDialogs.saveAs(parent: window, name: name, format: document.format) { [weak self] url, format in
            guard let self else { return }
            if self.saveAs(url, format: format) { next?() }
        }
    }

    /// Save As into `url` in `format`; returns whether it worked.
    @discardableResult
    func saveAs(_ url: URL, format: NotebookFormat) -> Bool {
        commitEditor()
        commitNotebookTitle()
        do {
            try document.save(to: url, format: format)
            RecentDocuments.add(url)
            gtk_widget_set_visible(readOnlyBar, 0)
            loadEditor(selectedID.flatMap { id in document.managedObjectContext.performAndWait { document.summary(of: id) } })
            loadNotebookTitle()
            say("Saved as \(format.typeName)")
            return true
        } catch {
            application.report(error, title: "Could not save “\(url.lastPathComponent)”")
            return false
        }
    }

    func confirmRevert() {
        guard let url = document.fileURL, !document.isReadOnly else { return }
        Alert.show(
            parent: window, title: "Revert to the saved “\(url.lastPathComponent)”?",
            message: "The changes made since it was last saved are lost.",
            buttons: [("_Cancel", {}), ("_Revert", { [weak self] in self?.revert() })])
    }

    func revert() {
        do {
            selectedID = nil
            try document.revert()
            reloadList()
            reloadEditorFromDocument()
            say("Reverted")
        } catch {
            application.report(error, title: "Could not revert the notebook")
        }
    }

    /// Autosaves an edited notebook (the timer calls it): in place once it has a file, otherwise into the
    /// autosave folder (`$XDG_DATA_HOME/Quire/Autosave Information`).
    func autosave() {
        guard !isClosed, !document.isReadOnly, importing == nil, document.isDocumentEdited else { return }
        do {
            try document.autosaveNow()
            say("Autosaved")
        } catch {
            FileHandle.standardError.write(Data("Autosave failed: \(error)\n".utf8))
            say("Autosave failed")
        }
    }

    // MARK: Closing

    /// Closes the window, asking first when the notebook has unsaved changes.
    func requestClose() {
        guard !isClosed else { return }
        commitEditor()
        commitNotebookTitle()
        guard document.isDocumentEdited, !document.isReadOnly else { return discard() }
        let name = document.fileURL?.lastPathComponent ?? "Untitled"
        Alert.show(
            parent: window, title: "Save the changes to “\(name)” before closing?",
            message: "If you don’t save, the changes are lost.",
            buttons: [
                ("Close _without Saving", { [weak self] in self?.discard() }),
                ("_Cancel", {}),
                ("_Save", { [weak self] in
                    guard let self else { return }
                    if self.document.fileURL == nil {
                        self.chooseSaveAs { [weak self] in self?.discard() }
                    } else {
                        self.save()
                        if !self.document.isDocumentEdited { self.discard() }
                    }
                }),
            ])
    }

    /// Closes the window and the document without saving.
    func discard() {
        guard !isClosed else { return }
        autosaveTimer?.cancel()
        feedGeneration += 1
        let document = self.document
        document.managedObjectContext.performAndWait { feed = nil }
        isClosed = true
        document.close()
        gtk_window_destroy(window)
        application.windowClosed(self)
    }

    // MARK: Import

    /// Imports sample notes on a background context: the list fills in as each batch is merged, the progress
    /// bar follows, and the window stays responsive. The import is one undo step.
    func startImport(count: Int) {
        guard importing == nil, !document.isReadOnly, count > 0 else { return }
        importing = (0, count)
        gtk_progress_bar_set_fraction(cast(progressBar), 0)
        gtk_progress_bar_set_text(cast(progressBar), "Importing…")
        gtk_widget_set_visible(progressBar, 1)
        say("Importing \(count) notes")
        NoteImporter.importSampleNotes(
            count: count, into: document.persistentStoreCoordinator,
            progress: { [weak self] done, total in
                DispatchQueue.main.async { MainActor.assumeIsolated { self?.importProgressed(done, of: total) } }
            },
            completion: { [weak self] result in
                DispatchQueue.main.async { MainActor.assumeIsolated { self?.importFinished(result) } }
            })
    }

    func importProgressed(_ done: Int, of total: Int) {
        guard !isClosed else { return }
        importing = (done, total)
        gtk_progress_bar_set_fraction(cast(progressBar), Double(done) / Double(max(total, 1)))
        gtk_progress_bar_set_text(cast(progressBar), "\(done) of \(total)")
        refreshState()
    }

    func importFinished(_ result: Result<[ObjectID], any Error>) {
        guard !isClosed else { return }
        importing = nil
        gtk_widget_set_visible(progressBar, 0)
        switch result {
        case .success(let ids):
            let document = self.document
            document.managedObjectContext.performAndWait { document.registerImport(of: ids) }
            say("Imported \(ids.count) notes")
        case .failure(let error):
            say("Import failed")
            application.report(error, title: "The import failed")
        }
    }
}
