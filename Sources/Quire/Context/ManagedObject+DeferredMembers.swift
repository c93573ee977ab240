import QuireCore
import QuireStores
import OrderedCollections

extension ManagedObject {
    // MARK: To-many changes without loading the set

    /// Whether a change to `relationship` can be recorded without loading it: a to-many relationship not
    /// loaded yet, of a saved object in a context attached to a coordinator (a child context loads the set
    /// from its parent instead).
    ///
    /// An unordered to-many whose inverse is a to-one is kept by the members' foreign keys, which the members'
    /// own saves write, so every store works. Ordered, many-to-many and inverse-less to-many relationships
    /// need the store to write the recorded members (``MemberChangeApplyingBackend``: SQLite, PostgreSQL, and
    /// the XML, binary and in-memory stores); for other stores the set is loaded first. Setting
    /// `item.owner = owner` or `tag.addObject(item, toRelationship: "items")` then costs the same whatever the
    /// size of the set; the change is applied when the set is loaded, and handed to the store by the save.
    func defersMembers(of relationship: RelationshipDescription) -> Bool {
        guard relationship.isToMany, !relationship.isTransient, let context = managedObjectContext, context.parent == nil, !insertedFlag
        else { return false }
        let keptByForeignKeys = !relationship.isOrdered && relationship.resolvedInverse.map { !$0.isToMany } == true
        if !keptByForeignKeys {
            guard let store = objectID.persistentStore, store.backend is any MemberChangeApplyingBackend else { return false }
        }
        fireFaultIfNeeded()
        return relationship.slot < relationshipStorage.count && relationshipStorage[relationship.slot].isFault
    }

    /// Whether changes to a to-many relationship's members can be kept recorded while the set is not loaded, as
    /// ``defersMembers(of:)`` asks, whatever the set's state now: an unordered to-many with a to-one inverse, or
    /// one whose store writes recorded members.
    func defersMembers(toManyWithInverse relationship: RelationshipDescription) -> Bool {
        guard relationship.isToMany, !relationship.isTransient, let context = managedObjectContext, context.parent == nil, !insertedFlag
        else { return false }
        if !relationship.isOrdered && relationship.resolvedInverse.map({ !$0.isToMany }) == true { return true }
        guard let store = objectID.persistentStore else { return false }
        return store.backend is any MemberChangeApplyingBackend
    }

    /// Whether `object` is a member of this object's `relationship`, when that is known without loading a
    /// to-many set: from the changes recorded on either side, a to-one inverse, or a loaded inverse set;
    /// `nil` when only loading would tell.
    func knownMembership(of object: ManagedObject, in relationship: RelationshipDescription) -> Bool? {
        if let members = deferredMembers[relationship.slot] {
            if members.added.contains(object.objectID) { return true }
            if members.removed.contains(object.objectID) { return false }
        }
        guard let inverse = relationship.resolvedInverse else { return nil }
        if !inverse.isToMany { return object.loadedStorage(for: inverse).contains(objectID) }
        object.fireFaultIfNeeded()
        guard inverse.slot < object.relationshipStorage.count else { return nil }
        let otherSide = object.relationshipStorage[inverse.slot]
        if !otherSide.isFault { return otherSide.contains(objectID) }
        if let members = object.deferredMembers[inverse.slot] {
            if members.added.contains(objectID) { return true }
            if members.removed.contains(objectID) { return false }
        }
        return nil
    }

    /// Records that `id` joined (or, with `adding` false, left) `relationship`, which ``defersMembers(of:)``
    /// allowed; the object is marked changed and the change can be undone.
    func deferMember(_ id: ObjectID, of relationship: RelationshipDescription, adding: Bool) {
        // Registered before the snapshot `willChangeRelationships` registers, so that undo runs it after the
        // snapshot is restored.
        managedObjectContext?.registerUndoOfDeferredMember(self, id, of: relationship, adding: adding)
        willChangeRelationships()
        var members = deferredMembers[relationship.slot] ?? DeferredMembers()
        if adding { members.add(id) } else { members.remove(id) }
        deferredMembers[relationship.slot] = members
    }

    /// The first change since the object was saved, fetched or had its changes discarded: members recorded
    /// before then (left by a rollback, a refresh or a discarding merge) are stale and go, so that neither a
    /// later load nor the next save applies them.
    func startsChanging() {
        if !deferredMembers.isEmpty { deferredMembers = [:] }
        managedObjectContext?.objectDidChange(self)
    }

    /// `storage`, the relationship's members as the store has them, with the changes recorded while it was a
    /// fault (none once the object was saved or its changes discarded: the store has them, or they are gone).
    /// The store's members become the relationship's committed value, so a later save writes the difference.
    func applyingDeferredMembers(to storage: RelationshipStorage, slot: Int) -> RelationshipStorage {
        guard !deferredMembers.isEmpty else { return storage }
        guard updatedFlag else {
            deferredMembers = [:]
            return storage
        }
        guard let members = deferredMembers.removeValue(forKey: slot) else { return storage }
        if let committed = committedRelationships, slot < committed.count, committed[slot].isFault {
            committedRelationships?[slot] = storage
        }
        return members.applied(to: storage)
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

extension ManagedObjectContext {
    /// Undo of a member recorded while its set was a fault. Before a save, restoring the object's relationships
    /// and recorded members (``registerUndoForRelationships(_:)``) undoes it exactly; once a save wrote it to
    /// the store and dropped the record, restoring finds nothing to drop, so this records the opposite change
    /// instead (the member leaves, or comes back at the end of an ordered set), as undoing a loaded set's
    /// change after a save does.
    func registerUndoOfDeferredMember(_ object: ManagedObject, _ id: ObjectID, of relationship: RelationshipDescription, adding: Bool) {
        guard let undoManager = undoState.undoManager else { return }
        let saves = undoState.saveCount
        undoManager.registerUndo(withTarget: self) { context in
            guard object.managedObjectContext === context, context.undoState.saveCount != saves else { return }
            let member = context.undoState.permanentIDs[id] ?? id
            if object.defersMembers(of: relationship) {
                object.deferMember(member, of: relationship, adding: !adding)
            } else {
                var storage = object.loadedStorage(for: relationship)
                object.willChangeRelationships()
                if adding { storage.remove(member) } else { storage.add(member) }
                object.relationshipStorage[relationship.slot] = storage
            }
        }
    }
}
