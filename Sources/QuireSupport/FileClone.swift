import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Copies one regular file to a new path: a reflink where the file system shares blocks (`FICLONE`), a
/// kernel copy otherwise, then `fsync`. The one file-copying helper of Quire: store snapshots, external data
/// files that cannot be hard-linked, and document members all go through it.
package enum FileClone {
    /// Copies `source` to `target`, which must not exist; the copy is synced before this returns unless
    /// `syncs` is false (scratch copies whose loss in a crash loses nothing, such as a document's working copy).
    ///
    /// Symbolic links are not followed on either side, and a source that is not a regular file is refused. On
    /// any failure the partial target is removed, so nothing half-written is left behind.
    ///
    /// - Throws: ``QuireError`` naming the file and the failing call (``QuireError/Code/fileWriteOutOfSpace``
    ///   for a full disk), or `notRegularFile` (``QuireError/Code/fileReadCorruptFile`` unless told otherwise) for
    ///   a source that is not a regular file.
    package static func clone(
        _ source: URL, to target: URL, mode: mode_t = 0o644, notRegularFile: QuireError.Code = .fileReadCorruptFile,
        syncs: Bool = true
    ) throws {
        let input = open(source.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else { throw AtomicFileWriter.error(errno, "open", source, reading: true) }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw QuireError(notRegularFile, "The item '\(source.path)' is not a regular file.", context: .init(file: source))
        }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard output >= 0 else { throw AtomicFileWriter.error(errno, "create", target) }
        var failure: QuireError?
        if quire_clone_file(input, output) < 0 {
            failure = AtomicFileWriter.error(errno, "copy into", target)
        } else if syncs && fsync(output) != 0 {
            failure = AtomicFileWriter.error(errno, "flush", target)
        }
        close(output)
        if let failure {
            unlink(target.path)
            throw failure
        }
    }
}
