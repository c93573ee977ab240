import CGtk
import Foundation
import NotebookKit
import Quire

/// The application: one window per document, the menu bar, the keyboard shortcuts, recent documents, and the
/// actions a user (or a test, over D-Bus: GApplication exports every action) activates.
///
/// App actions: `new`, `open` (a file chooser), `open-file` (s: a path; what the chooser, the recent menu and
/// the command line open), `screenshot` (s: a PNG path; the active window), `alert-button` (s: presses the button
/// of that label in the alert on screen, such as "Revert"), `quit`. Window actions: see
/// ``DocumentWindow``.
@MainActor
final class NotebookApplication {
    /// The application id; also its D-Bus name and object path (`/org/quire/Notebook`).
    static let id = "org.quire.Notebook"

    let app: UnsafeMutablePointer<GtkApplication>
    /// The open windows.
    var windows: [DocumentWindow] = []
    /// The "Open Recent" submenu, filled from GTK's recent-files list.
    let recentMenu = g_menu_new()
    /// Seconds between autosaves (NOTEBOOK_AUTOSAVE_SECONDS, 30 by default).
    let autosaveSeconds: UInt32

    init() {
        app = gtk_application_new(Self.id, G_APPLICATION_HANDLES_OPEN)
        let setting = ProcessInfo.processInfo.environment["NOTEBOOK_AUTOSAVE_SECONDS"].flatMap(UInt32.init)
        autosaveSeconds = max(setting ?? 30, 1)
        onSignal(app, "startup") { [unowned self] in self.startup() }
        onSignal(app, "activate") { [unowned self] in self.activate() }
        connectOpen()
    }

    /// Runs GLib's main loop until the last window closes; returns the exit status.
    func run() -> Int32 {
        var arguments = CommandLine.arguments.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        return g_application_run(cast(app), Int32(arguments.count), &arguments)
    }

    // MARK: Startup

    func startup() {
        addAction("new") { [unowned self] _ in self.newDocument() }
        addAction("open") { [unowned self] _ in self.chooseAndOpen() }
        addAction("open-file", parameter: "s") { [unowned self] value in
            if let path = stringValue(of: value) { self.open(URL(fileURLWithPath: path)) }
        }
        addAction("screenshot", parameter: "s") { [unowned self] value in
            guard let path = stringValue(of: value), let window = self.activeWindow else { return }
            if let widget: Widget = cast(window.window), !Screenshot.write(widget, to: path) { FileHandle.standardError.write(Data("Screenshot failed: \(path)\n".utf8)) }
        }
        addAction("alert-button", parameter: "s") { value in
            if let label = stringValue(of: value) { Alert.press(label) }
        }
        addAction("quit") { [unowned self] _ in self.windows.forEach { $0.requestClose() } }
        let accels: [(String, [String])] = [
            ("app.new", ["<Control>n"]), ("app.open", ["<Control>o"]), ("app.quit", ["<Control>q"]),
            ("win.save", ["<Control>s"]), ("win.save-as", ["<Shift><Control>s"]), ("win.close", ["<Control>w"]),
            ("win.undo", ["<Control>z"]), ("win.redo", ["<Shift><Control>z", "<Control>y"]),
            ("win.new-note('')", ["<Control>Return"]), ("win.search-focus", ["<Control>f"]),
        ]
        for (action, keys) in accels {
            withCStringArray(keys) { gtk_application_set_accels_for_action(app, action, $0) }
        }
        gtk_application_set_menubar(app, cast(makeMenuBar()))
        RecentDocuments.fill(recentMenu)
        onSignal(gtk_recent_manager_get_default(), "changed") { [unowned self] in RecentDocuments.fill(self.recentMenu) }
    }

    func activate() {
        if windows.isEmpty { newDocument() } else { windows.last?.present() }
    }

    /// GApplication's "open": the files named on the command line (or by the desktop, `notebook %U`).
    func connectOpen() {
        let data = Unmanaged.passUnretained(self).toOpaque()
        // The application object lives as long as the process (main.swift keeps it), so an unretained pointer
        // as user_data stays valid for every emission. "open" passes (app, files, n_files, hint, user_data).
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
            _, files, count, _, data in
            guard let data, let files else { return }
            let application = Unmanaged<NotebookApplication>.fromOpaque(data).takeUnretainedValue()
            let paths = (0..<Int(count)).compactMap { takeString(g_file_get_path(files[$0])) }
            MainActor.assumeIsolated {
                for path in paths { application.open(URL(fileURLWithPath: path)) }
            }
        }
        g_signal_connect_data(app, "open", unsafeBitCast(thunk, to: GCallback.self), data, nil, GConnectFlags(rawValue: 0))
    }

    /// Adds an app action; `parameter` is its GVariant type string, if it takes one.
    func addAction(_ name: String, parameter: String? = nil, _ body: @escaping (OpaquePointer?) -> Void) {
        let action = withVariantType(parameter) { g_simple_action_new(name, $0) }
        onSignalWithPointer(action, "activate", { body(OpaquePointer($0)) })
        g_action_map_add_action(opaque(app), opaque(action))
        unref(action)
    }

    var activeWindow: DocumentWindow? {
        let active = gtk_application_get_active_window(app)
        return windows.first { UnsafeMutableRawPointer($0.window) == UnsafeMutableRawPointer(active) } ?? windows.last
    }

    // MARK: Documents

    func newDocument() {
        do {
            show(try NotebookDocument.makeUntitled())
        } catch {
            report(error, title: "Could not make a new notebook")
        }
    }

    /// Opens a notebook (or a Mac store) in a window of its own, or brings its window forward.
    func open(_ url: URL) {
        if let window = windows.first(where: { $0.document.fileURL?.standardizedFileURL == url.standardizedFileURL }) {
            window.present()
            return
        }
        do {
            let document = try NotebookDocument.open(url)
            // An empty, untitled, unchanged window makes way for the document, as in most document apps.
            if let blank = windows.first(where: { $0.isBlank }) { blank.discard() }
            show(document)
            if !document.isReadOnly { RecentDocuments.add(url) }
        } catch {
            report(error, title: "Could not open “\(url.lastPathComponent)”")
        }
    }

    func show(_ document: NotebookDocument) {
        let window = DocumentWindow(application: self, document: document)
        windows.append(window)
        window.present()
    }

    func windowClosed(_ window: DocumentWindow) {
        windows.removeAll { $0 === window }
    }

    func chooseAndOpen() {
        FileDialogs.open(parent: activeWindow?.window) { [unowned self] url in self.open(url) }
    }

    /// Shows an error in a small window (and on standard error, for logs and tests).
    func report(_ error: any Error, title: String) {
        let message = (error as? QuireError)?.message ?? "\(error)"
        FileHandle.standardError.write(Data("\(title): \(message)\n".utf8))
        Alert.show(parent: activeWindow?.window, title: title, message: message, buttons: [("Close", {})])
    }

    // MARK: Menus

    func makeMenuBar() -> OpaquePointer? {
        let bar = g_menu_new()
        let file = g_menu_new()
        let documents = g_menu_new()
        g_menu_append(documents, "New", "app.new")
        g_menu_append(documents, "Open…", "app.open")
        g_menu_append_submenu(documents, "Open Recent", cast(recentMenu))
        g_menu_append_section(file, nil, cast(documents))
        let saving = g_menu_new()
        g_menu_append(saving, "Save", "win.save")
        g_menu_append(saving, "Save As…", "win.save-as")
        g_menu_append(saving, "Revert to Saved", "win.revert")
        g_menu_append_section(file, nil, cast(saving))
        let importing = g_menu_new()
        g_menu_append(importing, "Import 1,000 Sample Notes", "win.import(uint32 1000)")
        g_menu_append_section(file, nil, cast(importing))
        let closing = g_menu_new()
        g_menu_append(closing, "Close", "win.close")
        g_menu_append(closing, "Quit", "app.quit")
        g_menu_append_section(file, nil, cast(closing))
        g_menu_append_submenu(bar, "_File", cast(file))

        let edit = g_menu_new()
        let history = g_menu_new()
        g_menu_append(history, "Undo", "win.undo")
        g_menu_append(history, "Redo", "win.redo")
        g_menu_append_section(edit, nil, cast(history))
        let notes = g_menu_new()
        g_menu_append(notes, "New Note", "win.new-note('')")
        g_menu_append(notes, "Delete Note", "win.delete-note")
        g_menu_append(notes, "Attach Image…", "win.attach-image('')")
        g_menu_append(notes, "Remove Image", "win.remove-image")
        g_menu_append_section(edit, nil, cast(notes))
        let find = g_menu_new()
        g_menu_append(find, "Find", "win.search-focus")
        g_menu_append_section(edit, nil, cast(find))
        g_menu_append_submenu(bar, "_Edit", cast(edit))
        for menu in [file, documents, saving, importing, closing, edit, history, notes, find] { unref(menu) }
        return bar
    }
}
