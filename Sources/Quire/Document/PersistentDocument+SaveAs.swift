import QuireCore
import QuireStores
import Foundation

extension PersistentDocument {
    /// Migrates the working store into a document type's store type and options before Save As writes it,
    /// when they differ from the store's current ones (``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)``),
    /// so the context's objects keep working and now live in the new store.
    ///
    /// The new store is written beside the old one in the working tree, the old one's files (its support
    /// folder of external data included) are deleted, and the new one takes the store's place in the package
    /// layout. The document on disk is untouched until the save swaps the new version in.
    ///
    /// - Throws: the migration's errors; the old store then stays attached and the working tree unchanged.
    func moveWorkingStore(to type: DocumentType) throws {
        guard let old = persistentStoreCoordinator.persistentStores.first else { return }
        if old.type == type.storeType && old.options == type.storeOptions && old.configurationName == type.modelConfiguration {
            return
        }
        let staging = workingStoreURL.deletingLastPathComponent().appendingPathComponent(".persistentStore-saveas")
        Self.removeStoreFiles(at: staging)
        let new = try persistentStoreCoordinator.migratePersistentStore(
            old, to: staging, options: type.storeOptions, type: type.storeType)
        // The old store is detached now; its files go, and the new store moves into the layout's place.
        Self.removeStoreFiles(at: workingStoreURL)
        try persistentStoreCoordinator.locked {
            try new.backend.close()
            let stagingSupport = ExternalDataFolder.supportFolder(forStore: staging)
            if FileManager.default.fileExists(atPath: stagingSupport.path) {
                try DocumentFiles.rename(stagingSupport, to: ExternalDataFolder.supportFolder(forStore: workingStoreURL))
            }
            try DocumentFiles.rename(staging, to: workingStoreURL)
            new.url = workingStoreURL
            try new.backend.load()
        }
        // Recorded undo actions name the old store's objects.
        managedObjectContext.performAndWait {
            managedObjectContext.undoManager?.removeAllActions()
            managedObjectContext.undoState.permanentIDs = [:]
        }
    }

    /// Deletes a store file with its journal files and its support folder, if they exist.
    private static func removeStoreFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { DocumentFiles.removeTree(URL(fileURLWithPath: url.path + suffix)) }
        DocumentFiles.removeTree(ExternalDataFolder.supportFolder(forStore: url))
    }
}
