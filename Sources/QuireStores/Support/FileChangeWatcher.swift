import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Watches some files of one folder with inotify and calls a handler, on a thread of its own, after they were
/// written, created, replaced or removed: how a store notices that another coordinator or another process wrote
/// its file. Events that come within a few milliseconds of each other (the pages of one commit) make one call, and
/// the handler is called again 20, 100 and 500 ms after a burst (a commit may become visible after its last write).
///
/// The handler only learns that the files may have changed; the store tells its own writes from others' (SQLite's
/// `data_version`, an atomic store's file stamp). Writes of this process are seen too.
///
/// `@unchecked Sendable`: the descriptors are set by the initializer and closed by `deinit` only; `deinit` cannot run
/// while the watching thread runs (the thread holds the watcher), so no descriptor is used after it is closed (nor
/// a reused number written to). The watching thread is the only one that reads them; ``stop()`` writes one byte to
/// the wake-up pipe. `stopped` is behind its lock.
package final class FileChangeWatcher: @unchecked Sendable {
    private let notifications: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let names: Set<String>
    private let changed: @Sendable () -> Void
    private let stopped = LockedValue(false)

    /// Starts watching `names` in `folder`.
    ///
    /// - Parameters:
    ///   - folder: The folder the files are in (watched itself, so files created later count).
    ///   - names: The file names to watch (a store and its side files).
    ///   - changed: Called after each burst of writes to those files.
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` when inotify cannot watch the folder (the system's
    ///   limit of watches, a folder that is gone).
    package init(folder: URL, names: Set<String>, changed: @escaping @Sendable () -> Void) throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Self.error("start inotify", folder) }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(descriptor, folder.path, mask) >= 0 else {
            let error = Self.error("watch", folder)
            Glibc.close(descriptor)
            throw error
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let error = Self.error("make a wake-up pipe to watch", folder)
            Glibc.close(descriptor)
            throw error
        }
        // Not inherited by child processes (`pipe2` needs `_GNU_SOURCE`, which the Glibc module does not define).
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        notifications = descriptor
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.names = names
        self.changed = changed
        let thread = Thread { [self] in watch() }
        thread.name = "Quire file watcher"
        thread.start()
    }

    /// Stops watching; the handler is not called after the call that may be running when this returns.
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    deinit {
        Glibc.close(notifications)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    private func watch() {
        var descriptors = [
            pollfd(fd: notifications, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // Calls still to make after the last burst, in milliseconds after the one before.
        var followUps: [Int32] = []
        while !isStopped {
            let ready = poll(&descriptors, 2, followUps.first ?? -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                followUps.removeFirst()
                changed()
                continue
            }
            if descriptors[1].revents != 0 { return }
            var touched = drain(&buffer)
            // The rest of a burst: one call for a commit's several writes.
            while !isStopped, poll(&descriptors, 1, 5) > 0 { touched = drain(&buffer) || touched }
            guard touched, !isStopped else { continue }
            changed()
            // A write can become visible after its last write to the files: SQLite syncs its log, then publishes
            // the commit in its shared-memory index, which inotify does not see. Ask again a little later.
            followUps = [20, 100, 500]
        }
    }

    /// Reads the pending events; whether one named a watched file.
    private func drain(_ buffer: inout [UInt8]) -> Bool {
        var touched = false
        while true {
            // Safe: `read` writes at most the buffer's own byte count into its storage.
            let count = buffer.withUnsafeMutableBytes { Glibc.read(notifications, $0.baseAddress, $0.count) }
            guard count > 0 else { return touched }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    // `inotify_event` is 16 bytes of four 32-bit fields, then `len` bytes of NUL-padded name. Safe:
                    // the loop condition keeps the 4 bytes of `len` (at 12) inside the `count` bytes read, and the
                    // name's range is clamped to them; read unaligned, as the kernel packs events.
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + header
                    let nameEnd = min(nameStart + length, count)
                    if length > 0, nameStart < nameEnd {
                        let raw = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
                        if names.contains(String(decoding: raw, as: UTF8.self)) { touched = true }
                    }
                    offset = nameStart + length
                }
            }
        }
    }

    private static func error(_ action: String, _ folder: URL) -> QuireError {
        QuireError(
            .persistentStoreOperation, "Could not \(action) the folder '\(folder.path)' for changes (errno \(errno)).",
            context: .init(file: folder))
    }
}
