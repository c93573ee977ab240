import QuireCore
import QuireStores
import CQuireSupport
import Foundation

/// The file-system operations documents are built from: exclusive creation, copies, hard links, fsync of files
/// and folders, renames and exchanges, each failing with a ``QuireError`` that names the file and the cause.
///
/// Nothing here follows a symbolic link: documents hold regular files and folders only.
enum DocumentFiles {
    /// What a path is, seen with `lstat` (a link is a link, never what it points at).
    enum Kind: Equatable {
        case missing
        case file(size: Int64)
        case directory
        case symbolicLink
        case other
    }

    /// The kind of the item at a URL, without following a final symbolic link.
    static func kind(of url: URL) -> Kind {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return .missing }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(status.st_size))
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// A `QuireError` for a failed system call, with the code Foundation gives that `errno`
    /// (``QuireError/Code/init(errno:reading:)``).
    static func failure(_ code: Int32, _ function: String, _ sentence: String, url: URL, writing: Bool = true) -> QuireError {
        QuireError.systemCall(code, function: function, sentence, file: url, reading: !writing)
    }

    // MARK: Creating

    /// Creates a folder (its parent must exist).
    static func makeDirectory(_ url: URL, mode: mode_t = 0o755) throws {
        guard mkdir(url.path, mode) == 0 else {
            throw failure(errno, "mkdir", "Unable to create the folder '\(url.path)'", url: url)
        }
    }

    /// Writes a new file (it must not exist yet), then fsyncs it.
    static func writeNewFile(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure(errno, "open", "Unable to create the file '\(url.path)'", url: url) }
        defer { close(fd) }
        try data.withUnsafeBytes { buffer in try writeAll(fd, buffer, url: url) }
        guard fsync(fd) == 0 else { throw failure(errno, "fsync", "Unable to flush the file '\(url.path)' to disk", url: url) }
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, url: URL) throws {
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(errno, "write", "Unable to write the file '\(url.path)'", url: url)
            }
            offset += written
        }
    }

    /// Copies a regular file to a new file (which must not exist), then fsyncs the copy. Refuses anything but
    /// a regular file as the source.
    static func copyFile(from source: URL, to destination: URL, mode: mode_t = 0o644) throws {
        try FileClone.clone(source, to: destination, mode: mode, notRegularFile: .invalidPackage)
    }

    /// Copies a regular file to a new file (which must not exist) without syncing it: for scratch copies, such
    /// as a document's working copy, which a crash may lose without losing anything of the document.
    static func copyScratchFile(from source: URL, to destination: URL, mode: mode_t = 0o600) throws {
        try FileClone.clone(source, to: destination, mode: mode, notRegularFile: .invalidPackage, syncs: false)
    }

    /// Hard-links a write-once file into a new tree, or copies it where a link is impossible (another
    /// filesystem, or one without hard links).
    static func linkOrCopy(from source: URL, to destination: URL) throws {
        if link(source.path, destination.path) == 0 { return }
        let code = errno
        guard code == EXDEV || code == EPERM || code == EMLINK || code == ENOTSUP || code == EOPNOTSUPP else {
            throw failure(code, "link", "Unable to link '\(source.path)' into '\(destination.path)'", url: destination)
        }
        try copyFile(from: source, to: destination)
    }

    // MARK: Durability

    /// Fsyncs a regular file.
    static func fsyncFile(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno, "open", "Unable to open '\(url.path)' to flush it", url: url) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure(errno, "fsync", "Unable to flush the file '\(url.path)' to disk", url: url) }
    }

    /// Fsyncs a folder, so that the names created, removed or renamed in it are durable.
    static func fsyncDirectory(_ url: URL) throws {
        guard quire_fsync_directory(url.path) == 0 else {
            throw failure(quire_errno(), "fsync", "Unable to flush the folder '\(url.path)' to disk", url: url)
        }
    }

    /// Fsyncs every file and folder of a tree, folders after what they contain.
    static func fsyncTree(_ url: URL) throws {
        switch kind(of: url) {
        case .file: try fsyncFile(url)
        case .directory:
            for child in try children(of: url) { try fsyncTree(child) }
            try fsyncDirectory(url)
        default: break
        }
    }

    /// The items of a folder (not `.` and `..`), sorted by name.
    static func children(of url: URL) throws -> [URL] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map { url.appendingPathComponent($0) }
        } catch {
            throw QuireError(
                .fileReadUnknown, "Unable to list the folder '\(url.path)'.", context: .init(file: url),
                underlying: SystemCallError(code: EIO, function: "opendir"))
        }
    }

    // MARK: Renames

    /// Exchanges two paths atomically (`renameat2(RENAME_EXCHANGE)`).
    ///
    /// - Returns: `false` when the filesystem or kernel cannot exchange (the caller falls back to two renames).
    static func exchange(_ first: URL, _ second: URL) throws -> Bool {
        if quire_rename_exchange(first.path, second.path) == 0 { return true }
        let code = quire_errno()
        if code == EINVAL || code == ENOSYS || code == ENOTSUP || code == EOPNOTSUPP { return false }
        throw failure(code, "renameat2", "Unable to exchange '\(first.path)' with '\(second.path)'", url: second)
    }

    /// Renames an item, replacing a file at the destination.
    static func rename(_ source: URL, to destination: URL) throws {
        guard Glibc.rename(source.path, destination.path) == 0 else {
            throw failure(errno, "rename", "Unable to rename '\(source.path)' to '\(destination.path)'", url: destination)
        }
    }

    /// Removes a file or a whole tree, never following links; missing items are fine. Trees deeper than
    /// `PATH_MAX`, which FileManager cannot remove, are removed relative to open folders (``removeDeepTree(_:)``).
    static func removeTree(_ url: URL) {
        guard kind(of: url) != .missing else { return }
        try? FileManager.default.removeItem(atPath: url.path)
        if kind(of: url) == .directory { removeDeepTree(url) }
    }

    /// Removes a folder tree of any depth with `openat`/`unlinkat`, one open folder at a time (going back up
    /// through `..`), so neither `PATH_MAX` nor the limit on open files stops it. Best effort: what cannot be
    /// removed stays.
    static func removeDeepTree(_ url: URL) {
        var fd = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        var names: [String] = []
        while true {
            // Unlink what is not a folder; go down into the first folder.
            var descended = false
            for name in entryNames(of: fd) {
                if unlinkat(fd, name, 0) == 0 { continue }
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { continue }
                close(fd)
                fd = child
                names.append(name)
                descended = true
                break
            }
            if descended { continue }
            // The folder is as empty as it gets: go back up and remove it.
            guard let name = names.popLast() else { break }
            let parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(fd)
            guard parent >= 0 else { return }
            fd = parent
            if unlinkat(fd, name, AT_REMOVEDIR) != 0 { break }
        }
        close(fd)
        rmdir(url.path)
    }

    /// The names in an open folder, without `.` and `..`; the descriptor stays open.
    private static func entryNames(of fd: Int32) -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let directory = fdopendir(copy) else { return [] }
        defer { closedir(directory) }
        rewinddir(directory)  // the copy shares its offset with `fd`, which an earlier listing moved
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
