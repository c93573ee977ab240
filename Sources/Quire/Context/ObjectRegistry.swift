/// The objects a context has handed out, one per record (uniquing).
///
/// Entries are strong references, so registering an object costs no weak reference (a weak reference gives
/// every object a side table and slows all its retains and releases). Objects the application no longer
/// holds are dropped lazily: ``prune()`` removes every entry the registry alone references, which is what
/// Core Data's weakly retaining registry does, at a fraction of the cost. Confined to its context's queue.
struct ObjectRegistry {
    private var objects: [ObjectID: ManagedObject] = [:]
    private var pruneThreshold = 4096

    /// The number of entries, including objects no longer referenced elsewhere that were not pruned yet.
    var count: Int { objects.count }

    /// The registered object for an ID.
    subscript(id: ObjectID) -> ManagedObject? { objects[id] }

    /// Registers an object under its current ID; prunes once the registry has doubled since the last prune.
    mutating func insert(_ object: ManagedObject) {
        objects[object.objectID] = object
        if objects.count > pruneThreshold {
            prune()
            pruneThreshold = max(4096, objects.count * 2)
        }
    }

    /// Makes room for `extra` more entries at once, instead of growing step by step.
    mutating func reserveCapacity(_ extra: Int) {
        objects.reserveCapacity(objects.count + extra)
        pruneThreshold = max(pruneThreshold, objects.count + extra + 1)
    }

    /// Removes the entry of an object (only if that entry is this object).
    mutating func remove(_ object: ManagedObject) {
        if objects[object.objectID] === object { objects[object.objectID] = nil }
    }

    /// Removes every entry nobody else references and without unsaved changes; those objects go away.
    mutating func prune() {
        var unreferenced: [ObjectID] = []
        var index = objects.values.startIndex
        while index != objects.values.endIndex {
            if !objects.values[index].hasChanges && isKnownUniquelyReferenced(&objects.values[index]) {
                unreferenced.append(objects.keys[index])
            }
            objects.values.formIndex(after: &index)
        }
        for id in unreferenced { objects[id] = nil }
    }

    /// Every registered object.
    var all: Dictionary<ObjectID, ManagedObject>.Values { objects.values }

    /// Empties the registry, returning what it held.
    mutating func removeAll() -> [ManagedObject] {
        let held = Array(objects.values)
        objects = [:]
        return held
    }
}
