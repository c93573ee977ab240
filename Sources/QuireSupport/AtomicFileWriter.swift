import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole file so that a crash leaves the old version or the new one, never a mix: a temporary file
/// in the same folder, written and fsynced, renamed over the target, then the folder fsynced.
package enum AtomicFileWriter {
    /// Writes `chunks` one after the other as the new content of `url`.
    ///
    /// - Throws: ``QuireError/Code/fileWriteOutOfSpace`` when the disk is full,
    ///   ``QuireError/Code/fileWriteNoPermission`` when the folder is not writable, or the other code Foundation
    ///   gives the errno (``QuireError/Code/init(errno:reading:)``); the target is untouched and the temporary
    ///   file removed.
    package static func write(_ chunks: [Data], to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error(errno, "create a temporary file beside", url) }
        do {
            for chunk in chunks { try writeAll(descriptor, chunk, url) }
            guard fsync(descriptor) == 0 else { throw error(errno, "flush", url) }
            guard close(descriptor) == 0 else {
                throw error(errno, "close", url)
            }
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw error(code, "replace", url)
        }
        _ = quire_fsync_directory(folder.path)
    }

    /// Writes every byte of `data` to a descriptor, retrying short writes and interruptions.
    ///
    /// Data of more than ``writebackPiece`` bytes is written in pieces of that size, each handed to the disk
    /// as soon as it is written (``quire_start_writeback``): the disk writes while the next piece is copied,
    /// so the fsync that follows waits for little more than the last piece, and a large file never piles up
    /// dirty pages.
    package static func writeAll(_ descriptor: Int32, _ data: Data, _ url: URL) throws {
        try data.withUnsafeBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            let large = remaining > writebackPiece
            var offset = large ? lseek(descriptor, 0, SEEK_CUR) : -1
            while remaining > 0 {
                let piece = min(remaining, large ? writebackPiece : 1 << 30)
                let written = Glibc.write(descriptor, pointer, piece)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw error(errno, "write", url)
                }
                if offset >= 0 {
                    _ = quire_start_writeback(descriptor, offset, off_t(written))
                    offset += off_t(written)
                }
                pointer += written
                remaining -= written
            }
        }
    }

    /// The size of the pieces ``writeAll(_:_:_:)`` hands to the disk one at a time.
    package static let writebackPiece = 4 << 20

    /// A Quire error for a failed system call on a file, with the code Foundation gives that `errno`
    /// (``QuireError/Code/init(errno:reading:)``).
    package static func error(_ code: Int32, _ action: String, _ url: URL, reading: Bool = false) -> QuireError {
        QuireError(
            QuireError.Code(errno: code, reading: reading),
            "Could not \(action) '\(url.path)': \(String(cString: strerror(code))).", context: .init(file: url),
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
