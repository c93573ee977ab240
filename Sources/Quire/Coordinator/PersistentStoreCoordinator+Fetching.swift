import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// The stores a fetch of an entity reaches: the affected ones still attached, or every store holding it.
    func stores(for entity: EntityDescription, in affected: [PersistentStore]?) -> [PersistentStore] {
        locked {
            let attached = persistentStores
            return (affected ?? attached).filter { store in attached.contains { $0 === store } && store.holds(entity) }
        }
    }

    /// A dictionary fetch computed by the one store it reaches, or nil when it reaches several stores or the
    /// store leaves it to the context.
    func fetchDictionaries(_ request: DictionaryFetch, stores affected: [PersistentStore]?) throws -> [[DictionaryValue]]? {
        try locked {
            let targets = stores(for: request.fetch.entity, in: affected)
            guard targets.count == 1, let store = targets.first else { return targets.isEmpty ? [] : nil }
            return try store.backend.fetchDictionaries(request)
        }
    }
}

extension PersistentStoreCoordinator {
    /// The rows of many objects: from the row cache when known, the rest from their stores in batched
    /// requests. With `caching`, the rows read are cached (prefetching); without, they are not, so a batched
    /// walk over many objects keeps memory flat.
    func snapshots(for objectIDs: [ObjectID], caching: Bool) throws -> [RowSnapshot] {
        try locked {
            var rows: [RowSnapshot] = []
            var missing: [ObjectIdentifier: (store: PersistentStore, ids: [ObjectID])] = [:]
            var storeOrder: [ObjectIdentifier] = []
            let attached = persistentStores
            for id in objectIDs {
                if usesRowCache, let cached = rowCache[id] {
                    rows.append(cached)
                    continue
                }
                guard let store = id.persistentStore, attached.contains(where: { $0 === store }) else { continue }
                let key = ObjectIdentifier(store)
                if missing[key] == nil {
                    missing[key] = (store, [])
                    storeOrder.append(key)
                }
                missing[key]?.ids.append(id)
            }
            for key in storeOrder {
                guard let (store, ids) = missing[key] else { continue }
                let read = try store.backend.snapshots(for: ids)
                if caching && usesRowCache {
                    if rowCache.count + read.count > rowCacheLimit { rowCache = [:] }
                    for row in read { rowCache[row.objectID] = row }
                }
                rows += read
            }
            return rows
        }
    }

    /// The members of a to-many relationship of many objects, one batched request per store.
    func relatedObjectIDs(of objectIDs: [ObjectID], relationship: RelationshipDescription) throws -> [ObjectID: [ObjectID]] {
        try locked {
            var byStore: [ObjectIdentifier: (store: PersistentStore, ids: [ObjectID])] = [:]
            let attached = persistentStores
            for id in objectIDs {
                guard let store = id.persistentStore, attached.contains(where: { $0 === store }) else { continue }
                byStore[ObjectIdentifier(store), default: (store, [])].ids.append(id)
            }
            var result: [ObjectID: [ObjectID]] = [:]
            for (store, ids) in byStore.values {
                result.merge(try store.backend.relatedObjectIDs(of: ids, relationship: relationship)) { $1 }
            }
            return result
        }
    }
}

extension PersistentStoreCoordinator {
    /// Records the members of a to-many relationship in an object's cached row, so that the object, once
    /// released and faulted again, gets them without a store request (as prefetching promises). Saves put
    /// `.fault` back in the rows they write.
    func cacheRelationship(_ storage: RelationshipStorage, slot: Int, of objectID: ObjectID) {
        locked {
            guard usesRowCache, var row = rowCache[objectID], slot < row.relationships.count else { return }
            row.relationships[slot] = storage
            rowCache[objectID] = row
        }
    }
}
