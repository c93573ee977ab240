import QuireCore
import QuireStores
import Foundation

/// External records, at the coordinator: every store kind gets them, and a coordinator none of whose stores
/// asks for them does nothing more per save than check that ``PersistentStoreCoordinator/externalRecordFolders``
/// is empty.
extension PersistentStoreCoordinator {
    /// Readies the records of a store being attached (under the lock), when its options ask for them.
    ///
    /// - Throws: See ``ExternalRecordFolder/init(store:)`` and ``ExternalRecordFolder/attach()``.
    func attachExternalRecords(of store: PersistentStore) throws {
        guard let folder = try ExternalRecordFolder(store: store) else { return }
        try folder.attach()
        externalRecordFolders[ObjectIdentifier(store)] = folder
    }

    /// Forgets the records of a store being detached (its files stay: they are the store's).
    func detachExternalRecords(of store: PersistentStore) {
        if !externalRecordFolders.isEmpty { externalRecordFolders[ObjectIdentifier(store)] = nil }
    }

    /// Notes a store's new location in its records' support folder (after `setURL(_:for:)`).
    func externalRecordsStoreDidMove(_ store: PersistentStore) {
        guard let folder = externalRecordFolders[ObjectIdentifier(store)] else { return }
        do { try folder.writeSupportFiles() } catch { folder.markStale() }
    }

    /// Removes the records and support files of a store about to be destroyed, when `options` name a records
    /// directory (the store's UUID is read from its file; nothing is removed when it cannot be).
    func removeExternalRecords(ofStoreAt url: URL, type: StoreType, options: StoreOptions) {
        guard let directory = options.externalRecordsDirectory,
            let metadata = try? Self.metadataForPersistentStore(ofType: type, at: url, options: options),
            let identifier = metadata[StoreMetadataKey.storeUUID]?.stringValue, ExternalRecordLayout.isSafeComponent(identifier)
        else { return }
        try? FileManager.default.removeItem(at: ExternalRecordLayout.storeFolder(in: directory, identifier: identifier))
        try? FileManager.default.removeItem(at: ExternalRecordLayout.supportFolder(in: directory, identifier: identifier))
    }

    /// Writes the records of a save before the stores commit (under the lock): for every involved store with
    /// records, its inserted and updated objects' records into a hidden folder, and the removals of its deleted
    /// objects' records noted. Inserted objects that the records name in relationships get their permanent IDs
    /// first (reserved in their store, as `obtainPermanentIDs(for:)` does), and `request` is rewritten with them,
    /// so that each record names the objects as they will be saved.
    ///
    /// - Returns: What to commit once each store saved, or nil when no record changes.
    /// - Throws: What staging throws; nothing is left behind then.
    func stageExternalRecords(_ request: inout SaveRequest, involved: [PersistentStore]) throws -> ExternalRecordSaves? {
        let folders = involved.compactMap { externalRecordFolders[ObjectIdentifier($0)] }
        guard !folders.isEmpty else { return nil }
        try assignPermanentIDsNamedByRecords(&request, folders: folders)
        let saves = ExternalRecordSaves()
        do {
            for folder in folders {
                if let staging = try ExternalRecordStaging.stage(request, folder: folder) { saves.staged.append(staging) }
            }
        } catch {
            saves.discardUncommitted()
            throw error
        }
        return saves.staged.isEmpty ? nil : saves
    }

    /// Gives the inserted objects that records name (in relationships they hold) permanent IDs before the save.
    private func assignPermanentIDsNamedByRecords(_ request: inout SaveRequest, folders: [ExternalRecordFolder]) throws {
        var named: Set<ObjectID> = []
        for folder in folders {
            for change in request.inserted + request.updated where change.store === folder.store {
                let plan = folder.plan(for: change.objectID.entity)
                guard plan.writesRecords else { continue }
                for (_, slot) in plan.relationships where slot < change.relationships.count {
                    for id in change.relationships[slot].objectIDs where id.isTemporaryID { named.insert(id) }
                    for id in change.memberChanges[slot]?.added ?? [] where id.isTemporaryID { named.insert(id) }
                }
            }
        }
        guard !named.isEmpty else { return }
        var groups: [(store: PersistentStore, entity: EntityDescription, ids: [ObjectID])] = []
        for change in request.inserted where named.contains(change.objectID) {
            if let index = groups.firstIndex(where: { $0.store === change.store && $0.entity === change.objectID.entity }) {
                groups[index].ids.append(change.objectID)
            } else {
                groups.append((change.store, change.objectID.entity, [change.objectID]))
            }
        }
        var map: [ObjectID: ObjectID] = [:]
        for group in groups {
            guard let backend = group.store.backend as? any PrimaryKeyReservingBackend else {
                throw QuireError(
                    .persistentStoreSave,
                    "The \(group.store.type) store cannot give new objects of '\(group.entity.name)' IDs before it saves, "
                        + "and an external record names them.",
                    context: .init(file: group.store.url, entity: group.entity.name))
            }
            let keys = try backend.reservePrimaryKeys(for: group.entity, count: group.ids.count)
            for (id, key) in zip(group.ids, keys) { map[id] = ObjectID(entity: group.entity, store: group.store, primaryKey: key) }
        }
        request.remap(map)
    }

    /// After a batch request changed records without a save: the records of the stores it reached are written
    /// anew (a rebuild from the store), or, when that fails, left to be rebuilt when the store is next attached.
    func refreshExternalRecords(of stores: [PersistentStore]) {
        guard !externalRecordFolders.isEmpty else { return }
        for store in stores {
            guard let folder = externalRecordFolders[ObjectIdentifier(store)], folder.writesAnyRecords else { continue }
            do { try folder.rebuild() } catch { folder.markStale() }
        }
    }

    /// After a batch insert: the records of the inserted objects, read back from the store.
    func writeExternalRecords(of ids: [ObjectID], in store: PersistentStore) {
        guard let folder = externalRecordFolders[ObjectIdentifier(store)], !ids.isEmpty else { return }
        do { try folder.writeRecords(of: ids) } catch { folder.markStale() }
    }
}

/// The staged records of one coordinator save, store by store: each store's are committed once that store
/// saved; those not committed when the save fails are discarded.
final class ExternalRecordSaves {
    var staged: [ExternalRecordStaging] = []
    private var committed: Set<ObjectIdentifier> = []

    /// Puts a store's records in place after it saved.
    ///
    /// - Parameter permanentIDs: The permanent IDs of the whole request's inserted objects, by position (those
    ///   of this store filled in).
    func commit(_ store: PersistentStore, permanentIDs: [ObjectID]) {
        for staging in staged where staging.folder.store === store && !committed.contains(ObjectIdentifier(staging)) {
            committed.insert(ObjectIdentifier(staging))
            if !staging.commit(permanentIDs: permanentIDs) { staging.folder.markStale() }
        }
    }

    /// Removes the staged records of the stores that did not save.
    func discardUncommitted() {
        for staging in staged where !committed.contains(ObjectIdentifier(staging)) { staging.discard() }
    }
}

extension SaveRequest {
    /// Replaces IDs found in `map` everywhere: the changed objects' own IDs and the IDs their relationships,
    /// saved relationships and member changes name.
    mutating func remap(_ map: [ObjectID: ObjectID]) {
        func remapped(_ change: Change) -> Change {
            var change = change
            if let id = map[change.objectID] { change.objectID = id }
            for index in change.relationships.indices { change.relationships[index].remap(map) }
            if var committed = change.committedRelationships {
                for index in committed.indices { committed[index].remap(map) }
                change.committedRelationships = committed
            }
            if !change.memberChanges.isEmpty { change.memberChanges = change.memberChanges.mapValues { $0.remapped(map) } }
            return change
        }
        inserted = inserted.map(remapped)
        updated = updated.map(remapped)
        deleted = deleted.map(remapped)
    }
}
