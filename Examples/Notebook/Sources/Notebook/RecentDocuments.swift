import CGtk
import Foundation
import NotebookKit

/// GTK's list of recently used files (`$XDG_DATA_HOME/recently-used.xbel`, shared with the desktop): the
/// notebooks opened and saved are added to it, and the File › Open Recent menu lists the notebooks in it.
@MainActor
enum RecentDocuments {
    /// The most items the menu lists.
    static let limit = 10

    /// Adds a notebook to the list, as this application's, of the notebook MIME type.
    static func add(_ url: URL) {
        let uri = url.absoluteString
        "Notebook".withCString { appName in
            "notebook %u".withCString { exec in
                NotebookFormat.mimeType.withCString { mime in
                    var data = GtkRecentData(
                        display_name: nil, description: nil, mime_type: UnsafeMutablePointer(mutating: mime),
                        app_name: UnsafeMutablePointer(mutating: appName), app_exec: UnsafeMutablePointer(mutating: exec),
                        groups: nil, is_private: 0)
                    _ = gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data)
                }
            }
        }
    }

    /// Refills the Open Recent menu: the notebooks of the list that still exist, newest first.
    static func fill(_ menu: OpaquePointer?) {
        g_menu_remove_all(menu)
        var items: [(date: Int64, path: String, name: String)] = []
        var list = gtk_recent_manager_get_items(gtk_recent_manager_get_default())
        let head = list
        while let node = list {
            if let info = OpaquePointer(node.pointee.data) {
                if string(gtk_recent_info_get_mime_type(info)) == NotebookFormat.mimeType,
                    let uri = string(gtk_recent_info_get_uri(info)), let url = URL(string: uri), url.isFileURL,
                    FileManager.default.fileExists(atPath: url.path)
                {
                    let modified = Int64(gtk_recent_info_get_modified(info).map { g_date_time_to_unix($0) } ?? 0)
                    items.append((modified, url.path, url.lastPathComponent))
                }
                gtk_recent_info_unref(info)
            }
            list = node.pointee.next
        }
        g_list_free(head)
        for item in items.sorted(by: { $0.date > $1.date }).prefix(limit) {
            let entry = g_menu_item_new(item.name, nil)
            g_menu_item_set_action_and_target_value(entry, "app.open-file", g_variant_new_string(item.path))
            g_menu_append_item(menu, entry)
            unref(entry)
        }
    }
}
