import CGtk
import Foundation
import NotebookKit

/// The file choosers: Open (notebooks by their MIME type, and Mac stores), Save As (with the container and
/// store type as choices), and the image to attach. GTK 4.8's `GtkFileChooserNative` (the desktop portal's
/// chooser where there is one, GTK's own dialog otherwise).
@MainActor
enum FileDialogs {
    /// The choosers shown, kept until they answer (a `GtkFileChooserNative` is not owned by any window).
    static var open: [OpaquePointer] = []

    /// Shows a chooser and calls `done` with the chosen file when the user accepts.
    static func run(
        _ native: OpaquePointer?, _ done: @escaping (URL, OpaquePointer?) -> Void
    ) {
        guard let native else { return }
        let chooser = opaque(native)
        open.append(native)
        onSignalWithInt(native, "response", { response in
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(chooser) {
                if let path = takeString(g_file_get_path(file)) { done(URL(fileURLWithPath: path), chooser) }
                unref(file)
            }
            open.removeAll { $0 == native }
            unref(native)
        })
        gtk_native_dialog_show(cast(native))
    }

    static func filter(_ name: String, mimeTypes: [String] = [], suffixes: [String] = [], images: Bool = false) -> OpaquePointer? {
        let filter = gtk_file_filter_new()
        gtk_file_filter_set_name(filter, name)
        mimeTypes.forEach { gtk_file_filter_add_mime_type(filter, $0) }
        suffixes.forEach { gtk_file_filter_add_suffix(filter, $0) }
        if images { gtk_file_filter_add_pixbuf_formats(filter) }
        return filter
    }

    /// Open…: notebooks (by MIME type, and by extension where the type is not installed), Mac stores. A
    /// notebook package is a folder: open it and pick any file in it.
    static func open(parent: UnsafeMutablePointer<GtkWindow>?, _ done: @escaping (URL) -> Void) {
        let native = gtk_file_chooser_native_new("Open Notebook", parent, GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel")
        let chooser = opaque(native)
        gtk_file_chooser_add_filter(
            chooser, filter("Notebooks", mimeTypes: [NotebookFormat.mimeType], suffixes: [NotebookFormat.fileExtension]))
        gtk_file_chooser_add_filter(chooser, filter("Core Data stores from a Mac", suffixes: ["sqlite", "storedata", "xml", "binary"]))
        run(native) { url, _ in done(url) }
    }

    /// Save As…: where, and in which container and store type (the chooser's two choices).
    static func saveAs(
        parent: UnsafeMutablePointer<GtkWindow>?, name: String, format: NotebookFormat, _ done: @escaping (URL, NotebookFormat) -> Void
    ) {
        let native = gtk_file_chooser_native_new("Save Notebook As", parent, GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel")
        let chooser = opaque(native)
        gtk_file_chooser_set_current_name(chooser, name)
        gtk_file_chooser_add_filter(
            chooser, filter("Notebooks", mimeTypes: [NotebookFormat.mimeType], suffixes: [NotebookFormat.fileExtension]))
        withCStringArray(NotebookFormat.containers.map(\.id)) { ids in
            withCStringArray(NotebookFormat.containers.map(\.label)) { labels in
                gtk_file_chooser_add_choice(chooser, "container", "Save as", ids, labels)
            }
        }
        withCStringArray(NotebookFormat.stores.map(\.id)) { ids in
            withCStringArray(NotebookFormat.stores.map(\.label)) { labels in
                gtk_file_chooser_add_choice(chooser, "store", "Store", ids, labels)
            }
        }
        gtk_file_chooser_set_choice(chooser, "container", format.ids.container)
        gtk_file_chooser_set_choice(chooser, "store", format.ids.store)
        run(native) { url, chooser in
            let container = string(gtk_file_chooser_get_choice(chooser, "container")) ?? format.ids.container
            let store = string(gtk_file_chooser_get_choice(chooser, "store")) ?? format.ids.store
            var url = url
            if url.pathExtension != NotebookFormat.fileExtension { url.appendPathExtension(NotebookFormat.fileExtension) }
            done(url, NotebookFormat(containerID: container, storeID: store) ?? format)
        }
    }

    /// Attach Image…: an image file GTK can read.
    static func image(parent: UnsafeMutablePointer<GtkWindow>?, _ done: @escaping (URL) -> Void) {
        let native = gtk_file_chooser_native_new("Attach Image", parent, GTK_FILE_CHOOSER_ACTION_OPEN, "_Attach", "_Cancel")
        gtk_file_chooser_add_filter(opaque(native), filter("Images", images: true))
        run(native) { url, _ in done(url) }
    }
}
