import CGtk
import Foundation
import Testing

/// Reads back the PNGs the app wrote, with GTK's own loader.
enum Screenshots {
    /// The pixels of a PNG (Cairo's ARGB32, premultiplied, native-endian) with its size.
    static func pixels(of url: URL) throws -> (width: Int, height: Int, pixels: [UInt32]) {
        var error: UnsafeMutablePointer<GError>?
        let texture = try #require(gdk_texture_new_from_filename(url.path, &error), "\(url.lastPathComponent) is not an image GTK reads")
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let width = Int(gdk_texture_get_width(texture)), height = Int(gdk_texture_get_height(texture))
        var pixels = [UInt32](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { gdk_texture_download(texture, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), gsize(width * 4)) }
        return (width, height, pixels)
    }

    /// Checks that a screenshot shows a window with something in it: a sensible size, and many colours (a blank,
    /// black or single-colour window has one or two; text, the list and the image make hundreds).
    static func expectNotBlank(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (width, height, pixels) = try pixels(of: url)
        #expect(width >= 400 && height >= 300, "\(url.lastPathComponent) is \(width)×\(height)", sourceLocation: sourceLocation)
        let colours = Set(pixels)
        #expect(colours.count > 50, "\(url.lastPathComponent) has only \(colours.count) colours", sourceLocation: sourceLocation)
        // No single colour covers the whole picture: the background leaves room for what is drawn on it.
        var counts: [UInt32: Int] = [:]
        for pixel in pixels { counts[pixel, default: 0] += 1 }
        let commonest = counts.values.max() ?? 0
        #expect(commonest < pixels.count * 95 / 100, "\(url.lastPathComponent) is almost all one colour", sourceLocation: sourceLocation)
    }

    /// Writes a test photo: a colourful gradient with noise in its low bits, so that the PNG does not compress
    /// below the Notebook's external-data threshold (32 KB) and is kept beside the store.
    static func writePhoto(to url: URL, width: Int = 320, height: Int = 200) throws {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = UInt8(truncatingIfNeeded: seed >> 16) & 0x1F
                let offset = (y * width + x) * 4
                bytes[offset] = UInt8(x * 255 / width) ^ noise  // R
                bytes[offset + 1] = UInt8(y * 255 / height) ^ noise  // G
                bytes[offset + 2] = 180 ^ noise  // B
                bytes[offset + 3] = 255  // A
            }
        }
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(data) }
        let texture = gdk_memory_texture_new(Int32(width), Int32(height), GDK_MEMORY_R8G8B8A8, data, gsize(width * 4))
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        #expect(gdk_texture_save_to_png(texture, url.path) != 0)
    }
}
