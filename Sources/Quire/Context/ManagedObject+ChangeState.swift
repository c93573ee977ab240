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
    /// The last whole `changedValues()` answer, with the arrays it was read from: given again while the object
    /// still has those very arrays (see ``ChangedValuesMemo``).
    var changedValuesMemo: ChangedValuesMemo?

    /// Whether every part is empty, so the object can let the record go.
    var isEmpty: Bool {
        // The set cache does not count: it goes with the record.
        committedAttributes == nil && committedRelationships == nil && deferredMembers.isEmpty && entityOwner == nil
    }
}

/// A whole `changedValues()` answer and the arrays of values it was read from (``ManagedObjectChangeState``).
///
/// The memo holds the arrays, so their storage stays allocated and is never written in place while it lives (a
/// write to an array someone else also holds copies it first): an object whose arrays still have the memo's
/// storage addresses has exactly the memo's values, and its `changedValues()` is the memo's answer. Checking that
/// costs four address comparisons, where building the answer again costs a dictionary and a box per number.
final class ChangedValuesMemo {
    let attributes: [AttributeValue]
    let committedAttributes: [AttributeValue]?
    let relationships: [RelationshipStorage]
    let committedRelationships: [RelationshipStorage]?
    let inserted: Bool
    let values: [String: Any]

    init(
        attributes: [AttributeValue], committedAttributes: [AttributeValue]?, relationships: [RelationshipStorage],
        committedRelationships: [RelationshipStorage]?, inserted: Bool, values: [String: Any]
    ) {
        self.attributes = attributes
        self.committedAttributes = committedAttributes
        self.relationships = relationships
        self.committedRelationships = committedRelationships
        self.inserted = inserted
        self.values = values
    }

    /// Whether two arrays share one storage (so, while the memo holds one of them, the same values).
    @inline(__always)
    static func sameStorage<Element>(_ a: [Element], _ b: [Element]) -> Bool {
        // Reads the two buffers' addresses only; nothing is read or written through them.
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress && x.count == y.count } }
    }

    /// ``sameStorage(_:_:)`` of optional arrays: both nil, or both arrays of one storage.
    @inline(__always)
    static func sameStorage<Element>(_ a: [Element]?, _ b: [Element]?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return sameStorage(a, b)
        default: return false
        }
    }
}

extension ManagedObject {
    /// The last `changedValues()` answer, if the object's values are still the arrays it was read from (values
    /// in the arrays, no to-many changes recorded while faults).
    func memoizedChangedValues() -> [String: Any]? {
        guard let state = changeState, let memo = state.changedValuesMemo, memo.inserted == insertedFlag,
            !faultFlag, heldRow == nil, state.deferredMembers.isEmpty,
            ChangedValuesMemo.sameStorage(memo.attributes, storedAttributes),
            ChangedValuesMemo.sameStorage(memo.relationships, storedRelationships),
            ChangedValuesMemo.sameStorage(memo.committedAttributes, state.committedAttributes),
            ChangedValuesMemo.sameStorage(memo.committedRelationships, state.committedRelationships)
        else { return nil }
        return memo.values
    }

    /// Keeps a `changedValues()` answer just built from the object's current arrays, when the object has changes
    /// (a clean one answers at once, and is given no change state for it), its values are those arrays (not
    /// packed, not a fault) and no to-many change is recorded apart from them.
    func memoizeChangedValues(_ values: [String: Any]) {
        guard hasChanges, !faultFlag, heldRow == nil, changeState?.deferredMembers.isEmpty ?? true else { return }
        let state = ensuredChangeState()
        state.changedValuesMemo = ChangedValuesMemo(
            attributes: storedAttributes, committedAttributes: state.committedAttributes,
            relationships: storedRelationships, committedRelationships: state.committedRelationships,
            inserted: insertedFlag, values: values)
    }

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
