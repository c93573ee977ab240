import QuireCore
import QuireStores
import Foundation

extension PersistentDocument {
    /// Migrates the working store into a document type's store type and options before Save As writes it,
    /// when they differ from the store's current ones (``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)``),
    /// so the context's objects keep working and now live in the new store.
    ///
    /// The coordinator writes the new store once, beside the old one in the working tree, and renames it into
    /// the store's place in the package layout. The document on disk is untouched until the save swaps the
    /// new version in.
    ///
    /// - Throws: the migration's errors; the old store then stays attached and the working tree unchanged.
    func moveWorkingStore(to type: DocumentType) throws {
        guard let old = persistentStoreCoordinator.persistentStores.first else { return }
        if old.type == type.storeType && old.options == type.storeOptions && old.configurationName == type.modelConfiguration {
            return
        }
        try persistentStoreCoordinator.migratePersistentStore(
            old, to: workingStoreURL, options: type.storeOptions, type: type.storeType)
    }
}
