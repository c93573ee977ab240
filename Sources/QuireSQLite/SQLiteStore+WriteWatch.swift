import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// What an SQLite store keeps while it watches for other connections' commits.
final class SQLiteWriteWatch {
    let watcher: FileChangeWatcher
    /// `PRAGMA data_version` of the store's connection when last asked.
    var dataVersion: Int64

    init(watcher: FileChangeWatcher, dataVersion: Int64) {
        self.watcher = watcher
        self.dataVersion = dataVersion
    }
}

extension SQLiteStore: WriteObservingStoreBackend {
    /// Watches the store's file and its `-wal` and `-journal` files: a commit by any connection writes one of them.
    package func startWatchingForWrites(_ changed: @escaping @Sendable () -> Void) throws {
        guard writeWatch == nil, let connection else { return }
        let version = try dataVersion(connection)
        let name = storeURL.lastPathComponent
        let watcher = try FileChangeWatcher(
            folder: storeURL.deletingLastPathComponent(), names: [name, name + "-wal", name + "-journal"], changed: changed)
        writeWatch = SQLiteWriteWatch(watcher: watcher, dataVersion: version)
    }

    package func stopWatchingForWrites() {
        writeWatch?.watcher.stop()
        writeWatch = nil
    }

    /// Whether another connection (another coordinator, another process) committed since the last call: SQLite's
    /// `data_version` of this store's own connection changes with every commit but its own. Which records changed
    /// is not known.
    package func takeForeignWrites() throws -> StoreWrite? {
        guard let watch = writeWatch, let connection else { return nil }
        let version = try dataVersion(connection)
        guard version != watch.dataVersion else { return nil }
        watch.dataVersion = version
        return StoreWrite(everything: true)
    }

    private func dataVersion(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.prepare("PRAGMA data_version")
        defer { statement.finalize() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }
}
