import Foundation

// Save As support until the coordinator can migrate a store.
//
// SWITCH-OVER: when `PersistentStoreCoordinator.migratePersistentStore(_:to:options:type:)` lands, replace the
// body of `moveWorkingStore(to:)` below with one call to it (migrating the working store to
// `workingStoreURL` in the target type's store type and options, which re-points the context's objects) and
// delete the rest of this file. Nothing else in the document depends on how the store is copied.

extension PersistentDocument {
    /// Re-opens the working store in a document type's store type and options before Save As writes it, when
    /// they differ from the store's current ones, and re-points the context's objects to the new store.
    ///
    /// Today: SQLite to SQLite only (a consistent snapshot through the backup API, then the store is added
    /// again with the new options and every registered object gets the ID with the same primary key in the new
    /// store). The undo history is cleared, since its recorded IDs name the old store.
    ///
    /// - Throws: ``QuireError/Code/migration`` for a change of store type, until the coordinator migrates
    ///   stores; store errors otherwise.
    func moveWorkingStore(to type: DocumentType) throws {
        guard let old = persistentStoreCoordinator.persistentStores.first else { return }
        if old.type == type.storeType && old.options == type.storeOptions && old.configurationName == type.modelConfiguration {
            return
        }
        guard let sqlite = old as? SQLiteStore, type.storeType == .sqlite else {
            throw QuireError(
                .migration,
                "Save As from a \(old.type) store to a \(type.storeType) store needs store migration, which this "
                    + "version of Quire does not have yet.",
                context: .init(file: old.url))
        }
        let copy = workingStoreURL.deletingLastPathComponent().appendingPathComponent(".persistentStore-copy")
        for suffix in ["", "-journal"] { DocumentFiles.removeTree(URL(fileURLWithPath: copy.path + suffix)) }
        try persistentStoreCoordinator.locked { try sqlite.writeSnapshot(to: copy) }
        try persistentStoreCoordinator.remove(old)
        for suffix in ["-wal", "-shm", "-journal"] { DocumentFiles.removeTree(URL(fileURLWithPath: workingStoreURL.path + suffix)) }
        try DocumentFiles.rename(copy, to: workingStoreURL)
        let new = try persistentStoreCoordinator.addPersistentStore(
            type: type.storeType, configuration: type.modelConfiguration, at: workingStoreURL, options: type.storeOptions)
        repointObjects(from: old, to: new)
    }

    /// Gives every object of the context that lived in `old` the ID with the same primary key in `new`, in its
    /// registration and in every relationship value.
    private func repointObjects(from old: PersistentStore, to new: PersistentStore) {
        let context = managedObjectContext
        context.performAndWait {
            var map: [ObjectID: ObjectID] = [:]
            func moved(_ id: ObjectID) -> ObjectID {
                guard id.persistentStore === old, let key = id.primaryKey else { return id }
                if let known = map[id] { return known }
                let newID = ObjectID(entity: id.entity, store: new, primaryKey: key)
                map[id] = newID
                return newID
            }
            let objects = context.registry.removeAll()
            for object in objects {
                object.objectID = moved(object.objectID)
                for storage in object.relationshipStorage { for id in storage.objectIDs { _ = moved(id) } }
                for storage in object.committedRelationships ?? [] { for id in storage.objectIDs { _ = moved(id) } }
            }
            for object in objects {
                object.relationshipStorage.indices.forEach { object.relationshipStorage[$0].remap(map) }
                if object.committedRelationships != nil {
                    object.committedRelationships?.indices.forEach { object.committedRelationships?[$0].remap(map) }
                }
                context.register(object)
            }
            context.undoManager?.removeAllActions()
            context.undoState.permanentIDs = [:]
        }
    }
}
