import CQuireSupport
import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A whole file written as a stream, for Save As into an atomic store: the bytes go to a temporary file
/// beside the target (through a buffer of about a megabyte), a few fixed-size fields already written may be
/// patched in place (section lengths, checksums, the metadata slot's data end), and ``commit()`` fsyncs it
/// and renames it over the target, as ``AtomicFileWriter`` does for a file written from memory. Until then
/// the target is untouched; ``discard()`` (or a failed write) removes the temporary file.
final class AtomicStreamFile {
    /// The file this stream becomes.
    let url: URL
    private let temporary: URL
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Set once the temporary file is renamed into place, or removed.
    private var finished = false
    /// The number of bytes written so far (buffered included): the offset of the next byte.
    package private(set) var offset = 0
    private static let flushSize = 1 << 20

    /// Creates the temporary file beside `url`.
    ///
    /// - Throws: ``QuireError`` (``QuireError/Code/fileWriteNoPermission`` for a read-only folder).
    init(url: URL) throws {
        self.url = url
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileWriter.error(errno, "create a temporary file beside", url) }
        buffer.reserveCapacity(Self.flushSize + 64 * 1024)
    }

    deinit { discard() }

    /// Appends bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: bytes)
        offset += bytes.count
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Appends bytes.
    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    /// Appends bytes.
    func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// Writes the buffered bytes to the file.
    func flush() throws {
        guard descriptor >= 0 else { throw AtomicFileWriter.error(EBADF, "write", url) }
        guard !buffer.isEmpty else { return }
        try AtomicFileWriter.writeAll(descriptor, Data(buffer), url)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Overwrites bytes already written at `position` (flushed first).
    func patch(_ bytes: [UInt8], at position: Int) throws {
        try flush()
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let written = pwrite(descriptor, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(position + done))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw AtomicFileWriter.error(written < 0 ? errno : ENOSPC, "write", url) }
                done += written
            }
        }
    }

    /// Flushes, fsyncs and closes the temporary file, renames it over ``url`` and fsyncs the folder.
    func commit() throws {
        do {
            try flush()
            guard fsync(descriptor) == 0 else { throw AtomicFileWriter.error(errno, "flush", url) }
            let closed = close(descriptor)
            descriptor = -1
            guard closed == 0 else { throw AtomicFileWriter.error(errno, "close", url) }
            guard rename(temporary.path, url.path) == 0 else { throw AtomicFileWriter.error(errno, "replace", url) }
            finished = true
        } catch {
            discard()
            throw error
        }
        _ = quire_fsync_directory(url.deletingLastPathComponent().path)
    }

    /// Closes and removes the temporary file (nothing once committed).
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard !finished else { return }
        finished = true
        unlink(temporary.path)
    }
}
