import CArchive
import Foundation
import Quire

/// The entries of a zip or tar file, read with libarchive directly rather than through Quire's archive code.
enum ArchiveEntries {
    /// The bytes of the entry at `path` (a leading `./` ignored), or nil when the archive has none.
    static func data(of url: URL, at path: String) throws -> Data? {
        guard let archive = archive_read_new() else { throw QuireError(.fileReadUnknown, "libarchive is out of memory.") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        archive_read_support_format_tar(archive)
        guard archive_read_open_filename(archive, url.path, 16_384) == ARCHIVE_OK else {
            throw QuireError(.fileReadCorruptFile, "'\(url.path)' cannot be opened as an archive.")
        }
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return nil }
            guard status >= ARCHIVE_WARN, let entry else {
                throw QuireError(.fileReadCorruptFile, "'\(url.path)' has an unreadable entry.")
            }
            var name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            if name.hasPrefix("./") { name.removeFirst(2) }
            guard name == path else { continue }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                guard count >= 0 else { throw QuireError(.fileReadCorruptFile, "'\(path)' in '\(url.path)' cannot be read.") }
                if count == 0 { return data }
                data.append(contentsOf: buffer[0..<count])
            }
        }
    }
}
