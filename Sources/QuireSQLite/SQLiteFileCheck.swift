import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// Checks a file before SQLite opens it, so that a non-database, a truncated database or a read-only file
/// is refused with a clear error and nothing is written (SQLite would otherwise create `-wal` files, or
/// treat some garbage as an empty database).
enum SQLiteFileCheck {
    /// What the check found.
    package enum State {
        /// No file yet: the store will create it.
        case missing
        /// An empty file: the store will create its schema in it.
        case empty
        /// An SQLite database that looks whole.
        case database
    }

    static let headerMagic = Array("SQLite format 3\0".utf8)
    /// The files SQLite keeps beside a database while it is open (or after a crash): the one list of them.
    static let sideFileSuffixes = ["-wal", sharedMemorySuffix, "-journal"]
    /// The suffix of the write-ahead log's shared-memory index, which SQLite rebuilds from the log.
    static let sharedMemorySuffix = "-shm"

    /// Checks the file at `url`.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` for a missing file opened read-only,
    ///   ``QuireError/Code/fileReadCorruptFile`` for a file that is not an SQLite database or is truncated,
    ///   ``QuireError/Code/fileWriteNoPermission`` for a read-only file opened for writing.
    static func check(_ url: URL, readOnly: Bool) throws -> State {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if readOnly {
                throw QuireError(
                    .fileReadNoSuchFile, "There is no store at '\(path)' to open read-only.", context: .init(file: url))
            }
            return .missing
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw QuireError(
                .fileReadCorruptFile, "The store path '\(path)' is not a regular file.", context: .init(file: url))
        }
        if !readOnly, let refusal = StoreFileAccess.writeRefusal(path, status) {
            throw QuireError(
                .fileWriteNoPermission,
                "The store '\(path)' is a read-only file (\(refusal.reason)); add it with the read-only option to read it.",
                context: .init(file: url), underlying: refusal.error)
        }
        let size = Int64(status.st_size)
        if size == 0 { return .empty }
        // Closing a descriptor of a file drops every POSIX lock this process holds on it, including the
        // shared lock an open SQLite connection keeps in WAL mode; another process could then believe no one
        // has the database open, checkpoint it and delete its WAL under that connection. A file this process
        // already has open as a store was checked when it was first opened, so it is not opened again here.
        if OpenFiles.contains(status) { return .database }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw QuireError(.fileReadNoPermission, "The store '\(path)' cannot be read.", context: .init(file: url))
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard header.count >= 16, Array(header.prefix(16)) == headerMagic else {
            throw QuireError(
                .fileReadCorruptFile, "The file '\(path)' is not an SQLite database.", context: .init(file: url))
        }
        guard header.count == 100 else {
            throw QuireError(
                .fileReadCorruptFile, "The SQLite database '\(path)' is truncated (\(size) bytes, shorter than its header).",
                context: .init(file: url, position: Int(size)))
        }
        let bytes = [UInt8](header)
        func bigEndian32(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { ($0 << 8) | UInt32($1) }
        }
        let rawPageSize = (Int(bytes[16]) << 8) | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw QuireError(
                .fileReadCorruptFile, "The SQLite database '\(path)' has a corrupt header (page size \(rawPageSize)).",
                context: .init(file: url, position: 16))
        }
        let pageCount = Int64(bigEndian32(28))
        let headerSizeValid = bigEndian32(24) == bigEndian32(92) && pageCount > 0
        if size % Int64(pageSize) != 0 || (headerSizeValid && size < pageCount * Int64(pageSize)) {
            throw QuireError(
                .fileReadCorruptFile,
                "The SQLite database '\(path)' is truncated (\(size) bytes; its header promises "
                    + "\(headerSizeValid ? pageCount * Int64(pageSize) : Int64(pageSize)) or more).",
                context: .init(file: url, position: Int(size)))
        }
        return .database
    }

    /// Whether a read-only open should use SQLite's immutable mode: the database is in WAL mode (header bytes
    /// 18-19 = 2) and has neither a `-wal` nor a `-shm` file, so no connection has it open and the file holds
    /// every committed transaction. SQLite would otherwise create both side files for a read-only connection
    /// and, being read-only, leave them behind when it closes. With a `-wal` or `-shm` file present (another
    /// connection, or a crash before a checkpoint) the normal read-only mode is used, so the WAL's
    /// transactions are read; SQLite creates nothing then, the files being there already.
    static func opensImmutable(_ url: URL) -> Bool {
        let path = url.path
        for suffix in sideFileSuffixes where FileManager.default.fileExists(atPath: path + suffix) { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 20)) ?? Data())
        return header.count == 20 && Array(header.prefix(16)) == headerMagic && (header[18] == 2 || header[19] == 2)
    }
}

/// The store files this process has open through SQLite, by device and inode, so that
/// ``SQLiteFileCheck`` does not open (and close) them again.
enum OpenFiles {
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let counts = LockedValue<[Key: Int]>([:])

    private static func key(_ status: stat) -> Key {
        Key(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Whether a store of this process has the file open.
    static func contains(_ status: stat) -> Bool {
        let key = key(status)
        return counts.withLock { $0[key, default: 0] > 0 }
    }

    /// Notes that a store opened the file at `path`; returns a token for ``closed(_:)``.
    static func opened(_ path: String) -> AnyHashable? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let key = key(status)
        counts.withLock { $0[key, default: 0] += 1 }
        return AnyHashable(key)
    }

    /// Notes that the store holding `token` closed its file.
    static func closed(_ token: AnyHashable?) {
        guard let key = token?.base as? Key else { return }
        counts.withLock { counts in
            let remaining = counts[key, default: 0] - 1
            counts[key] = remaining > 0 ? remaining : nil
        }
    }
}
