import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Re-points the context's objects after their store was migrated (Save As): every registered or changed
    /// object of the old store gets its new ID, and every relationship value holding IDs of the old store
    /// holds the new ones, so faults fire from the new store and saves go to it.
    ///
    /// Runs on the context's queue (the coordinator calls it through ``performAndWait(_:)``).
    func storeDidMigrate(_ map: StoreMigrationMap) {
        var seen = Set<ObjectIdentifier>()
        var objects: [ManagedObject] = []
        for object in registry.all + changeLog + pendingDeletes where seen.insert(ObjectIdentifier(object)).inserted {
            objects.append(object)
        }
        for object in objects {
            if let new = map.map(object.objectID) {
                let registered = registry[object.objectID] === object
                if registered { registry.remove(object) }
                object.objectID = new
                if registered { registry.insert(object) }
            }
            for index in object.relationshipStorage.indices { object.relationshipStorage[index].remap(map.map) }
            if var committed = object.committedRelationships {
                for index in committed.indices { committed[index].remap(map.map) }
                object.committedRelationships = committed
            }
            if !object.deferredMembers.isEmpty { object.deferredMembers = object.deferredMembers.mapValues { $0.remapped(map.map) } }
        }
        for (key, store) in storeAssignments where store === map.source { storeAssignments[key] = map.target }
        // Recorded undo actions name the old store's objects.
        undoManager?.removeAllActions()
        undoState.permanentIDs = [:]
    }
}

extension RelationshipStorage {
    /// Replaces every ID the transform maps (IDs it returns nil for stay).
    mutating func remap(_ transform: (ObjectID) -> ObjectID?) {
        switch self {
        case .fault: break
        case .toOne(let id):
            if let id, let new = transform(id) { self = .toOne(new) }
        case .toMany(let ids):
            guard ids.contains(where: { transform($0) != nil }) else { return }
            self = .toMany(Set(ids.map { transform($0) ?? $0 }))
        case .ordered(let ids):
            guard ids.contains(where: { transform($0) != nil }) else { return }
            self = .ordered(.init(ids.map { transform($0) ?? $0 }))
        }
    }
}
