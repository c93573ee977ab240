import QuireCore
import QuireStores
import CArchive
import Foundation

/// Limits on what opening a flat archive may expand to, so that a hostile or broken archive cannot fill the
/// disk (a "zip bomb") or exhaust memory.
///
/// ```swift
/// var limits = ArchiveLimits()
/// limits.maximumTotalSize = 1 << 30   // 1 GiB expanded
/// ```
public struct ArchiveLimits: Sendable, Hashable {
    /// The largest expanded size of one entry, in bytes (4 GiB by default).
    public var maximumEntrySize: Int64 = 4 << 30
    /// The largest expanded size of all entries together, in bytes (16 GiB by default).
    public var maximumTotalSize: Int64 = 16 << 30
    /// The most entries an archive may have (1,000,000 by default).
    public var maximumEntryCount: Int = 1_000_000
    /// The most times its entries may expand the bytes read from the archive (100 by default), once they have
    /// expanded past ``compressionRatioFloor``: a zip bomb's entries compress a thousandfold, a document's
    /// store and files far less.
    public var maximumCompressionRatio: Int64 = 100
    /// The expanded size below which the compression ratio is not checked, in bytes (256 MiB by default).
    public var compressionRatioFloor: Int64 = 256 << 20

    /// Creates the default limits.
    public init() {}
}

/// Flat archives (zip and tar) through libarchive: writing a package tree as one file with `mimetype` first,
/// and reading one back into a working folder with every hostile entry refused.
enum FlatArchive {
    // MARK: Writing

    /// Writes the tree at `root` as an archive into a new file at `destination` (which must not exist), then
    /// fsyncs it: `mimetype` first and stored, then every folder and file of the tree in name order.
    /// `progress`, when given, is called after each piece of a member with the bytes of the tree's files
    /// archived so far and their total.
    static func write(
        tree root: URL, mimeType: String, to destination: URL, format: DocumentType.Format,
        compression: DocumentType.Compression, progress: ((_ written: Int64, _ total: Int64) -> Void)? = nil
    ) throws {
        let fd = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw DocumentFiles.failure(errno, "open", "Unable to create the archive '\(destination.path)'", url: destination)
        }
        defer { close(fd) }
        guard let archive = archive_write_new() else {
            throw QuireError(.fileWriteUnknown, "libarchive could not allocate a writer for '\(destination.path)'.")
        }
        defer { archive_write_free(archive) }
        var writer = ArchiveWriter(archive: archive, url: destination)
        if let progress {
            let total = try treeSize(root)
            var written: Int64 = 0
            writer.wrote = { count in
                written += count
                progress(written, total)
            }
        }
        if format == .tarArchive {
            try writer.check(archive_write_set_format_pax_restricted(archive), "choose the tar format")
        } else {
            try writer.check(archive_write_set_format_zip(archive), "choose the zip format")
        }
        try writer.check(archive_write_set_bytes_in_last_block(archive, 1), "set the block padding")
        try writer.check(archive_write_open_fd(archive, fd), "open")

        var mimeData = Data(mimeType.utf8)
        mimeData.append(0x0A)
        if format == .zipArchive { try writer.check(archive_write_zip_set_compression_store(archive), "store mimetype") }
        try writer.addFile(named: DocumentPackageLayout.mimetype, data: mimeData)
        // A copy of the search metadata at the top, where Tracker's ODF extractor reads it.
        let meta = root.appendingPathComponent(DocumentPackageLayout.metaXML)
        if case .file = DocumentFiles.kind(of: meta) {
            if format == .zipArchive { try writer.check(archive_write_zip_set_compression_deflate(archive), "deflate meta.xml") }
            try writer.addFile(named: DocumentPackageLayout.archiveMetaXML, data: try readFile(meta))
        }
        try DocumentPackage.walk(root, relative: "") { path, kind in
            if path == DocumentPackageLayout.mimetype || path == DocumentPackageLayout.archiveMetaXML { return }
            if kind == .directory {
                try writer.addDirectory(named: path)
                return
            }
            // Members are streamed from their files in 64 KiB pieces: memory stays bounded whatever the size of
            // the store and its external data.
            let member = try MemberFile(root.appendingPathComponent(path))
            defer { member.close() }
            if format == .zipArchive {
                let deflate: Bool
                switch compression {
                case .stored: deflate = false
                case .deflated: deflate = true
                case .automatic: deflate = !isCompressedMedia(try member.head(12))
                }
                try writer.check(
                    deflate ? archive_write_zip_set_compression_deflate(archive) : archive_write_zip_set_compression_store(archive),
                    "choose the compression of \(path)")
            }
            try writer.addFile(named: path, from: member)
        }
        try writer.check(archive_write_close(archive), "finish")
        guard fsync(fd) == 0 else {
            throw DocumentFiles.failure(errno, "fsync", "Unable to flush the archive '\(destination.path)' to disk", url: destination)
        }
    }

    /// The total size of the regular files of a package tree.
    private static func treeSize(_ root: URL) throws -> Int64 {
        var total: Int64 = 0
        try DocumentPackage.walk(root, relative: "") { _, kind in
            if case .file(let size) = kind { total += size }
        }
        return total
    }

    private static func readFile(_ url: URL) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw QuireError(.fileReadUnknown, "Unable to read '\(url.path)' into the archive.", context: .init(file: url))
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw QuireError(.fileReadUnknown, "Unable to read '\(url.path)' into the archive.", context: .init(file: url))
        }
    }

    /// Whether data starts like an already compressed format, which deflating would only slow down.
    static func isCompressedMedia(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        return starts([0xFF, 0xD8, 0xFF]) || starts([0x89, 0x50, 0x4E, 0x47]) || starts(Array("GIF8".utf8))
            || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)) || starts([0x50, 0x4B, 0x03, 0x04])
            || starts([0x1F, 0x8B]) || starts(Array("BZh".utf8)) || starts([0xFD, 0x37, 0x7A, 0x58, 0x5A])
            || starts([0x28, 0xB5, 0x2F, 0xFD]) || starts(Array("ftyp".utf8), at: 4) || starts(Array("OggS".utf8))
            || starts(Array("ID3".utf8)) || starts([0xFF, 0xFB]) || starts(Array("fLaC".utf8))
    }

    // MARK: Reading

    /// The first entry of an archive: its name, up to `maximumSize` bytes of its data, and the format.
    static func firstEntry(of url: URL, maximumSize: Int) throws -> (String, Data, DocumentType.Format) {
        let reader = try ArchiveReader(url: url)
        guard let entry = try reader.nextEntry() else {
            throw QuireError(.invalidArchive, "The archive '\(url.path)' is empty.", context: .init(file: url))
        }
        let name = try reader.safePath(of: entry) ?? ""
        let data = try reader.readData(limit: Int64(maximumSize), entryName: name, overLimit: .documentTypeMismatch)
        return (name, data, reader.format)
    }

    /// The data of the entry at `path` (up to `maximumSize` bytes), or `nil` when the archive has none.
    static func entryData(of url: URL, at path: String, maximumSize: Int64) throws -> Data? {
        let reader = try ArchiveReader(url: url)
        while let entry = try reader.nextEntry() {
            guard try reader.safePath(of: entry) == path else { continue }
            return try reader.readData(limit: maximumSize, entryName: path, overLimit: .archiveLimitExceeded)
        }
        return nil
    }
}

/// A libarchive writer adding whole entries.
private struct ArchiveWriter {
    let archive: OpaquePointer
    let url: URL
    /// Called with the bytes of each piece of a member written (for progress).
    var wrote: ((Int64) -> Void)?

    func check(_ result: Int32, _ action: String) throws {
        guard result >= ARCHIVE_WARN else { throw error(action) }
    }

    func error(_ action: String) -> QuireError {
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        let code = archive_errno(archive)
        let quireCode: QuireError.Code = code > 0 ? QuireError.Code(errno: code, reading: false) : .fileWriteUnknown
        return QuireError(
            quireCode, "Unable to write the archive '\(url.path)' (\(action): \(message)).", context: .init(file: url),
            underlying: code > 0 ? SystemCallError(code: code, function: "archive_write") : nil)
    }

    func addDirectory(named name: String) throws {
        let entry = makeEntry(name + "/", type: S_IFDIR, permissions: 0o755, size: 0)
        defer { archive_entry_free(entry) }
        try check(archive_write_header(archive, entry), "add \(name)")
    }

    func addFile(named name: String, data: Data) throws {
        let entry = makeEntry(name, type: S_IFREG, permissions: 0o644, size: Int64(data.count))
        defer { archive_entry_free(entry) }
        try check(archive_write_header(archive, entry), "add \(name)")
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = archive_write_data(archive, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 { throw error("write \(name)") }
                if written == 0 { break }
                offset += written
            }
        }
        try check(archive_write_finish_entry(archive), "finish \(name)")
        wrote?(Int64(data.count))
    }

    /// Adds a member whose bytes are read from an open file, 64 KiB at a time.
    func addFile(named name: String, from member: MemberFile) throws {
        let entry = makeEntry(name, type: S_IFREG, permissions: 0o644, size: member.size)
        defer { archive_entry_free(entry) }
        try check(archive_write_header(archive, entry), "add \(name)")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var remaining = member.size
        while remaining > 0 {
            let count = try member.read(into: &buffer)
            guard count > 0 else {
                throw QuireError(
                    .fileReadUnknown, "'\(member.url.path)' ended before its \(member.size) bytes were archived.",
                    context: .init(file: member.url))
            }
            let used = Int(min(Int64(count), remaining))
            try buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset < used {
                    let written = archive_write_data(archive, bytes.baseAddress.map { $0 + offset }, used - offset)
                    if written < 0 { throw error("write \(name)") }
                    if written == 0 { break }
                    offset += written
                }
            }
            remaining -= Int64(used)
            wrote?(Int64(used))
        }
        try check(archive_write_finish_entry(archive), "finish \(name)")
    }

    private func makeEntry(_ name: String, type: mode_t, permissions: mode_t, size: Int64) -> OpaquePointer? {
        let entry = archive_entry_new()
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, UInt32(type))
        archive_entry_set_perm(entry, permissions)
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, Self.entryTime(), 0)
        return entry
    }

    /// The modification time of entries: `SOURCE_DATE_EPOCH` when set (reproducible archives, as the
    /// reproducible-builds convention asks), now otherwise.
    static func entryTime() -> time_t {
        if let text = getenv("SOURCE_DATE_EPOCH"), let seconds = time_t(String(cString: text)), seconds >= 0 { return seconds }
        return time(nil)
    }
}

/// A libarchive reader over a zip or tar file (no compression filters, no other formats), whose entries'
/// paths are checked before anything is done with them.
final class ArchiveReader {
    let archive: OpaquePointer
    let url: URL

    init(url: URL) throws {
        guard let archive = archive_read_new() else {
            throw QuireError(.fileReadUnknown, "libarchive could not allocate a reader for '\(url.path)'.")
        }
        self.archive = archive
        self.url = url
        archive_read_support_format_zip(archive)
        archive_read_support_format_tar(archive)
        archive_read_support_filter_none(archive)
        guard case .file = DocumentFiles.kind(of: url) else {
            throw QuireError(.fileReadNoSuchFile, "There is no archive file at '\(url.path)'.", context: .init(file: url))
        }
        guard archive_read_open_filename(archive, url.path, 1 << 16) == ARCHIVE_OK else {
            throw invalid("is not a zip or tar archive")
        }
    }

    deinit { archive_read_free(archive) }

    /// The archive's format, once its first entry has been read.
    var format: DocumentType.Format {
        (archive_format(archive) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR ? .tarArchive : .zipArchive
    }

    func invalid(_ problem: String, code: QuireError.Code = .invalidArchive) -> QuireError {
        let detail = archive_error_string(archive).map { " (\(String(cString: $0)))" } ?? ""
        return QuireError(code, "The archive '\(url.path)' \(problem)\(detail).", context: .init(file: url))
    }

    /// The next entry's header, or `nil` at the end.
    func nextEntry() throws -> OpaquePointer? {
        var entry: OpaquePointer?
        let result = archive_read_next_header(archive, &entry)
        if result == ARCHIVE_EOF { return nil }
        guard result >= ARCHIVE_WARN, let entry else { throw invalid("is truncated or corrupt") }
        return entry
    }

    /// The entry's path, normalized (no `.` or empty components, no trailing `/`), or `nil` for the root.
    ///
    /// - Throws: ``QuireError/Code/archiveUnsafeEntry`` for absolute paths, `..` components and unreadable
    ///   names.
    func safePath(of entry: OpaquePointer) throws -> String? {
        guard let raw = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry) else {
            throw QuireError(
                .archiveUnsafeEntry, "The archive '\(url.path)' has an entry whose name cannot be read.", context: .init(file: url))
        }
        let name = String(cString: raw)
        if name.hasPrefix("/") {
            throw QuireError(
                .archiveUnsafeEntry, "The archive '\(url.path)' has an entry with the absolute path '\(name)'.",
                context: .init(file: url))
        }
        var components: [Substring] = []
        for component in name.split(separator: "/", omittingEmptySubsequences: true) where component != "." {
            if component == ".." {
                throw QuireError(
                    .archiveUnsafeEntry, "The archive '\(url.path)' has an entry '\(name)' that climbs out with '..'.",
                    context: .init(file: url))
            }
            components.append(component)
        }
        return components.isEmpty ? nil : components.joined(separator: "/")
    }

    /// Reads the current entry's data, refusing more than `limit` bytes.
    func readData(limit: Int64, entryName: String, overLimit: QuireError.Code) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = archive_read_data(archive, &buffer, buffer.count)
            if count < 0 { throw invalid("cannot be read at entry '\(entryName)'") }
            if count == 0 { return data }
            if Int64(data.count + count) > limit {
                throw QuireError(
                    overLimit, "The entry '\(entryName)' of the archive '\(url.path)' is larger than \(limit) bytes.",
                    context: .init(file: url))
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

/// A package member opened for archiving: its size from `fstat` at open, its bytes read in pieces.
final class MemberFile {
    let url: URL
    let size: Int64
    private let fd: Int32

    init(_ url: URL) throws {
        self.url = url
        fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw QuireError(.fileReadUnknown, "Unable to read '\(url.path)' into the archive.", context: .init(file: url))
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw QuireError(.invalidPackage, "The document item '\(url.path)' is not a regular file.", context: .init(file: url))
        }
        size = Int64(status.st_size)
    }

    /// Up to `count` bytes from the start, without moving the read position.
    func head(_ count: Int) throws -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = pread(fd, &bytes, count, 0)
        guard read >= 0 else {
            throw QuireError(.fileReadUnknown, "Unable to read '\(url.path)' into the archive.", context: .init(file: url))
        }
        return Data(bytes.prefix(read))
    }

    /// Reads the next piece into `buffer`; 0 at the end of the file.
    func read(into buffer: inout [UInt8]) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw QuireError(.fileReadUnknown, "Unable to read '\(url.path)' into the archive.", context: .init(file: url))
        }
    }

    func close() { Glibc.close(fd) }
}
