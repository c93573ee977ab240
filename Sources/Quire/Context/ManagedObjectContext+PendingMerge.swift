import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// A fetch of objects while the context has unsaved changes of the fetched entities, with the store still
    /// filtering, sorting and limiting what is saved; nil when it cannot be done that way (a child context,
    /// several stores, a predicate the store cannot evaluate or that reads related objects, a sort key through a
    /// relationship or on a decimal), and the caller works wholly in memory.
    ///
    /// The store is asked for `offset + limit + k` rows from the start, where `k` counts the context's updated
    /// and deleted objects of the fetched entities: at most `k` of those rows are superseded by the context, so
    /// the rows left still cover the window. Inserted and updated objects are matched in memory against their
    /// current values and merged in: by the sort keys (``ObjectSorter``, whose order is the store's), or, without
    /// sort keys, as the in-memory pass orders them (an updated object where its saved row came, if it did;
    /// the others after the store's rows, in the order they changed). The result is the in-memory pass's.
    func fetchMergingPendingChanges(_ fetch: StoreFetch, stores: [PersistentStore]?, asFaults: Bool) throws -> [ManagedObject]? {
        guard parent == nil, fetchesPendingChangesThroughStore, !pendingChangesReachRelatedObjects(fetch, true),
            fetch.sortKeys.allSatisfy({ Self.storeSortsLikeMemory($0, from: fetch.entity) })
        else { return nil }
        let coordinator = coordinatorOrFail()
        let attached = coordinator.persistentStores
        let targets = (stores ?? attached).filter { store in attached.contains { $0 === store } && store.holds(fetch.entity) }
        guard targets.count == 1, let target = targets.first else { return nil }
        // Whether the store evaluates the predicate is asked when its rows are read (one compilation or cache
        // lookup of the fetch's shape, not two): an import fetches so once per record it cannot find among the
        // registered objects.

        // Asked of every changed object of the fetched hierarchy at every such fetch (an import fetches once per
        // record it cannot find among the registered objects): the entity is read without retaining it.
        let fetchEntity = fetch.entity
        let includesSubentities = fetch.includesSubentities
        func inFetch(_ object: ManagedObject) -> Bool {
            object.withEntity { includesSubentities ? $0.isKind(of: fetchEntity) : $0 === fetchEntity }
        }
        // The saved objects whose rows the context supersedes, and the changed objects that match now.
        // With one store attached and no object assigned to a store, an inserted object goes to that store when it
        // holds the object's entity (what `store(for:in:)` answers, without its lock, for each inserted object).
        let soleStore = attached.count == 1 && storeAssignments.isEmpty
        var superseded: [ObjectID: ManagedObject] = [:]
        var candidates: [ManagedObject] = []
        var candidateSet = Set<ObjectIdentifier>()
        // Read once, not copied out of the fetch for each changed object.
        let predicate = fetch.predicate
        do {
            for object in loggedObjects(inHierarchyOf: fetchEntity) where inFetch(object) {
                if !object.insertedFlag {
                    guard object.objectID.isStored(in: target) else { continue }
                    if object.updatedFlag || object.deletedFlag { superseded[object.objectID] = object }
                } else if soleStore ? !object.withEntity({ target.holds($0) }) : (try? coordinator.store(for: object, in: self)) !== target {
                    continue
                }
                guard (object.insertedFlag || object.updatedFlag) && !object.deletedFlag else { continue }
                if let predicate, try !InMemoryMatcher.matches(object, predicate) { continue }
                candidates.append(object)
                candidateSet.insert(ObjectIdentifier(object))
            }
        } catch {
            // A predicate memory cannot evaluate on a changed object: when the store cannot either, the wholly
            // in-memory pass answers (and reports it), as it did when the store was asked first.
            if let predicate, !coordinator.storesEvaluate(predicate, for: fetch, in: targets) { return nil }
            throw error
        }

        var storeFetch = fetch
        storeFetch.offset = 0
        if fetch.limit > 0 {
            let (sum, overflow) = fetch.offset.addingReportingOverflow(fetch.limit)
            let (wanted, overflow2) = sum.addingReportingOverflow(superseded.count)
            storeFetch.limit = overflow || overflow2 ? 0 : wanted
        }
        let sorted = !fetch.sortKeys.isEmpty
        var objects: [ManagedObject] = []
        var awaking: [Int] = []
        var placed = Set<ObjectIdentifier>()
        let heldRowGeneration = asFaults ? coordinator.heldRowGeneration : nil
        registry.suspendPruning()
        defer { registry.resumePruning() }
        let evaluated = try coordinator.visitRowsIfStoresEvaluate(storeFetch, stores: targets) { row in
            if !superseded.isEmpty, let changed = superseded[row.objectID] {
                // Unsorted, an updated object that still matches stays where its saved row came.
                if !sorted && candidateSet.contains(ObjectIdentifier(changed)) {
                    placed.insert(ObjectIdentifier(changed))
                    objects.append(changed)
                }
                return
            }
            let (object, awakes) = materialize(row, asFault: asFaults, heldRowGeneration: heldRowGeneration)
            if awakes { awaking.append(objects.count) }
            objects.append(object)
        }
        // The store read nothing when it cannot evaluate the predicate: the in-memory pass answers.
        guard evaluated else { return nil }
        for index in awaking { objects[index].awakeFromFetch() }

        var merged: [ManagedObject]
        if sorted {
            merged = try Self.merge(objects, try ObjectSorter.sort(candidates, by: fetch.sortKeys), by: fetch.sortKeys)
        } else {
            merged = objects
            merged += candidates.lazy.filter { !placed.contains(ObjectIdentifier($0)) }
        }
        let start = min(fetch.offset, merged.count)
        let end = fetch.limit > 0 ? min(merged.count, start + fetch.limit) : merged.count
        storeMergedFetchCount += 1
        return Array(merged[start..<end])
    }

    /// Merges objects in the store's order with changed objects sorted in memory; on equal keys the store's
    /// objects come first, as a stable sort of the store's rows followed by the changed objects puts them.
    private static func merge(_ saved: [ManagedObject], _ changed: [ManagedObject], by keys: [SortKey]) throws -> [ManagedObject] {
        guard !changed.isEmpty else { return saved }
        guard !saved.isEmpty else { return changed }
        let changedValues = changed.map { object in keys.map { ObjectSorter.sortValue(of: object, keyPath: $0.keyPath) } }
        func precedes(_ values: [AttributeValue], _ object: ManagedObject) -> Bool {
            for (index, key) in keys.enumerated() {
                let order = key.comparator.compare(values[index], ObjectSorter.sortValue(of: object, keyPath: key.keyPath))
                if order == .orderedSame { continue }
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
            return false
        }
        var result: [ManagedObject] = []
        result.reserveCapacity(saved.count + changed.count)
        var next = 0
        for object in saved {
            while next < changed.count && precedes(changedValues[next], object) {
                result.append(changed[next])
                next += 1
            }
            result.append(object)
        }
        result += changed[next...]
        return result
    }

    /// Whether a store sorts by a key as ``ObjectSorter`` does in memory: an attribute of the entity itself
    /// (not decimal, which SQLite compares as a double, nor transient), or a to-one relationship's key.
    private static func storeSortsLikeMemory(_ key: SortKey, from entity: EntityDescription) -> Bool {
        guard !key.sortsInMemory, let resolved = try? KeyPathResolver.resolve(key.keyPath, from: entity), resolved.relationships.isEmpty else {
            return false
        }
        if let attribute = resolved.attribute {
            return !attribute.isTransient && attribute.attributeType != .decimal
        }
        return false
    }
}
