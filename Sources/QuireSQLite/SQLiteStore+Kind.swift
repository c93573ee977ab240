import Foundation
import QuireCore
@_spi(QuireEngine) import QuireStores

extension StoreKind {
    /// SQLite: Core Data's schema; metadata in `Z_METADATA`, the embedded model in `Z_QUIREMODEL`; `-wal`,
    /// `-shm` and `-journal` files beside it while open.
    package static let sqlite: StoreKind = {
        var kind = StoreKind(type: .sqlite, backend: SQLiteStore.self)
        kind.readModelCache = { try SQLiteStore.readModelCache(at: $0) }
        kind.recognizes = { $0.starts(with: SQLiteFileCheck.headerMagic) }
        kind.sideFileSuffixes = SQLiteFileCheck.sideFileSuffixes
        kind.derivedSideFileSuffixes = [SQLiteFileCheck.sharedMemorySuffix]
        kind.supportFolderDropsExtension = true
        kind.fileExtensions = ["sqlite", "sqlite3", "db"]
        kind.prepareForReplacement = { try SQLiteStore.prepareForReplacement($0) }
        kind.prepareForCopy = { try SQLiteStore.checkpoint($0) }
        kind.checkFile = { try SQLiteStore.integrityProblems(at: $0) }
        kind.checkContents = { try SQLiteStore.contentProblems(at: $0, model: $1) }
        kind.checkBookkeeping = { try SQLiteStore.keyCounterProblems(at: $0, model: $1) }
        kind.copiesByCloning = true
        kind.destinationOptions = { options in
            var options = options
            options.isReadOnly = false
            options.journalMode = .delete
            options.sqlitePragmas["synchronous"] = "OFF"
            return options
        }
        return kind
    }()
}

extension SQLiteStore: ClosedStoreAccess {}
