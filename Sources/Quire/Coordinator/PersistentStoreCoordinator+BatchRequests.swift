import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Runs a batch delete or update in every store it reaches (or that holds the given IDs): in the store
    /// itself when it can (SQLite: one statement per table), otherwise by reading the records and saving the
    /// change. The rows this coordinator cached for the entity's hierarchy are dropped and every row a fault
    /// holds is treated as stale, so objects read the new values; registered objects are left as they are
    /// until ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` or a refresh.
    func executeBatch(_ request: StoreBatchRequest, stores affected: [PersistentStore]?) throws -> StoreBatchResult {
        try locked {
            let attached = persistentStores
            var targets = (affected ?? attached).filter { store in attached.contains { $0 === store } && store.holds(request.entity) }
            if case .objectIDs(let ids) = request.target {
                targets = targets.filter { store in ids.contains { $0.persistentStore === store } }
            }
            for store in targets where store.isReadOnly { throw store.readOnlyError() }
            var total = StoreBatchResult(count: 0, objectIDs: request.wantsObjectIDs ? [] : nil,
                                         nullifiedObjectIDs: request.wantsObjectIDs ? [] : nil)
            defer { forgetBatchChangedRows(of: request.entity) }
            for store in targets {
                guard let backend = store.backend else { throw store.unsupported("batch requests once removed") }
                let result = try (backend as? any BatchExecutingStoreBackend)?.executeBatchInStore(request)
                    ?? backend.executeBatchByRecords(request)
                if result.count > 0 && store.options.postsRemoteChangeNotifications { announceOwnWrite(request.write(result), to: store) }
                total.count += result.count
                if request.wantsObjectIDs {
                    total.objectIDs? += result.objectIDs ?? []
                    total.nullifiedObjectIDs? += result.nullifiedObjectIDs ?? []
                }
            }
            refreshExternalRecords(of: targets)
            return total
        }
    }

    /// Inserts records into the first store that holds the entity (or the first of `affected`), in one save;
    /// rows that meet a uniqueness constraint's values are resolved by `conflicts` (see `insertRecords`). The
    /// rows this coordinator cached for records the insert updated are dropped.
    func executeBatchInsert(
        entity: EntityDescription, attributes: [[AttributeValue]], conflicts: BatchInsertConflictRule, stores affected: [PersistentStore]?,
        transactionAuthor: String?, contextName: String?
    ) throws -> [ObjectID] {
        let (result, store) = try locked { () throws -> (StoreBatchInsertResult, PersistentStore) in
            let attached = persistentStores
            guard let store = (affected ?? attached).first(where: { store in attached.contains { $0 === store } && store.holds(entity) })
            else {
                throw QuireError(
                    .persistentStoreSave, "No store of the coordinator holds entity '\(entity.name)'; add one before a batch insert.",
                    context: .init(entity: entity.name))
            }
            guard !store.isReadOnly else { throw store.readOnlyError() }
            let result = try store.backend.insertRecords(
                of: entity, attributes: attributes, conflicts: conflicts, transactionAuthor: transactionAuthor, contextName: contextName)
            // An upsert updated stored records.
            if !result.updated.isEmpty { forgetBatchChangedRows(of: entity) }
            writeExternalRecords(of: result.objectIDs, in: store)
            return (result, store)
        }
        if !result.objectIDs.isEmpty && store.options.postsRemoteChangeNotifications {
            announceOwnWrite(StoreWrite(inserted: Set(result.inserted), updated: Set(result.updated)), to: store)
        }
        return result.objectIDs
    }

    /// Drops the cached rows of an entity's hierarchy (a cascade may reach other entities, so with
    /// relationships every cached row) and makes every row held by a fault count as stale.
    private func forgetBatchChangedRows(of entity: EntityDescription) {
        let root = entity.rootEntity
        if entity.rootEntity.allRelationships.isEmpty && root.allSubentities.allSatisfy(\.allRelationships.isEmpty) {
            rowCache = rowCache.filter { $0.key.entity.rootEntity !== root }
        } else {
            rowCache = [:]
        }
        heldRowGeneration += 1
    }
}

extension PersistentStoreCoordinator {
    /// Drops the cached rows of records changed outside this coordinator (another coordinator or process, as
    /// persistent history or a remote save reports them) and makes every row held by a fault count as stale.
    func forgetRowsChangedElsewhere(_ ids: some Sequence<ObjectID>) {
        locked {
            for id in ids { rowCache[id] = nil }
            heldRowGeneration += 1
        }
    }
}

extension StoreBatchRequest {
    /// What a batch delete or update wrote, as a remote-change announcement says it: the records when the request
    /// asked for their IDs, otherwise that anything of the entity may have changed.
    fileprivate func write(_ result: StoreBatchResult) -> StoreWrite {
        guard let ids = result.objectIDs else { return StoreWrite(everything: true) }
        switch operation {
        case .delete: return StoreWrite(updated: Set(result.nullifiedObjectIDs ?? []), deleted: Set(ids))
        case .update: return StoreWrite(updated: Set(ids))
        }
    }
}
