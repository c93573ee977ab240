import QuireCore

/// What only some objects need, kept out of ``ManagedObject`` itself so that the million clean objects of a
/// large fetch do not each carry it: the values as last saved (from the first change until the save),
/// the to-many changes recorded without loading the set, and the entity of an editable model the object keeps
/// alive (whether the object is in its context's change log is a flag of the object itself, `isInChangeLog`, so
/// that inserting an object makes no record). An object has none until it needs one and lets it
/// go once every part is empty again (after its save, rollback or refresh).
final class ManagedObjectChangeState {
    /// The values as last saved or fetched, kept from the first change until the next save.
    var committedAttributes: [AttributeValue]?
    /// The relationships as last saved or fetched, kept from the first change until the next save.
    var committedRelationships: [RelationshipStorage]?
    /// Changes to to-many relationships made while they were faults, by slot (see `deferMember`).
    var deferredMembers: [Int: DeferredMembers] = [:]
    /// The entity of a model that was still editable when the object was made: kept alive by the object
    /// (a frozen entity's model is kept alive by the object's ID, see `ObjectIDOwner`).
    var entityOwner: EntityDescription?
    /// The sets `changedValues()` built for changed to-many relationships, by slot, with the relationship's value
    /// they were built from (a set is built again only when the relationship changed since).
    var changedSetCache: [Int: (storage: RelationshipStorage, value: Any)] = [:]
    /// The attributes' part of the last `changedValues()`, with the values it was built from: given again while
    /// the object's attribute values and committed values are those (the arrays compare by identity first, so the
    /// check costs two comparisons of buffer addresses while nothing changed). Holding the values' array means the
    /// next change of a value copies it once (a few words an attribute) instead of writing in place.
    var changedAttributesCache: ChangedAttributes?

    /// Whether every part is empty, so the object can let the record go.
    var isEmpty: Bool {
        // The set cache does not count: it goes with the record.
        committedAttributes == nil && committedRelationships == nil && deferredMembers.isEmpty && entityOwner == nil
    }
}

/// The attributes' part of a `changedValues()` and what it was built from (``ManagedObjectChangeState``).
struct ChangedAttributes {
    /// The attribute values as they were.
    var current: [AttributeValue]
    /// The committed values as they were (nil for an object without them).
    var committed: [AttributeValue]?
    /// Whether the object was inserted.
    var inserted: Bool
    /// The changed attributes by name, with their public values (`NSNull` for nil).
    var values: [String: Any]
}

extension ManagedObject {
    /// The object's change state, made when first needed.
    private func ensuredChangeState() -> ManagedObjectChangeState {
        if let state = changeState { return state }
        let state = ManagedObjectChangeState()
        changeState = state
        return state
    }

    /// Drops the change state once nothing is left in it.
    private func releaseChangeStateIfEmpty() {
        if let state = changeState, state.isEmpty { changeState = nil }
    }

    /// The values as last saved or fetched, kept from the first change until the next save.
    var committedAttributes: [AttributeValue]? {
        get { changeState?.committedAttributes }
        set {
            if newValue == nil && changeState == nil { return }
            ensuredChangeState().committedAttributes = newValue
            releaseChangeStateIfEmpty()
        }
    }

    /// The relationships as last saved or fetched, kept from the first change until the next save.
    var committedRelationships: [RelationshipStorage]? {
        get { changeState?.committedRelationships }
        set {
            if newValue == nil && changeState == nil { return }
            ensuredChangeState().committedRelationships = newValue
            releaseChangeStateIfEmpty()
        }
    }

    /// Changes to to-many relationships made while they were faults, by slot (see `deferMember`).
    var deferredMembers: [Int: DeferredMembers] {
        get { changeState?.deferredMembers ?? [:] }
        set {
            if newValue.isEmpty && changeState == nil { return }
            ensuredChangeState().deferredMembers = newValue
            releaseChangeStateIfEmpty()
        }
    }

    /// The set `changedValues()` built for a to-many relationship from `storage`, if it is still that value.
    func cachedChangedSet(slot: Int, storage: RelationshipStorage) -> Any? {
        guard let cached = changeState?.changedSetCache[slot], cached.storage == storage else { return nil }
        return cached.value
    }

    /// The attributes' part of `changedValues()` built before from these values, if any.
    func cachedChangedAttributes(current: [AttributeValue], committed: [AttributeValue]?) -> [String: Any]? {
        guard let cached = changeState?.changedAttributesCache, cached.inserted == insertedFlag,
            cached.committed == committed, cached.current == current
        else { return nil }
        return cached.values
    }

    /// Keeps the attributes' part of `changedValues()` with the values it was built from, until the object's
    /// change state goes.
    func cacheChangedAttributes(_ cached: ChangedAttributes) {
        ensuredChangeState().changedAttributesCache = cached
    }

    /// Keeps the set `changedValues()` built for a to-many relationship from `storage`, until the object's
    /// change state goes (at its save, rollback or refresh).
    func cacheChangedSet(_ value: Any, slot: Int, storage: RelationshipStorage) {
        ensuredChangeState().changedSetCache[slot] = (storage, value)
    }

    /// Keeps an editable model's entity alive for as long as the object (see ``ManagedObjectChangeState``).
    func keepEntityAlive(_ entity: EntityDescription) {
        ensuredChangeState().entityOwner = entity
    }
}

extension ManagedObject {
    /// Whether a relationship value of the object names another by a temporary ID (an object inserted and not
    /// yet saved), so that a save must rewrite it with the permanent ID.
    var relationshipsReferenceTemporaryIDs: Bool {
        !storedRelationships.isEmpty && storedRelationships.contains(where: \.referencesTemporaryID)
    }
}
