import CGtk
import Foundation

/// Writes what a window shows as a PNG: the window's widgets rendered by its own renderer (GSK), as GTK draws
/// them on screen (the window manager's frame, if any, is not part of it).
@MainActor
enum Screenshot {
    /// Renders `window` into a PNG at `path`; returns whether it was written.
    static func write(_ window: Widget, to path: String) -> Bool {
        let width = gtk_widget_get_width(window), height = gtk_widget_get_height(window)
        guard width > 0, height > 0, let renderer = gtk_native_get_renderer(opaque(window)) else {
            FileHandle.standardError.write(Data("screenshot: \(width)x\(height), renderer \(gtk_native_get_renderer(opaque(window)) != nil)\n".utf8))
            return false
        }
        let paintable = gtk_widget_paintable_new(window)
        defer { unref(paintable) }
        let snapshot = gtk_snapshot_new()
        gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return false }
        defer { gsk_render_node_unref(node) }
        guard let texture = gsk_renderer_render_texture(renderer, node, nil) else { return false }
        defer { unref(texture) }
        try? FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        return gdk_texture_save_to_png(texture, path) != 0
    }
}
