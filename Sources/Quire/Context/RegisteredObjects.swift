import QuireCore

/// The objects a context has registered (``ManagedObjectContext/registeredObjects``), walked where the context keeps
/// them rather than copied into a set: getting it costs nothing, and iterating it costs what its objects cost.
///
/// ```swift
/// for object in context.registeredObjects where !object.isFault {
///     if let mood = object as? Mood, try predicate.evaluate(with: mood) { return mood }
/// }
/// ```
///
/// It holds what Core Data's `registeredObjects` set holds: every changed object and every object the application
/// still references; an object only the context still held is left out (Core Data's registry would have let it
/// go), and the walk lets it go (or, if a fetch returned it since the context's last prune, the next walk does).
/// Each object appears once, in no promised order (as with Core Data's set); objects inserted since the last save come
/// last, newest first, since a lookup among the registered objects most often looks for one made a moment ago.
/// Objects registered while a loop walks the sequence may or may not be visited. Like the
/// context, use it on the context's queue; `Set(…)` makes a set of it when one is needed.
public struct RegisteredObjects: Sequence {
    private let tables: [ObjectRegistry.DenseTable]
    private let others: [ManagedObject]

    init(tables: [ObjectRegistry.DenseTable], others: [ManagedObject]) {
        self.tables = tables
        self.others = others
    }

    /// Walks the objects, table by table (the entities with the fewest objects first), each in key order, then
    /// the others; the last table (the registry's objects with temporary IDs: those inserted since the last save)
    /// newest first.
    public struct Iterator: IteratorProtocol {
        // The walk's state is `@usableFromInline` for ``next()``, which is inlined into the loops that walk.
        @usableFromInline let tables: [ObjectRegistry.DenseTable]
        @usableFromInline let others: [ManagedObject]
        /// The table being walked, unretained: `tables` holds it (and every other table) strongly for as long as
        /// the iterator lives, so a step needs no retain and release of its own.
        @usableFromInline var current: Unmanaged<ObjectRegistry.DenseTable>?
        @usableFromInline var tableIndex = 0
        @usableFromInline var wordIndex = 0
        /// The occupied slots of the word `wordIndex` not visited yet.
        @usableFromInline var bits: UInt64 = 0
        @usableFromInline var otherIndex = 0
        /// Whether the table being walked is walked from its last key down.
        @usableFromInline var newestFirst = false

        init(tables: [ObjectRegistry.DenseTable], others: [ManagedObject]) {
            self.tables = tables
            self.others = others
            if let first = tables.first { enter(first, newestFirst: tables.count == 1) }
        }

        /// Starts walking `table` at its first word, or at its last when `newestFirst`.
        private mutating func enter(_ table: ObjectRegistry.DenseTable, newestFirst: Bool) {
            current = .passUnretained(table)
            self.newestFirst = newestFirst
            wordIndex = newestFirst ? table.wordCount &- 1 : 0
            bits = table.wordCount > 0 ? table.occupied[wordIndex] : 0
        }

        /// The next object that is changed or held outside the context.
        ///
        /// Inlined into the caller's loop: the step to the next slot of the word being walked (most objects a
        /// lookup among the registered objects meets: an import's inserted objects, the records a page fetched)
        /// costs a few loads and, for an unchanged object, the uniqueness check; the rest (the next word, the next
        /// table, the objects outside the tables, letting an object go) is out of line (`advance()`).
        @inlinable
        public mutating func next() -> ManagedObject? {
            while bits != 0, let table = current {
                let bit = newestFirst ? 63 &- bits.leadingZeroBitCount : bits.trailingZeroBitCount
                bits &= ~(1 &<< UInt64(bit))
                let index = wordIndex &* 64 &+ bit
                // Safe: `tables` holds the table strongly (see `current`), and nothing here releases it.
                if let object = table._withUnsafeGuaranteedRef({ Self.walkedObject(in: $0, at: index) }) {
                    return object.takeUnretainedValue()
                }
            }
            return advance()
        }

        /// The rest of ``next()``: from where the walk stands, slot by slot, word by word, table by table, then
        /// the objects outside the tables.
        @usableFromInline
        mutating func advance() -> ManagedObject? {
            while let table = current {
                // Safe: `tables` holds the table strongly (see `current`), and nothing the walk does releases it.
                if let object = table._withUnsafeGuaranteedRef({ newestFirst ? nextObjectDown(in: $0) : nextObject(in: $0) }) {
                    return object
                }
                tableIndex += 1
                if tableIndex < tables.count {
                    enter(tables[tableIndex], newestFirst: tableIndex == tables.count - 1)
                } else {
                    current = nil
                }
            }
            while otherIndex < others.count {
                defer { otherIndex += 1 }
                return others[otherIndex]
            }
            return nil
        }

        /// The next object of `table` from where the walk stands, or nil at its end.
        private mutating func nextObject(in table: ObjectRegistry.DenseTable) -> ManagedObject? {
            while true {
                if bits == 0 {
                    // The table may have grown or emptied since the last step: read its bounds each time.
                    let next = Self.occupiedWord(in: table, after: wordIndex)
                    wordIndex = next
                    guard next < table.wordCount else { return nil }
                    bits = table.occupied[next]
                    continue
                }
                let bit = bits.trailingZeroBitCount
                bits &= bits &- 1
                if let object = visit(table, at: wordIndex &* 64 &+ bit) { return object }
            }
        }

        /// The index of the first word after `index` with an occupied slot, or the word count when there is none.
        ///
        /// Empty words sixteen, then four, at a time: a table keeps a slot for every key up to its largest, and the
        /// objects of an import's earlier pages are let go, so the empty words grow with the store (an import's
        /// page walks them once for every record it looks up). Not inlined: asked once a word of 64 slots.
        @inline(never)
        private static func occupiedWord(in table: ObjectRegistry.DenseTable, after index: Int) -> Int {
            let words = table.occupied
            let wordCount = table.wordCount
            var next = index &+ 1
            while next &+ 16 <= wordCount {
                var any: UInt64 = 0
                for offset in 0..<16 { any |= words[next &+ offset] }
                guard any == 0 else { break }
                next &+= 16
            }
            while next &+ 4 <= wordCount, words[next] | words[next &+ 1] | words[next &+ 2] | words[next &+ 3] == 0 {
                next &+= 4
            }
            while next < wordCount, words[next] == 0 { next &+= 1 }
            return next
        }

        /// ``nextObject(in:)`` from the last key down: the objects inserted since the last save, newest first, for
        /// a lookup among the registered objects most often looks for one made a moment ago (an import's parent,
        /// made for an earlier record of the same page).
        private mutating func nextObjectDown(in table: ObjectRegistry.DenseTable) -> ManagedObject? {
            while true {
                if bits == 0 {
                    // The table may have grown or emptied since the last step: read its bounds each time (keys
                    // added during the walk lie above it and are not visited).
                    let words = table.occupied
                    var next = Swift.min(wordIndex, table.wordCount) &- 1
                    while next >= 0, words[next] == 0 { next &-= 1 }
                    wordIndex = next
                    guard next >= 0 else { return nil }
                    bits = words[next]
                    continue
                }
                let bit = 63 &- bits.leadingZeroBitCount
                bits &= ~(1 &<< UInt64(bit))
                if let object = visit(table, at: wordIndex &* 64 &+ bit) { return object }
            }
        }

        /// The object in the table's slot `index` when it is changed or held outside the context; nil for an
        /// empty slot or one only the registry holds (let go here).
        @inline(__always)
        private func visit(_ table: ObjectRegistry.DenseTable, at index: Int) -> ManagedObject? {
            Self.walkedObject(in: table, at: index)?.takeUnretainedValue()
        }

        /// The object in the table's slot `index`, unretained (the table holds it), when the walk visits it: it
        /// is changed (told from its flags, with no retain and no uniqueness check), or held outside the context.
        /// Nil for an empty slot, and for an object only the registry holds, which ``letGo(_:at:)`` releases.
        @inlinable @inline(__always)
        static func walkedObject(in table: ObjectRegistry.DenseTable, at index: Int) -> Unmanaged<ManagedObject>? {
            guard index < table.capacity else { return nil }
            let slot = table.slots + index
            // Safe: an optional class reference and an optional `Unmanaged` of it have the same layout (one
            // pointer, nil as zero), the slot stays bound to its own type, and the load neither retains nor
            // releases.
            guard let peeked = UnsafeRawPointer(slot).load(as: Unmanaged<ManagedObject>?.self) else { return nil }
            // A changed object: its flags, as `hasChanges` reads them.
            if peeked._withUnsafeGuaranteedRef({ $0.insertedFlag || $0.updatedFlag || $0.deletedFlag })
                || !isKnownUniquelyReferenced(&slot.pointee)
            {
                return peeked
            }
            letGo(table, at: index)
            return nil
        }

        /// Lets go of the unchanged object in the table's slot `index` that only the registry holds: one Core
        /// Data's weak registry would have let go already. Skipped by the walk, and released here, so that the walks
        /// after this one (an import looks records up among the registered objects once per record) do not meet it
        /// again; one a fetch returned since the last prune keeps its second chance, as with a prune: it goes at
        /// the next walk.
        @usableFromInline
        static func letGo(_ table: ObjectRegistry.DenseTable, at index: Int) {
            // Safe: the slot holds the object until `dropUnreferenced` releases it, after the last use.
            let secondChance = UnsafeRawPointer(table.slots + index).load(as: Unmanaged<ManagedObject>.self)
                ._withUnsafeGuaranteedRef { object in
                    guard object.recentlyFetched else { return false }
                    object.recentlyFetched = false
                    return true
                }
            if !secondChance { table.dropUnreferenced(at: index) }
        }
    }

    /// An iterator over the objects.
    public func makeIterator() -> Iterator {
        Iterator(tables: tables, others: others)
    }

    /// The number of objects (walks them).
    public var count: Int {
        var count = 0
        var iterator = makeIterator()
        while iterator.next() != nil { count += 1 }
        return count
    }

    /// Whether there are none.
    public var isEmpty: Bool {
        var iterator = makeIterator()
        return iterator.next() == nil
    }

    /// Whether the object is among them (`registeredObjects.contains(object)`).
    public func contains(_ object: ManagedObject) -> Bool {
        guard let context = object.managedObjectContext else { return false }
        return context.registeredObject(for: object.objectID) === object
    }
}

extension ManagedObjectContext {
    /// Every object the context currently knows (`registeredObjects`): changed objects and those the application
    /// still holds, walked in place (see ``RegisteredObjects``): no set is built, and nothing is pruned, per call.
    public var registeredObjects: RegisteredObjects {
        // Objects outside the tables (keys far beyond the rest) are few, and all kept. The registry gives the table
        // of temporary IDs (objects inserted since the last save) last, and the walk takes it newest first.
        let (tables, others) = registry.walkableParts
        return RegisteredObjects(tables: tables, others: others)
    }
}
