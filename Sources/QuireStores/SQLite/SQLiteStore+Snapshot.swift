import QuireCore
import CSQLite
import Foundation

extension SQLiteStore {
    /// Writes a consistent copy of the open database to a new file with SQLite's online backup API, in one
    /// step (so no other write interleaves), then turns the copy into a rollback-journal database (no `-wal`
    /// or `-shm` beside it) and closes it. The copy is synced by SQLite (`synchronous = FULL`).
    ///
    /// Called under the coordinator's lock.
    ///
    /// - Throws: ``QuireError`` naming the destination when it cannot be written (a full disk, a read-only
    ///   folder); the partial copy is removed.
    package func writeSnapshot(to destination: URL) throws {
        let source = try db()
        guard let sourceHandle = source.handle else { throw readOnlyError() }
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
