import QuireCore
import QuireStores
import OrderedCollections

/// Members added to and removed from a to-many relationship that was not loaded (still a fault) when it
/// changed: applied when the relationship is loaded.
struct DeferredMembers: Equatable {
    /// Members added since the relationship was last saved.
    var added: Set<ObjectID> = []
    /// Members removed since the relationship was last saved.
    var removed: Set<ObjectID> = []
}

extension ManagedObject {
    // MARK: To-many changes without loading the set

    /// Whether a change to `relationship` can be recorded without loading it: an unordered to-many whose
    /// inverse is a to-one (the relationship's rows are the members' foreign keys, which the members' own saves
    /// write), not loaded yet, in a context attached to a coordinator. Setting `item.owner = owner` then costs
    /// the same whatever the size of `owner.items`; the change is applied when the set is loaded, and dropped
    /// once saved (the store has it then). Ordered and many-to-many relationships are still loaded first.
    func defersMembers(of relationship: RelationshipDescription) -> Bool {
        guard relationship.isToMany, !relationship.isOrdered, let inverse = relationship.resolvedInverse, !inverse.isToMany,
            let context = managedObjectContext, context.parent == nil, !insertedFlag
        else { return false }
        fireFaultIfNeeded()
        return relationship.slot < relationshipStorage.count && relationshipStorage[relationship.slot].isFault
    }

    /// Records that `id` joined (or, with `adding` false, left) `relationship`, which ``defersMembers(of:)``
    /// allowed; the object is marked changed and the change can be undone.
    func deferMember(_ id: ObjectID, of relationship: RelationshipDescription, adding: Bool) {
        willChangeRelationships()
        var members = deferredMembers[relationship.slot] ?? DeferredMembers()
        if adding {
            members.removed.remove(id)
            members.added.insert(id)
        } else {
            members.added.remove(id)
            members.removed.insert(id)
        }
        deferredMembers[relationship.slot] = members
    }

    /// `storage`, the relationship's members as the store has them, with the changes recorded while it was a
    /// fault (none once the object was saved or its changes discarded: the store has them, or they are gone).
    func applyingDeferredMembers(to storage: RelationshipStorage, slot: Int) -> RelationshipStorage {
        guard !deferredMembers.isEmpty else { return storage }
        guard updatedFlag else {
            deferredMembers = [:]
            return storage
        }
        guard let members = deferredMembers.removeValue(forKey: slot) else { return storage }
        var result = storage
        for id in members.removed { result.remove(id) }
        for id in members.added { result.add(id) }
        return result
    }

    /// Whether a relationship's value is not loaded yet (`hasFault(forRelationshipNamed:)`): true for a to-many
    /// relationship whose members have not been read (changes recorded without loading it keep it so), and
    /// for any relationship of an object that is itself a fault. Asking loads nothing.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let relationship = entity.property(named: key) as? RelationshipDescription else { return false }
        if faultFlag { return true }
        return relationship.slot < relationshipStorage.count && relationshipStorage[relationship.slot].isFault
    }
}
