/// The objects a context has handed out, one per record (uniquing).
///
/// Entries are strong references, so registering an object costs no weak reference (a weak reference gives
/// every object a side table and slows all its retains and releases). Objects the application no longer
/// holds are dropped lazily: ``prune()`` removes every entry the registry alone references, which is what
/// Core Data's weakly retaining registry does, at a fraction of the cost.
///
/// Records have small, dense primary keys per entity hierarchy, so objects with permanent IDs sit in arrays
/// indexed by key, one array per store and hierarchy: finding one is an array access, not a hash lookup, and
/// walking them (pruning, or releasing them with the context) follows the order they were fetched in.
/// Temporary IDs are drawn from one counter, so objects inserted together have neighbouring numbers: they
/// sit in one more array, indexed from the first number it holds. IDs that fit no array go to a dictionary.
/// Confined to its context's queue.
struct ObjectRegistry {
    /// The objects of one store and entity hierarchy, indexed by primary key.
    private final class DenseTable {
        var objects: [ManagedObject?] = []
        var count = 0

        /// Makes `index` a valid slot, growing geometrically so that filling a table key by key costs
        /// amortized constant time.
        func grow(toInclude index: Int) {
            guard index >= objects.count else { return }
            let newCount = max(index + 1, min(objects.count * 2, index + 1 + 65_536), 256)
            objects.append(contentsOf: repeatElement(nil, count: newCount - objects.count))
        }
    }

    private struct TableKey: Hashable {
        let store: ObjectIdentifier
        let root: ObjectIdentifier
    }

    private var tables: [TableKey: DenseTable] = [:]
    private var lastKey: TableKey?
    private var lastTable: DenseTable?
    private var sparse: [ObjectID: ManagedObject] = [:]
    private let temporaries = DenseTable()
    private var temporaryBase: UInt64 = 0
    private var pruneThreshold = 4096

    /// The number of registered objects, including those no longer referenced elsewhere but not pruned yet.
    private(set) var count = 0

    /// The dense table and index for an ID, if it has a permanent key that fits one.
    private mutating func slot(for id: ObjectID, creating: Bool) -> (DenseTable, Int)? {
        if case .temporary(let number) = id.key { return temporarySlot(number, creating: creating) }
        guard case .permanent(let pk) = id.key, pk > 0, let store = id.persistentStore else { return nil }
        let key = TableKey(store: ObjectIdentifier(store), root: ObjectIdentifier(id.entity.rootEntity))
        let table: DenseTable
        if key == lastKey, let last = lastTable {
            table = last
        } else if let existing = tables[key] {
            table = existing
        } else {
            guard creating else { return nil }
            table = DenseTable()
            tables[key] = table
        }
        lastKey = key
        lastTable = table
        let index = Int(pk)
        if index >= table.objects.count {
            // Grow for keys near the end; keys far beyond what the table holds stay sparse.
            guard creating, index <= table.objects.count * 2 + 4096 else { return nil }
            table.grow(toInclude: index)
        }
        return (table, index)
    }

    private mutating func temporarySlot(_ number: UInt64, creating: Bool) -> (DenseTable, Int)? {
        guard number > 0 else { return nil }
        if temporaries.count == 0 && creating {
            temporaries.objects.removeAll(keepingCapacity: true)
            temporaryBase = number
        }
        guard number >= temporaryBase else { return nil }
        let offset = number - temporaryBase
        guard offset < UInt64(Int.max) else { return nil }
        let index = Int(offset)
        if index >= temporaries.objects.count {
            guard creating, index <= temporaries.objects.count * 2 + 4096 else { return nil }
            temporaries.grow(toInclude: index)
        }
        return (temporaries, index)
    }

    /// The registered object for an ID.
    subscript(id: ObjectID) -> ManagedObject? {
        mutating get {
            if let (table, index) = slot(for: id, creating: false), let object = table.objects[index] { return object }
            return sparse.isEmpty ? nil : sparse[id]
        }
    }

    /// The object registered for an ID, or the one `make` creates and registers; one lookup either way.
    mutating func object(for id: ObjectID, orInsert make: () -> ManagedObject) -> (ManagedObject, inserted: Bool) {
        if let (table, index) = slot(for: id, creating: true) {
            if let existing = table.objects[index] { return (existing, false) }
            let object = make()
            table.objects[index] = object
            table.count += 1
            count += 1
            if count > pruneThreshold {
                prune()
                pruneThreshold = max(4096, count * 2)
            }
            return (object, true)
        }
        if let existing = sparse[id] { return (existing, false) }
        let object = make()
        insert(object)
        return (object, true)
    }

    /// Registers an object under its current ID; prunes once the registry has doubled since the last prune.
    mutating func insert(_ object: ManagedObject) {
        if let (table, index) = slot(for: object.objectID, creating: true) {
            if table.objects[index] == nil {
                table.count += 1
                count += 1
            }
            table.objects[index] = object
        } else {
            if sparse.updateValue(object, forKey: object.objectID) == nil { count += 1 }
        }
        if count > pruneThreshold {
            prune()
            pruneThreshold = max(4096, count * 2)
        }
    }

    /// Makes room for `extra` more entries without pruning in between.
    mutating func reserveCapacity(_ extra: Int) {
        pruneThreshold = max(pruneThreshold, count + extra + 1)
    }

    /// Removes the entry of an object (only if that entry is this object).
    mutating func remove(_ object: ManagedObject) {
        if let (table, index) = slot(for: object.objectID, creating: false), table.objects[index] === object {
            table.objects[index] = nil
            table.count -= 1
            count -= 1
        } else if sparse[object.objectID] === object {
            sparse[object.objectID] = nil
            count -= 1
        }
    }

    /// Removes every entry nobody else references and without unsaved changes; those objects go away.
    mutating func prune() {
        for table in Array(tables.values) + [temporaries] {
            for index in table.objects.indices where table.objects[index] != nil {
                if table.objects[index]?.hasChanges == false && isKnownUniquelyReferenced(&table.objects[index]) {
                    table.objects[index] = nil
                    table.count -= 1
                    count -= 1
                }
            }
        }
        var unreferenced: [ObjectID] = []
        var position = sparse.values.startIndex
        while position != sparse.values.endIndex {
            if !sparse.values[position].hasChanges && isKnownUniquelyReferenced(&sparse.values[position]) {
                unreferenced.append(sparse.keys[position])
            }
            sparse.values.formIndex(after: &position)
        }
        for id in unreferenced { sparse[id] = nil }
        count -= unreferenced.count
    }

    /// Every registered object: by key within each store and hierarchy, then the others.
    var all: [ManagedObject] {
        tables.values.flatMap { $0.objects.compactMap { $0 } } + temporaries.objects.compactMap { $0 } + Array(sparse.values)
    }

    /// Empties the registry, returning what it held (in the order of ``all``).
    /// Empties the registry in key order, calling `survivor` for each object someone else still holds (the
    /// others are released on the spot, in the order they were made, which frees memory fastest).
    mutating func releaseAll(survivor: (ManagedObject) -> Void) {
        for table in Array(tables.values) + [temporaries] {
            for index in table.objects.indices where table.objects[index] != nil {
                if !isKnownUniquelyReferenced(&table.objects[index]), let object = table.objects[index] { survivor(object) }
                table.objects[index] = nil
            }
            table.count = 0
        }
        for object in sparse.values { survivor(object) }
        tables = [:]
        temporaries.objects = []
        lastKey = nil
        lastTable = nil
        sparse = [:]
        count = 0
    }

    mutating func removeAll() -> [ManagedObject] {
        let held = all
        tables = [:]
        temporaries.objects = []
        temporaries.count = 0
        lastKey = nil
        lastTable = nil
        sparse = [:]
        count = 0
        return held
    }
}
