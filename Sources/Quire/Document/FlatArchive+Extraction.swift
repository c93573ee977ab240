import QuireCore
import QuireStores
import CArchive
import Foundation
import Glibc

extension FlatArchive {
    /// Extracts an archive into `folder` (an existing, empty, private folder).
    ///
    /// Only regular files and folders are accepted. Absolute paths, `..`, symbolic and hard links, devices,
    /// FIFOs and sockets, names that occur twice, entries above ``ArchiveLimits/maximumEntrySize``, archives
    /// expanding above ``ArchiveLimits/maximumTotalSize`` or holding more than
    /// ``ArchiveLimits/maximumEntryCount`` entries, and archives whose entries expand more than
    /// ``ArchiveLimits/maximumCompressionRatio`` times the bytes read (past ``ArchiveLimits/compressionRatioFloor``)
    /// are refused with a ``QuireError`` naming the archive and the entry. Free space is checked before an entry
    /// is written and every few MiB while it is: what would leave the working folder's filesystem with less than
    /// a small reserve (``freeSpaceReserve(of:)``) is refused with ``QuireError/Code/fileWriteOutOfSpace``, and so
    /// is a write the disk cuts short. Paths are checked before libarchive's disk writer sees them, and the writer runs with its secure
    /// flags as a second guard (no symlinks followed, no `..`, no overwriting), so nothing is ever written
    /// outside `folder`. On error the caller removes `folder`.
    static func extract(_ url: URL, into folder: URL, limits: ArchiveLimits) throws {
        let reader = try ArchiveReader(url: url)
        guard let disk = archive_write_disk_new() else {
            throw QuireError(.fileWriteUnknown, "libarchive could not allocate a disk writer for '\(folder.path)'.")
        }
        defer { archive_write_free(disk) }
        // Paths are rewritten to absolute ones inside the (symlink-free) folder after the checks below, so the
        // "no absolute paths" flag cannot be used; the others still guard every component.
        let flags = ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_NO_OVERWRITE
        archive_write_disk_set_options(disk, flags)
        let base = folder.resolvingSymlinksInPath().path
        var seen = Set<String>()
        var total: Int64 = 0
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var sinceSpaceCheck: Int64 = 0
        while let entry = try reader.nextEntry() {
            count += 1
            if count > limits.maximumEntryCount {
                throw QuireError(
                    .archiveLimitExceeded,
                    "The archive '\(url.path)' has more than \(limits.maximumEntryCount) entries.", context: .init(file: url))
            }
            guard let path = try reader.safePath(of: entry) else { continue }
            let type = archive_entry_filetype(entry)
            if let target = archive_entry_hardlink(entry) {
                throw QuireError(
                    .archiveUnsafeEntry,
                    "The archive '\(url.path)' has a hard link '\(path)' to '\(String(cString: target))'; documents hold no links.",
                    context: .init(file: url))
            }
            if archive_entry_symlink(entry) != nil || type == UInt32(Glibc.S_IFLNK) {
                throw QuireError(
                    .archiveUnsafeEntry, "The archive '\(url.path)' has a symbolic link '\(path)'; documents hold no links.",
                    context: .init(file: url))
            }
            guard type == UInt32(Glibc.S_IFREG) || type == UInt32(Glibc.S_IFDIR) else {
                throw QuireError(
                    .archiveUnsafeEntry,
                    "The archive '\(url.path)' has '\(path)', which is a device, FIFO or socket, not a file or folder.",
                    context: .init(file: url))
            }
            guard seen.insert(path).inserted else {
                throw QuireError(
                    .archiveUnsafeEntry, "The archive '\(url.path)' has the name '\(path)' twice.", context: .init(file: url))
            }
            let isDirectory = type == UInt32(Glibc.S_IFDIR)
            // The top-level copy of the search metadata is for indexers; the package keeps Metadata/meta.xml.
            if path == DocumentPackageLayout.archiveMetaXML && !isDirectory { continue }
            if !isDirectory && archive_entry_size_is_set(entry) != 0 && archive_entry_size(entry) > limits.maximumEntrySize {
                throw entryTooLarge(url, path, limits)
            }
            if !isDirectory && archive_entry_size_is_set(entry) != 0 {
                try checkFreeSpace(in: folder, for: archive_entry_size(entry), archive: url, path: path)
            }
            // A clean entry: the checked path under the folder, private permissions, no owner or attributes.
            archive_entry_set_pathname(entry, base + "/" + path)
            archive_entry_set_perm(entry, isDirectory ? 0o700 : 0o600)
            archive_entry_xattr_clear(entry)
            archive_entry_acl_clear(entry)
            archive_entry_set_fflags(entry, 0, 0)
            guard archive_write_header(disk, entry) >= ARCHIVE_WARN else { throw diskError(disk, folder, path) }
            if !isDirectory {
                var written: Int64 = 0
                while true {
                    let read = archive_read_data(reader.archive, &buffer, buffer.count)
                    if read < 0 { throw reader.invalid("is truncated or corrupt at entry '\(path)'") }
                    if read == 0 { break }
                    written += Int64(read)
                    total += Int64(read)
                    if written > limits.maximumEntrySize { throw entryTooLarge(url, path, limits) }
                    if total > limits.maximumTotalSize {
                        throw QuireError(
                            .archiveLimitExceeded,
                            "The archive '\(url.path)' expands to more than \(limits.maximumTotalSize) bytes.",
                            context: .init(file: url))
                    }
                    if total > limits.compressionRatioFloor {
                        let consumed = max(archive_filter_bytes(reader.archive, -1), 1)
                        if total / consumed > limits.maximumCompressionRatio {
                            throw QuireError(
                                .archiveLimitExceeded,
                                "The entry '\(path)' of the archive '\(url.path)' expands more than "
                                    + "\(limits.maximumCompressionRatio) times (\(total) bytes from \(consumed)): a zip bomb.",
                                context: .init(file: url))
                        }
                    }
                    sinceSpaceCheck += Int64(read)
                    if sinceSpaceCheck >= spaceCheckInterval {
                        sinceSpaceCheck = 0
                        try checkFreeSpace(in: folder, for: spaceCheckInterval, archive: url, path: path)
                    }
                    let wrote = archive_write_data(disk, buffer, read)
                    guard wrote == read else {
                        // A short write without an errno is how a full disk shows through libarchive.
                        if wrote >= 0 || archive_errno(disk) == 0 { try checkFreeSpace(in: folder, for: Int64(read), archive: url, path: path) }
                        throw diskError(disk, folder, path)
                    }
                }
            }
            guard archive_write_finish_entry(disk) >= ARCHIVE_WARN else { throw diskError(disk, folder, path) }
        }
        guard archive_write_close(disk) >= ARCHIVE_WARN else { throw diskError(disk, folder, "(closing)") }
    }

    /// How many bytes are written between two checks of the free space.
    static let spaceCheckInterval: Int64 = 4 << 20

    /// The free space extraction leaves on a filesystem: 5% of its size, at most 64 MiB.
    static func freeSpaceReserve(of filesystem: statvfs) -> Int64 {
        min(64 << 20, Int64(filesystem.f_blocks) * Int64(filesystem.f_frsize) / 20)
    }

    /// Refuses to write `count` more bytes into `folder` when that would leave its filesystem with less than the
    /// reserve. Filesystems that report no size (ramfs) are not checked.
    ///
    /// - Throws: ``QuireError/Code/fileWriteOutOfSpace`` naming the archive, the entry and the folder.
    static func checkFreeSpace(in folder: URL, for count: Int64, archive url: URL, path: String) throws {
        var filesystem = statvfs()
        guard statvfs(folder.path, &filesystem) == 0, filesystem.f_blocks > 0 else { return }
        let available = Int64(filesystem.f_bavail) * Int64(filesystem.f_frsize)
        let reserve = freeSpaceReserve(of: filesystem)
        guard available - count < reserve else { return }
        throw QuireError(
            .fileWriteOutOfSpace,
            "There is not enough free space in '\(folder.path)' to extract '\(path)' of the archive '\(url.path)' "
                + "(\(available) bytes free, \(count) more needed, \(reserve) kept free).",
            context: .init(file: url), underlying: SystemCallError(code: ENOSPC, function: "statvfs"))
    }

    private static func entryTooLarge(_ url: URL, _ path: String, _ limits: ArchiveLimits) -> QuireError {
        QuireError(
            .archiveLimitExceeded,
            "The entry '\(path)' of the archive '\(url.path)' expands to more than \(limits.maximumEntrySize) bytes.",
            context: .init(file: url))
    }

    private static func diskError(_ disk: OpaquePointer, _ folder: URL, _ path: String) -> QuireError {
        let message = archive_error_string(disk).map { String(cString: $0) } ?? "unknown error"
        let code = archive_errno(disk)
        let quireCode: QuireError.Code = code == ENOSPC || code == EFBIG || code == EDQUOT ? .fileWriteOutOfSpace : .archiveUnsafeEntry
        return QuireError(
            quireCode, "Unable to extract '\(path)' into '\(folder.path)' (\(message)).", context: .init(file: folder),
            underlying: code > 0 ? SystemCallError(code: code, function: "archive_write_disk") : nil)
    }
}
