import QuireCore
import QuireStores

extension ManagedObjectContext {
    /// Gives inserted objects their permanent IDs now, before they are saved (`obtainPermanentIDs(for:)`): the
    /// store reserves their keys, and their next save writes them under these IDs. Objects whose IDs are
    /// already permanent are left alone. Use it to hand an object's ID to another context or to the parent of
    /// a child context before saving; a rollback leaves the reserved keys unused.
    ///
    /// Works on SQLite, XML, binary and in-memory stores; a store that cannot reserve keys (a custom incremental
    /// store) makes it throw, and a read-only store too. On failure no object's ID changes.
    ///
    /// - Parameter objects: Objects of this context.
    /// - Throws: ``QuireError/Code/persistentStoreOperation``, or the store's error.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        try performAndWait {
            let pending = objects.filter { $0.managedObjectContext === self && $0.objectID.isTemporaryID }
            guard !pending.isEmpty else { return }
            let coordinator = coordinatorOrFail()
            // Group by store and entity, reserving every group's keys before any object changes.
            var groups: [(store: PersistentStore, entity: EntityDescription, objects: [ManagedObject])] = []
            for object in pending {
                let store = try coordinator.store(for: object, in: self)
                if let index = groups.firstIndex(where: { $0.store === store && $0.entity === object.entity }) {
                    groups[index].objects.append(object)
                } else {
                    groups.append((store, object.entity, [object]))
                }
            }
            var assignments: [(ManagedObject, ObjectID, PersistentStore)] = []
            for group in groups {
                let ids = try coordinator.reservePermanentIDs(for: group.entity, count: group.objects.count, in: group.store)
                for (object, id) in zip(group.objects, ids) { assignments.append((object, id, group.store)) }
            }
            var map: [ObjectID: ObjectID] = [:]
            for (object, id, store) in assignments {
                map[object.objectID] = id
                if hasChildren.load(ordering: .relaxed) { permanentIDsByTemporaryID[object.objectID] = id }
                undoState.permanentIDs[object.objectID] = id
                registry.changeID(of: object, to: id)
                storeAssignments[ObjectIdentifier(object)] = store
            }
            // Relationships that name the objects by their temporary IDs follow.
            for object in changeLog where !object.relationshipStorage.isEmpty {
                object.relationshipStorage.indices.forEach { object.relationshipStorage[$0].remap(map) }
                if object.committedRelationships != nil {
                    object.committedRelationships?.indices.forEach { object.committedRelationships?[$0].remap(map) }
                }
                if !object.deferredMembers.isEmpty { object.deferredMembers = object.deferredMembers.mapValues { $0.remapped(map) } }
            }
        }
    }
}
