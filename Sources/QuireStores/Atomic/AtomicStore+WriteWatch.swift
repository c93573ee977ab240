import QuireCore
import Foundation

/// What an atomic store keeps while it watches its file for other writers.
final class AtomicWriteWatch {
    let watcher: FileChangeWatcher
    /// The file's stamp when another writer's write was last reported.
    var reported: FileStamp?

    init(watcher: FileChangeWatcher) { self.watcher = watcher }
}

extension AtomicStore: WriteObservingStoreBackend {
    /// Watches the store's file (nothing for the in-memory store, which no one else can write).
    package func startWatchingForWrites(_ changed: @escaping @Sendable () -> Void) throws {
        guard persistsToFile, writeWatch == nil else { return }
        let url = fileURL
        writeWatch = AtomicWriteWatch(
            watcher: try FileChangeWatcher(folder: url.deletingLastPathComponent(), names: [url.lastPathComponent], changed: changed))
    }

    package func stopWatchingForWrites() {
        writeWatch?.watcher.stop()
        writeWatch = nil
    }

    /// Whether another writer replaced or rewrote the file: its stamp is neither the one this store read or wrote
    /// nor the one reported last. Which records changed is not known (this store goes on with the records it has).
    package func takeForeignWrites() throws -> StoreWrite? {
        guard let watch = writeWatch, let current = FileStamp(fileURL), current != fileStamp, current != watch.reported else {
            return nil
        }
        watch.reported = current
        return StoreWrite(everything: true)
    }
}
