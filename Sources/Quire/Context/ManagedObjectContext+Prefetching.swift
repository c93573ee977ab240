import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Loads what relationship key paths reach from objects, level by level, in batched requests
    /// (``FetchRequest/relationshipKeyPathsForPrefetching``): to-one destinations' rows, to-many members and
    /// their rows. Afterwards following those relationships reads the coordinator's row cache, not a store.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for a key that is not a relationship; store errors.
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws {
        // A child's objects fill through its parent, which may hold newer values than the stores.
        guard !keyPaths.isEmpty, !objects.isEmpty, parent == nil else { return }
        var levels: [String: [ManagedObject]] = [:]
        for keyPath in keyPaths {
            var level = objects
            var prefix = ""
            for key in QueryExpression.components(of: keyPath) {
                prefix += (prefix.isEmpty ? "" : ".") + key
                if let known = levels[prefix] {
                    level = known
                    continue
                }
                level = try prefetchStep(key, of: level, keyPath: keyPath)
                levels[prefix] = level
            }
        }
    }

    /// Loads one relationship of objects and returns the objects it reaches.
    private func prefetchStep(_ key: String, of objects: [ManagedObject], keyPath: String) throws -> [ManagedObject] {
        let coordinator = coordinatorOrFail()
        var byRelationship: [ObjectIdentifier: (relationship: RelationshipDescription, owners: [ManagedObject])] = [:]
        var order: [ObjectIdentifier] = []
        for object in objects {
            guard let relationship = object.entity.relationshipsByName[key] else {
                throw QuireError(
                    .invalidFetchRequest,
                    "'\(key)' in the prefetching key path '\(keyPath)' is not a relationship of entity '\(object.entity.name)'.",
                    context: .init(entity: object.entity.name, key: key))
            }
            object.fireFaultIfNeeded()
            guard relationship.slot < object.relationshipStorage.count else { continue }
            let id = ObjectIdentifier(relationship)
            if byRelationship[id] == nil { order.append(id) }
            byRelationship[id, default: (relationship, [])].owners.append(object)
        }
        var destinations: [ObjectID] = []
        var seen = Set<ObjectID>()
        for id in order {
            guard let (relationship, owners) = byRelationship[id] else { continue }
            let slot = relationship.slot
            if relationship.isToMany {
                let unloaded = owners.filter { $0.relationshipStorage[slot].isFault && !$0.objectID.isTemporaryID }
                if !unloaded.isEmpty {
                    let members = try coordinator.relatedObjectIDs(of: unloaded.map(\.objectID), relationship: relationship)
                    for owner in unloaded {
                        let ids = members[owner.objectID] ?? []
                        let storage: RelationshipStorage =
                            relationship.isOrdered ? .ordered(OrderedSet(ids)) : .toMany(Set(ids))
                        owner.relationshipStorage[slot] = owner.applyingDeferredMembers(to: storage, slot: slot)
                        if !owner.hasChanges { coordinator.cacheRelationship(storage, slot: slot, of: owner.objectID) }
                    }
                }
            }
            for owner in owners {
                for member in owner.relationshipStorage[slot].objectIDs where seen.insert(member).inserted {
                    destinations.append(member)
                }
            }
        }
        let missing = destinations.filter { id in !id.isTemporaryID && (registeredObject(for: id)?.isFault ?? true) }
        _ = try coordinator.snapshots(for: missing, caching: true)
        return destinations.map { object(with: $0) }
    }
}
