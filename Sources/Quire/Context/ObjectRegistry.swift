import QuireCore
import QuireStores
/// The objects a context has handed out, one per record (uniquing).
///
/// Entries are strong references, so registering an object costs no weak reference (a weak reference gives
/// every object a side table and slows all its retains and releases). Objects the application no longer
/// holds are dropped lazily: ``prune(keepingRecentlyFetched:)`` removes the entries the registry alone
/// references, which is what Core Data's weakly retaining registry does, at a fraction of the cost. The
/// automatic prunes (when the registry has doubled since the last one) spare once the objects a fetch returned
/// since the last prune, so repeated queries find their objects again; `registeredObjects` skips the objects a
/// prune would drop, walking the tables by their occupied-slot bits.
///
/// Records have small, dense primary keys per entity hierarchy, so objects with permanent IDs sit in arrays
/// indexed by key, one array per store and hierarchy: finding one is an array access, not a hash lookup, and
/// walking them (pruning, or releasing them with the context) follows the order they were fetched in.
/// Temporary IDs are drawn from one counter, so objects inserted together have neighbouring numbers: they
/// sit in one more array, indexed from the first number it holds. IDs that fit no array go to a dictionary.
/// Confined to its context's queue.
///
/// `@usableFromInline` (with `DenseTable`'s bounds) for ``RegisteredObjects/Iterator/next()``, whose step from one
/// object to the next is inlined into the loops that walk ``ManagedObjectContext/registeredObjects``.
@usableFromInline
struct ObjectRegistry {
    /// The objects of one store and entity hierarchy, indexed by primary key, in a buffer of its own: reading
    /// and filling a slot costs no reference counting of an array and no uniqueness check.
    ///
    /// Its bounds are read by code inlined into other modules (the walk's step), and, like the registry, used only
    /// on the context's queue: their accesses are not checked for exclusivity at run time.
    @usableFromInline
    final class DenseTable {
        @usableFromInline @exclusivity(unchecked) private(set) var slots: UnsafeMutablePointer<ManagedObject?>
        @usableFromInline @exclusivity(unchecked) private(set) var capacity = 0
        var count = 0
        /// One bit per slot, set while the slot holds an object: walking the objects (``ManagedObjectContext/registeredObjects``)
        /// skips 64 empty slots a word, so a table whose keys grew far beyond the objects it still holds costs what
        /// its objects cost.
        @usableFromInline @exclusivity(unchecked) private(set) var occupied: UnsafeMutablePointer<UInt64>
        @usableFromInline @exclusivity(unchecked) private(set) var wordCount = 0

        init() {
            slots = UnsafeMutablePointer<ManagedObject?>.allocate(capacity: 0)
            occupied = UnsafeMutablePointer<UInt64>.allocate(capacity: 0)
        }

        deinit {
            slots.deinitialize(count: capacity)
            slots.deallocate()
            occupied.deallocate()
        }

        subscript(index: Int) -> ManagedObject? {
            get { slots[index] }
            set {
                slots[index] = newValue
                if newValue == nil { clearOccupied(index) } else { setOccupied(index) }
            }
        }

        /// Empties the slot of an object nobody else references and that has no changes (a walk of
        /// ``ManagedObjectContext/registeredObjects`` met it), releasing the object. The registry's own count
        /// learns of it at its next prune (until then it counts the object, so it may prune a little early).
        func dropUnreferenced(at index: Int) {
            (slots + index).pointee = nil
            clearOccupied(index)
            count -= 1
        }

        /// Whether a slot holds an object.
        @inline(__always)
        func isOccupied(_ index: Int) -> Bool {
            occupied[index &>> 6] & (1 &<< UInt64(index & 63)) != 0
        }

        /// Marks a slot as holding an object (every write of an object into `slots` calls it).
        @inline(__always)
        func setOccupied(_ index: Int) {
            occupied[index &>> 6] |= 1 &<< UInt64(index & 63)
        }

        /// Marks a slot as empty (every write of nil into `slots` calls it).
        @inline(__always)
        func clearOccupied(_ index: Int) {
            occupied[index &>> 6] &= ~(1 &<< UInt64(index & 63))
        }

        /// Makes `index` a valid slot, growing geometrically so that filling a table key by key costs
        /// amortized constant time.
        func grow(toInclude index: Int) {
            guard index >= capacity else { return }
            let newCapacity = max(index + 1, min(capacity * 2, index + 1 + 65_536), 256)
            let grown = UnsafeMutablePointer<ManagedObject?>.allocate(capacity: newCapacity)
            grown.moveInitialize(from: slots, count: capacity)
            (grown + capacity).initialize(repeating: nil, count: newCapacity - capacity)
            slots.deallocate()
            slots = grown
            capacity = newCapacity
            let newWordCount = (newCapacity + 63) / 64
            let words = UnsafeMutablePointer<UInt64>.allocate(capacity: newWordCount)
            words.initialize(from: occupied, count: wordCount)
            (words + wordCount).initialize(repeating: 0, count: newWordCount - wordCount)
            occupied.deallocate()
            occupied = words
            wordCount = newWordCount
        }

        /// Empties every slot and releases the buffer, walking only the occupied slots (by their bits, in key
        /// order): an object nobody else holds is released on the spot, `survivor` is called with each other one
        /// first. Every slot is left holding nil, so the buffer is freed without walking it again.
        func releaseAll(survivor: (ManagedObject) -> Void) {
            for word in 0..<wordCount {
                var bits = occupied[word]
                while bits != 0 {
                    let index = word &<< 6 | bits.trailingZeroBitCount
                    bits &= bits &- 1
                    // Safe: an occupied slot holds an initialized reference, moved out here (the table's reference
                    // with it); an unoccupied slot holds nil, which needs no deinitializing. The slot is set to nil
                    // before the object is released, so a `deinit` that looks into the registry meanwhile finds
                    // nil there, never the reference being released.
                    guard var object = (slots + index).move() else { continue }
                    (slots + index).initialize(to: nil)
                    if !isKnownUniquelyReferenced(&object) { survivor(object) }
                }
            }
            freeBuffers()
        }

        /// Empties every slot and releases the buffer.
        func removeAll() {
            slots.deinitialize(count: capacity)
            freeBuffers()
        }

        /// Frees the buffers, whose slots hold nothing to release any more, and starts again empty.
        private func freeBuffers() {
            slots.deallocate()
            slots = UnsafeMutablePointer<ManagedObject?>.allocate(capacity: 0)
            capacity = 0
            count = 0
            occupied.deallocate()
            occupied = UnsafeMutablePointer<UInt64>.allocate(capacity: 0)
            wordCount = 0
        }
    }

    /// A store's token and a root entity, by address (the token is never reused; the entity's model lives as long
    /// as the context's coordinator, which the context holds).
    private struct TableKey: Hashable {
        let store: UnsafeMutableRawPointer
        let root: UnsafeMutableRawPointer
    }

    private var tables: [TableKey: DenseTable] = [:]
    private var lastKey: TableKey?
    /// The table of `lastKey`, held by `tables` (and cleared whenever `tables` is), so not retained again:
    /// consecutive lookups in one table (a fetch's rows) cost no reference counting.
    private var lastTable: Unmanaged<DenseTable>?
    private var sparse: [ObjectID: ManagedObject] = [:]
    private let temporaries = DenseTable()
    private var temporaryBase: UInt64 = 0
    private var pruneThreshold = 4096
    private var pruningSuspended = false

    /// The number of registered objects, including those no longer referenced elsewhere but not pruned yet.
    private(set) var count = 0

    /// A place in a dense table. The table is held by the registry; a slot is used at once, so it does not
    /// retain it.
    struct Slot {
        let unretainedTable: Unmanaged<DenseTable>
        let index: Int

        var object: ManagedObject? {
            unretainedTable._withUnsafeGuaranteedRef { $0.slots[index] }
        }

        /// Puts an object into the empty slot.
        func fill(with object: consuming ManagedObject) {
            unretainedTable._withUnsafeGuaranteedRef { table in
                // Safe: the slot is empty, and an empty slot holds nil, which needs no deinitializing (so nothing
                // is released for it).
                (table.slots + index).initialize(to: object)
                table.setOccupied(index)
                table.count += 1
            }
        }

        /// Whether the slot holds an object (read from the table's occupied bits, without loading the object).
        var isOccupied: Bool {
            unretainedTable._withUnsafeGuaranteedRef { $0.isOccupied(index) }
        }

        /// Whether the slot holds this very object, compared by address without retaining either.
        func holds(_ object: ManagedObject) -> Bool {
            unretainedTable._withUnsafeGuaranteedRef { table in
                // Safe: a slot is an initialized `ManagedObject?`, a single reference (nil is zero); its bits are
                // read, not the object, so nothing is retained.
                UnsafeRawPointer(table.slots + index).load(as: UnsafeRawPointer?.self)
                    == UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            }
        }

        /// Empties the slot, handing its object over with the table's reference to it (no release, no retain).
        func take() -> ManagedObject? {
            unretainedTable._withUnsafeGuaranteedRef { table in
                let slot = table.slots + index
                let object = slot.move()
                slot.initialize(to: nil)
                if object != nil {
                    table.clearOccupied(index)
                    table.count -= 1
                }
                return object
            }
        }
    }

    /// What a lookup found: the registered object, or where to register one (`nil`: in the sparse dictionary).
    enum Lookup {
        case found(ManagedObject)
        case vacant(Slot?)
    }

    /// The dense table and index for an ID, if it has a permanent key that fits one.
    private mutating func slot(for id: ObjectID, creating: Bool) -> Slot? {
        let idKey = id.key
        if case .temporary(let number) = idKey { return temporarySlot(number, creating: creating) }
        guard case .permanent(let pk) = idKey, pk > 0, let store = id.storeAddress else { return nil }
        let key = TableKey(store: store, root: id.rootEntityAddress)
        let table: Unmanaged<DenseTable>
        if key == lastKey, let last = lastTable {
            table = last
        } else if let existing = tables[key] {
            table = .passUnretained(existing)
        } else {
            guard creating else { return nil }
            let made = DenseTable()
            tables[key] = made
            table = .passUnretained(made)
        }
        lastKey = key
        lastTable = table
        let index = Int(pk)
        let fits = table._withUnsafeGuaranteedRef { table in
            if index < table.capacity { return true }
            // Grow for keys near the end; keys far beyond what the table holds stay sparse.
            guard creating, index <= table.capacity * 2 + 4096 else { return false }
            table.grow(toInclude: index)
            return true
        }
        return fits ? Slot(unretainedTable: table, index: index) : nil
    }

    private mutating func temporarySlot(_ number: UInt64, creating: Bool) -> Slot? {
        guard number > 0 else { return nil }
        if temporaries.count == 0 && creating {
            // Every slot is empty: the table starts again at this number.
            temporaryBase = number
        }
        guard number >= temporaryBase else { return nil }
        let offset = number - temporaryBase
        guard offset < UInt64(Int.max) else { return nil }
        let index = Int(offset)
        if index >= temporaries.capacity {
            guard creating, index <= temporaries.capacity * 2 + 4096 else { return nil }
            temporaries.grow(toInclude: index)
        }
        return Slot(unretainedTable: .passUnretained(temporaries), index: index)
    }

    /// The registered object for an ID.
    subscript(id: ObjectID) -> ManagedObject? {
        mutating get {
            if let slot = slot(for: id, creating: false), let object = slot.object { return object }
            return sparse.isEmpty ? nil : sparse[id]
        }
    }

    /// The object registered for an ID, or where to register one with ``fill(_:with:)``: one lookup for both.
    mutating func lookup(_ id: ObjectID) -> Lookup {
        if let slot = slot(for: id, creating: true) {
            if let existing = slot.object { return .found(existing) }
            // Registered in the dictionary while its key was beyond the table, which has grown over it since.
            if !sparse.isEmpty, let existing = sparse[id] { return .found(existing) }
            return .vacant(slot)
        }
        if let existing = sparse[id] { return .found(existing) }
        return .vacant(nil)
    }

    /// Registers a new object where ``lookup(_:)`` found its ID vacant (nothing registered in between).
    mutating func fill(_ vacancy: Slot?, with object: ManagedObject) {
        guard let vacancy else {
            insert(object)
            return
        }
        vacancy.fill(with: object)
        count += 1
        if count > pruneThreshold && !pruningSuspended {
            prune(keepingRecentlyFetched: true)
            pruneThreshold = max(4096, count * 2)
        }
    }

    /// The object registered for an ID, or the one `make` creates and registers; one lookup either way.
    mutating func object(for id: ObjectID, orInsert make: () -> ManagedObject) -> (ManagedObject, inserted: Bool) {
        switch lookup(id) {
        case .found(let existing):
            return (existing, false)
        case .vacant(let slot):
            let object = make()
            fill(slot, with: object)
            return (object, true)
        }
    }

    /// Registers an object under its current ID; prunes once the registry has doubled since the last prune.
    mutating func insert(_ object: ManagedObject) {
        if let slot = slot(for: object.objectID, creating: true) {
            let table = slot.unretainedTable.takeUnretainedValue()
            // One entry per ID: drop one the dictionary kept before the table grew over the key.
            if !sparse.isEmpty, sparse.removeValue(forKey: object.objectID) != nil { count -= 1 }
            if table[slot.index] == nil {
                table.count += 1
                count += 1
            }
            table[slot.index] = object
        } else {
            if sparse.updateValue(object, forKey: object.objectID) == nil { count += 1 }
        }
        if count > pruneThreshold && !pruningSuspended {
            prune(keepingRecentlyFetched: true)
            pruneThreshold = max(4096, count * 2)
        }
    }

    /// Registers an object under a new ID in place of its current one, and gives the object that ID (an
    /// inserted object's permanent ID, at save or from `obtainPermanentIDs(for:)`). The registry's reference
    /// moves from the old entry to the new one, without a release and a retain, and each ID is looked up once.
    mutating func changeID(of object: ManagedObject, to newID: ObjectID) {
        guard let old = slot(for: object.objectID, creating: false), old.holds(object), let held = old.take() else {
            remove(object)
            object.objectID = newID
            insert(object)
            return
        }
        count -= 1
        object.objectID = newID
        if let new = slot(for: newID, creating: true), !new.isOccupied {
            if !sparse.isEmpty, sparse.removeValue(forKey: newID) != nil { count -= 1 }
            new.fill(with: held)
            count += 1
        } else {
            insert(held)
        }
    }

    /// Registers objects without pruning until ``resumePruning()``: a fetch holds every object it makes, so
    /// pruning while it runs would walk the registry for nothing.
    mutating func suspendPruning() {
        pruningSuspended = true
    }

    /// Ends ``suspendPruning()``, pruning now if the registry has outgrown its threshold.
    mutating func resumePruning() {
        pruningSuspended = false
        if count > pruneThreshold {
            prune(keepingRecentlyFetched: true)
            pruneThreshold = max(4096, count * 2)
        }
    }

    /// Removes the entry of an object (only if that entry is this object).
    mutating func remove(_ object: ManagedObject) {
        if let slot = slot(for: object.objectID, creating: false), slot.object === object {
            let table = slot.unretainedTable.takeUnretainedValue()
            table[slot.index] = nil
            table.count -= 1
            count -= 1
        } else if sparse[object.objectID] === object {
            sparse[object.objectID] = nil
            count -= 1
        }
    }

    /// Removes the entries nobody else references and without unsaved changes; those objects go away.
    ///
    /// The registration threshold prunes with `keepingRecentlyFetched`: an object a fetch returned since the
    /// previous prune gets a second chance (its mark is cleared, and it goes at the next prune unless a fetch
    /// returns it again). Queries that come back to the same records then find their objects instead of
    /// making and freeing them again, while objects nobody fetches any more still go within two prunes.
    mutating func prune(keepingRecentlyFetched: Bool = false) {
        @inline(__always) func drops(_ object: ManagedObject) -> Bool {
            guard !object.hasChanges else { return false }
            guard keepingRecentlyFetched, object.recentlyFetched else { return true }
            object.recentlyFetched = false
            return false
        }
        for table in Array(tables.values) + [temporaries] {
            let slots = table.slots
            for index in 0..<table.capacity where slots[index] != nil {
                if isKnownUniquelyReferenced(&slots[index]), let object = slots[index], drops(object) {
                    slots[index] = nil
                    table.clearOccupied(index)
                    table.count -= 1
                    count -= 1
                }
            }
        }
        var unreferenced: [ObjectID] = []
        var position = sparse.values.startIndex
        while position != sparse.values.endIndex {
            if isKnownUniquelyReferenced(&sparse.values[position]), drops(sparse.values[position]) {
                unreferenced.append(sparse.keys[position])
            }
            sparse.values.formIndex(after: &position)
        }
        for id in unreferenced { sparse[id] = nil }
        // Counted again rather than adjusted: walks of `registeredObjects` drop objects without telling the
        // registry (see `DenseTable.dropUnreferenced(at:)`).
        count = tables.values.reduce(temporaries.count + sparse.count) { $0 + $1.count }
    }

    /// Removes the entries of `ids` that nobody else references and that have no unsaved changes, so that
    /// those objects go away now rather than at a later prune (a batched fetch result calls it for the batch
    /// it stops holding, as Core Data's weakly held objects would go). Costs one lookup per ID.
    mutating func releaseUnreferenced(_ ids: some Sequence<ObjectID>) {
        for id in ids {
            if let slot = slot(for: id, creating: false), slot.object != nil {
                slot.unretainedTable._withUnsafeGuaranteedRef { table in
                    let slots = table.slots
                    guard slots[slot.index] != nil, isKnownUniquelyReferenced(&slots[slot.index]),
                        slots[slot.index]?.hasChanges == false
                    else { return }
                    slots[slot.index] = nil
                    table.clearOccupied(slot.index)
                    table.count -= 1
                    count -= 1
                }
            } else if !sparse.isEmpty, let position = sparse.index(forKey: id),
                isKnownUniquelyReferenced(&sparse.values[position]), !sparse.values[position].hasChanges
            {
                sparse.remove(at: position)
                count -= 1
            }
        }
    }

    /// The registry's tables and its objects outside them, as ``RegisteredObjects`` walks them: the tables of
    /// permanent IDs from the fewest objects to the most, then the temporaries.
    ///
    /// A lookup among the registered objects walks them until it meets an object of its class that matches: the
    /// objects of the tables before its own are stepped over. Smallest first, a lookup of an entity with few
    /// objects (an import's parents, a lookup table) steps over few others, and one of an entity with many steps
    /// over the few; the order is also the same from one process to the next (the dictionary's is not).
    var walkableParts: (tables: [DenseTable], others: [ManagedObject]) {
        var ordered = Array(tables.values)
        if ordered.count > 1 { ordered.sort { $0.count < $1.count } }
        ordered.append(temporaries)
        return (ordered, Array(sparse.values))
    }

    /// Every registered object: by key within each store and hierarchy, then the others.
    var all: [ManagedObject] {
        (Array(tables.values) + [temporaries]).flatMap { table in
            UnsafeBufferPointer(start: table.slots, count: table.capacity).compactMap { $0 }
        } + Array(sparse.values)
    }

    /// Empties the registry in key order, calling `survivor` for each object someone else still holds (the
    /// others are released on the spot, in the order they were made, which frees memory fastest).
    mutating func releaseAll(survivor: (ManagedObject) -> Void) {
        for table in Array(tables.values) + [temporaries] { table.releaseAll(survivor: survivor) }
        for object in sparse.values { survivor(object) }
        lastKey = nil
        lastTable = nil
        tables = [:]
        sparse = [:]
        count = 0
        pruneThreshold = 4096
    }

    /// Empties the registry, returning what it held (in the order of ``all``).
    mutating func removeAll() -> [ManagedObject] {
        let held = all
        lastKey = nil
        lastTable = nil
        tables = [:]
        temporaries.removeAll()
        sparse = [:]
        count = 0
        pruneThreshold = 4096
        return held
    }
}
