import QuireCore

/// The context's change log (`changeLog`) grouped by the root entity of each object, in the log's order: a fetch
/// that merges unsaved changes reads the changed objects of its own hierarchy only. An import that fetches one
/// region at a time while a page of a thousand changed records waits for its save walked all thousand records at
/// every such fetch.
///
/// Built lazily, as fetches ask: the change log only grows between saves (an object is appended at its first
/// change), so the index extends itself with the objects appended since it last looked. Whatever removes objects
/// from the log (a save, a rollback, a reset, an undone insert) calls ``invalidate()``, and the next fetch builds it
/// again. A group holds exactly the log's objects of that hierarchy, whatever their flags now say: the callers
/// judge each object's flags, entity and store as they did walking the whole log.
struct ChangeLogIndex {
    /// The logged objects of each hierarchy, by the root entity's address, in log order.
    private var groups: [UnsafeMutableRawPointer: [ManagedObject]] = [:]
    /// How many objects of the log the groups hold (the log's first `indexedCount`).
    private var indexedCount = 0

    /// The logged objects of the hierarchy `entity` belongs to (the entity, its super- and sub-entities), in the
    /// order of `log`, which must be the log this index was built from, grown only by appending since the last
    /// ``invalidate()``.
    mutating func objects(inHierarchyOf entity: EntityDescription, log: [ManagedObject]) -> [ManagedObject] {
        // A log shorter than what was indexed was cleared without an invalidation: start again.
        if indexedCount > log.count { invalidate() }
        if indexedCount < log.count {
            for object in log[indexedCount...] {
                groups[object.withEntity { $0.rootEntityAddress }, default: []].append(object)
            }
            indexedCount = log.count
        }
        return groups[entity.rootEntityAddress] ?? []
    }

    /// Forgets the groups: the log lost objects (or was replaced), and the next call builds them again.
    mutating func invalidate() {
        groups = [:]
        indexedCount = 0
    }
}

extension ManagedObjectContext {
    /// The change log's objects a fetch of `entity` can find, in the log's order: those of the entity's hierarchy
    /// (``ChangeLogIndex``), or the whole log while the entity's model is still editable (its hierarchy may change).
    func loggedObjects(inHierarchyOf entity: EntityDescription) -> [ManagedObject] {
        guard entity.frozenModelAddress != nil else { return changeLog }
        return changeLogIndex.objects(inHierarchyOf: entity, log: changeLog)
    }
}
