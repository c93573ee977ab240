import QuireCore
@_spi(QuireEngine) import QuireStores
import CQuireSupport
import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension SQLiteStore {
    /// Writes a consistent copy of the open database to a new file, as a rollback-journal database (no `-wal`
    /// or `-shm` beside it), synced: the file itself when it is the whole database (``copyWholeFile(_:to:)``),
    /// otherwise with SQLite's online backup API in one step (so no other write interleaves), the copy then
    /// turned into a rollback-journal database and closed (`synchronous = FULL`).
    ///
    /// Called under the coordinator's lock.
    ///
    /// - Throws: ``QuireError`` naming the destination when it cannot be written (a full disk, a read-only
    ///   folder); the partial copy is removed.
    package func writeSnapshot(to destination: URL) throws {
        let source = try db()
        guard let sourceHandle = source.handle else { throw readOnlyError() }
        if try copyWholeFile(source, to: destination) { return }
        let copy = try SQLiteConnection(url: destination, readOnly: false, create: true)
        do {
            guard let copyHandle = copy.handle, let backup = sqlite3_backup_init(copyHandle, "main", sourceHandle, "main") else {
                throw copy.lastError(SQLITE_ERROR, action: "start a backup of '\(storeURL.path)'")
            }
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw Self.spaceError(copyHandle, destination) ?? copy.lastError(step == SQLITE_DONE ? finish : step, action: "back up '\(storeURL.path)'")
            }
            do {
                try copy.execute("PRAGMA synchronous = FULL; PRAGMA journal_mode = DELETE")
            } catch {
                throw Self.spaceError(copyHandle, destination) ?? error
            }
            copy.close()
        } catch {
            copy.close()
            for suffix in [""] + SQLiteFileCheck.sideFileSuffixes { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
            throw error
        }
    }

    /// Copies the database file as it is, in large pieces, when the file alone is the database: a write-ahead
    /// log checkpointed to its end (empty), or none. The file is read through SQLite's own handle of it (no
    /// second descriptor, whose closing would drop the connection's POSIX locks), inside a read transaction
    /// begun with the log empty, which holds every checkpoint off the file until the copy is done; the copy is
    /// made a rollback-journal database and synced. Returns false, having written nothing, when the log is not
    /// empty (another process's connection holds it, or the store is read-only): the backup API copies the
    /// database then.
    ///
    /// Copying the file costs what copying any file costs; the backup API copies it page by page through both
    /// databases' page caches (`save-as-1m-sqlite`: about twice a file copy). Each megabyte written is handed
    /// to the disk at once (``quire_start_writeback``), so the copy's fsync does not wait for the whole file.
    private func copyWholeFile(_ source: SQLiteConnection, to destination: URL) throws -> Bool {
        guard let handle = source.handle, !options.isReadOnly else { return false }
        // Without waiting for other connections' readers (SQLite waits up to the busy timeout otherwise); not an
        // error when it cannot finish: the log is then found not empty below.
        let timeout = try source.prepare("PRAGMA busy_timeout")
        let milliseconds = try timeout.step() ? Int32(clamping: timeout.int64(at: 0)) : 0
        timeout.finalize()
        sqlite3_busy_timeout(handle, 0)
        try? source.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite3_busy_timeout(handle, milliseconds)
        try source.execute("BEGIN")
        defer { try? source.execute("COMMIT") }
        let size = try source.prepare("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        defer { size.finalize() }
        guard try size.step() else { return false }
        let length = size.int64(at: 0)
        // The read transaction has begun (the statement above read the schema): with the log empty, it reads
        // the file alone, and no checkpoint may write the file while it lasts.
        var status = stat()
        if stat(storeURL.path + "-wal", &status) == 0, status.st_size > 0 { return false }
        // SQLITE_FCNTL_FILE_POINTER answers the connection's `sqlite3_file` of the main database, which stays
        // open (and is used by this connection only, under the coordinator's lock) until the connection closes;
        // its methods' xRead is SQLite's public VFS interface.
        var pointer: UnsafeMutableRawPointer?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
            let file = pointer?.assumingMemoryBound(to: sqlite3_file.self), let read = file.pointee.pMethods?.pointee.xRead
        else { return false }
        let output = Glibc.open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw AtomicFileWriter.error(errno, "create", destination) }
        var failure: (any Error)?
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        copying: while offset < length {
            let count = Int(min(Int64(chunkSize), length - offset))
            let code = read(file, buffer, Int32(count), offset)
            guard code == SQLITE_OK else {
                failure = SQLiteConnection.error(code: code, message: "read failed", url: storeURL, action: "copy '\(storeURL.path)'")
                break
            }
            if offset == 0 && count >= 100 {
                // The file format's read and write versions (bytes 18 and 19 of the header): 2 marks a database in
                // write-ahead-log mode, 1 one with a rollback journal. The log being empty, the copy is made a
                // rollback-journal database by these two bytes, as `PRAGMA journal_mode = DELETE` would make it
                // (without opening the copy, switching its mode and syncing it four more times).
                for index in 18...19 where buffer.load(fromByteOffset: index, as: UInt8.self) == 2 {
                    buffer.storeBytes(of: 1, toByteOffset: index, as: UInt8.self)
                }
            }
            var written = 0
            while written < count {
                let result = Glibc.write(output, buffer.advanced(by: written), count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = AtomicFileWriter.error(errno, "write", destination)
                    break copying
                }
                written += result
            }
            // The disk writes this piece while the next is copied: the final fsync has little left to wait for.
            _ = quire_start_writeback(output, off_t(offset), off_t(count))
            offset += Int64(count)
        }
        if failure == nil && fsync(output) != 0 { failure = AtomicFileWriter.error(errno, "flush", destination) }
        Glibc.close(output)
        if let failure {
            unlink(destination.path)
            throw failure
        }
        return true
    }

    /// A full disk or a file size limit reached while writing a snapshot, told apart from other I/O errors
    /// by the errno SQLite saw.
    private static func spaceError(_ handle: OpaquePointer, _ destination: URL) -> QuireError? {
        let code = sqlite3_system_errno(handle)
        guard code == ENOSPC || code == EFBIG || code == EDQUOT else { return nil }
        return QuireError(
            .fileWriteOutOfSpace,
            "Unable to write the store snapshot '\(destination.path)': the disk is full or a file size limit was reached.",
            context: .init(file: destination), underlying: SystemCallError(code: code, function: "write"))
    }
}
