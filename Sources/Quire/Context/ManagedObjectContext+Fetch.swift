import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Fetches the objects (or IDs, dictionaries or count) a request describes (`fetch(_:)`).
    ///
    /// Unsaved changes count unless ``FetchRequest/includesPendingChanges`` is false: inserted objects that
    /// match are included, deleted ones left out, and updated ones judged by their current values.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for an unknown entity, sort key or predicate key
    ///   (checked against the model before any store is read); store errors.
    public func fetch<Result>(_ request: FetchRequest<Result>) throws -> [Result] {
        try performAndWait { try readingStores {
            let (fetch, stores) = try storeFetch(for: request)
            let coordinator = coordinatorOrFail()
            switch request.resultType {
            case .count:
                let count = try self.count(fetch: fetch, stores: stores, includesPendingChanges: request.includesPendingChanges)
                return [count].compactMap { $0 as? Result }
            case .managedObjectID:
                if parent == nil, !needsPendingMerge(fetch, request.includesPendingChanges),
                    !fetch.sortKeys.contains(where: \.sortsInMemory)
                {
                    var idFetch = fetch
                    idFetch.kind = .objectIDs
                    if let ids = try coordinator.fetchObjectIDsIfStoresEvaluate(idFetch, stores: stores) {
                        return Self.typedIDs(ids, as: Result.self)
                    }
                }
                return Self.typedIDs(try fetchObjects(fetch, stores: stores, request: request).map(\.objectID), as: Result.self)
            case .dictionary:
                return try fetchDictionaries(request, fetch: fetch, stores: stores).compactMap { $0 as? Result }
            case .managedObject:
                let objects = try fetchObjects(fetch, stores: stores, request: request)
                try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
                return try Self.typed(objects, as: Result.self, entity: fetch.entity)
            }
        } }
    }

    /// The fetched objects as the request's result type. A request for ``ManagedObject`` (the common case)
    /// takes the array as it is, and an object of exactly the requested class is converted without the general
    /// dynamic cast (about 900 instructions an object); others are cast one by one.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` when an object is not of the result type (a request
    ///   typed with a class the entity, or one of its sub-entities, does not use).
    private static func typed<Result>(_ objects: [ManagedObject], as: Result.Type, entity: EntityDescription) throws -> [Result] {
        // The same type: the array is already a `[Result]`.
        if Result.self == ManagedObject.self { return unsafeBitCast(objects, to: [Result].self) }
        let exact = ObjectIdentifier(Result.self)
        if !objects.isEmpty, objects.allSatisfy({ ObjectIdentifier(type(of: $0)) == exact }) {
            // Safe: every element is an instance of exactly `Result`, so `Result` is a class and the array's
            // storage of object references is an array of `Result`s (the standard library's checked array
            // downcast ends in the same reinterpretation of the buffer). No generic conversion per object.
            return unsafeBitCast(objects, to: [Result].self)
        }
        return try objects.map { object in
            if ObjectIdentifier(type(of: object)) == exact { return unsafeBitCast(object, to: Result.self) }
            guard let typed = object as? Result else {
                throw QuireError(
                    .invalidFetchRequest,
                    "A fetch of \(Result.self) found an object of entity '\(object.entity.name)' whose class is \(type(of: object)), "
                        + "which is not a \(Result.self): type the request with a class every fetched entity uses.",
                    context: .init(entity: entity.name))
            }
            return typed
        }
    }

    /// Object IDs as the request's result type: the array itself for a request of ``ObjectID``s (no copy, which
    /// for a million IDs is 24 MB and a dynamic cast each), a cast of each otherwise.
    private static func typedIDs<Result>(_ ids: [ObjectID], as: Result.Type) -> [Result] {
        if Result.self == ObjectID.self { return unsafeBitCast(ids, to: [Result].self) }
        return ids.compactMap { $0 as? Result }
    }

    /// The number of objects a request would return (`count(for:)`), without loading them.
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        try performAndWait { try readingStores {
            let (fetch, stores) = try storeFetch(for: request)
            return try count(fetch: fetch, stores: stores, includesPendingChanges: request.includesPendingChanges)
        } }
    }

    private func count(fetch: StoreFetch, stores: [PersistentStore]?, includesPendingChanges: Bool) throws -> Int {
        var fetch = fetch
        // Order does not change a count: keys that only memory can sort by are dropped.
        if fetch.sortKeys.contains(where: \.sortsInMemory) { fetch.sortKeys = [] }
        if parent == nil, !needsPendingMerge(fetch, includesPendingChanges) {
            var countFetch = fetch
            countFetch.kind = .count
            if let count = try coordinatorOrFail().countIfStoresEvaluate(countFetch, stores: stores) { return count }
        }
        var all = fetch
        all.limit = 0
        all.offset = 0
        all.sortKeys = []
        let objects = try mergedObjects(all, stores: stores, asFaults: true, includePending: includesPendingChanges)
        return window(objects.count, fetch)
    }

    private func window(_ count: Int, _ fetch: StoreFetch) -> Int {
        let afterOffset = max(0, count - fetch.offset)
        return fetch.limit > 0 ? min(afterOffset, fetch.limit) : afterOffset
    }

    private func storeFetch<Result>(for request: FetchRequest<Result>) throws -> (StoreFetch, [PersistentStore]?) {
        let coordinator = coordinatorOrFail()
        guard let entity = coordinator.managedObjectModel.entitiesByName[request.entityName] else {
            throw QuireError(
                .invalidFetchRequest,
                "The fetch request names entity '\(request.entityName)', which the model does not have.",
                context: .init(entity: request.entityName))
        }
        // Dictionary fetches may sort by the name of a fetched expression.
        let expressionNames = Set((request.propertiesToFetch ?? []).compactMap { property -> String? in
            if case .expression(let description) = property, case .expression = description.expression { return description.name }
            return nil
        })
        for key in request.sortDescriptors where !key.comparesObjects && !expressionNames.contains(key.keyPath) {
            try KeyPathResolver.validate(key.keyPath, from: entity)
        }
        // Checked here, before any store is asked, so that an empty store of any kind refuses it too.
        try request.predicate?.validateKeyPaths(from: entity)
        let fetch = StoreFetch(
            entity: entity,
            predicate: request.predicate,
            sortKeys: request.sortDescriptors,
            limit: max(0, request.fetchLimit),
            offset: max(0, request.fetchOffset),
            includesSubentities: request.includesSubentities,
            kind: .rows)
        return (fetch, request.affectedStores)
    }

    /// Whether unsaved changes could change this fetch's answer.
    private func needsPendingMerge(_ fetch: StoreFetch, _ includesPendingChanges: Bool) -> Bool {
        guard includesPendingChanges else { return false }
        // Sort keys through relationships read other objects, whose unsaved changes the store does not know.
        let sortReadsOthers = fetch.sortKeys.contains { $0.keyPath.contains(".") }
        // Otherwise only changed objects of the fetched hierarchy count.
        let changedObjects = sortReadsOthers ? changeLog : loggedObjects(inHierarchyOf: fetch.entity)
        return changedObjects.contains { $0.hasChanges && (sortReadsOthers || $0.withEntity { $0.isKind(of: fetch.entity) }) }
            || pendingDeletes.contains { $0.entity.isKind(of: fetch.entity) }
            || pendingChangesReachRelatedObjects(fetch, true)
    }

    private func fetchObjects<Result>(
        _ fetch: StoreFetch, stores: [PersistentStore]?, request: FetchRequest<Result>
    ) throws -> [ManagedObject] {
        if parent == nil, !needsPendingMerge(fetch, request.includesPendingChanges),
            !fetch.sortKeys.contains(where: \.sortsInMemory)
        {
            // Rows stream from the store into objects, each used while it is still in the processor's cache;
            // faults keep their rows themselves, so the coordinator's cache need not. Application code
            // (`awakeFromFetch`) runs once the coordinator's lock is released. Whether the store evaluates the
            // predicate is decided in the same request (one lock, one compilation).
            var objects: [ManagedObject] = []
            // The indexes of the objects to awake, kept once one object does not awake: a filled fetch of new
            // objects awakes every one, and needs no list of them all.
            var awaking: [Int] = []
            var allAwake = true
            let asFaults = request.returnsObjectsAsFaults
            let coordinator = coordinatorOrFail()
            let heldRowGeneration = asFaults && parent == nil ? coordinator.heldRowGeneration : nil
            registry.suspendPruning()
            defer { registry.resumePruning() }
            let evaluated = try coordinator.visitPackedRowsIfStoresEvaluate(fetch, stores: stores) { row in
                let (object, awakes) = materialize(consume row, asFault: asFaults, heldRowGeneration: heldRowGeneration)
                if allAwake && !awakes {
                    allAwake = false
                    awaking = Array(objects.indices)
                } else if awakes && !allAwake {
                    awaking.append(objects.count)
                }
                objects.append(object)
            }
            if evaluated {
                if allAwake {
                    for object in objects { object.awakeFromFetch() }
                } else {
                    for index in awaking { objects[index].awakeFromFetch() }
                }
                return objects
            }
        }
        if let merged = try fetchMergingPendingChanges(fetch, stores: stores, asFaults: request.returnsObjectsAsFaults) {
            return merged
        }
        var all = fetch
        all.limit = 0
        all.offset = 0
        var objects = try mergedObjects(
            all, stores: stores, asFaults: request.returnsObjectsAsFaults, includePending: request.includesPendingChanges)
        if !fetch.sortKeys.isEmpty {
            objects = try ObjectSorter.sort(objects, by: fetch.sortKeys)
        }
        let start = min(fetch.offset, objects.count)
        let end = fetch.limit > 0 ? min(objects.count, start + fetch.limit) : objects.count
        return Array(objects[start..<end])
    }

    /// The store's (or for a child context, the parent's) matches merged with the context's unsaved changes,
    /// unsorted-but-stable.
    func mergedObjects(
        _ fetch: StoreFetch, stores: [PersistentStore]?, asFaults: Bool, includePending: Bool
    ) throws -> [ManagedObject] {
        let (storePredicate, memoryPredicate) = predicateSplit(fetch, stores: stores, includePending: includePending)
        var storeFetch = fetch
        storeFetch.predicate = storePredicate
        // Stores cannot run Swift comparators: the callers sort in memory.
        if storeFetch.sortKeys.contains(where: \.sortsInMemory) { storeFetch.sortKeys = [] }
        let rows = try fetchSourceRows(storeFetch, stores: stores, cachesRows: parent != nil && asFaults)
        registry.suspendPruning()
        defer { registry.resumePruning() }
        var seen = Set<ObjectIdentifier>()
        var result: [ManagedObject] = []
        for row in rows {
            let object = object(for: row, asFault: asFaults)
            if includePending && object.deletedFlag { continue }
            let check = includePending && object.updatedFlag ? fetch.predicate : memoryPredicate
            if let check, try !InMemoryMatcher.matches(object, check) { continue }
            seen.insert(ObjectIdentifier(object))
            result.append(object)
        }
        let candidates = loggedObjects(inHierarchyOf: fetch.entity).filter { $0.insertedFlag || $0.updatedFlag }
        for object in candidates where includePending && !object.deletedFlag && !seen.contains(ObjectIdentifier(object)) {
            guard fetch.includesSubentities ? object.entity.isKind(of: fetch.entity) : object.entity === fetch.entity
            else { continue }
            if let store = (try? coordinatorOrFail().store(for: object, in: self)), let stores,
                !stores.contains(where: { $0 === store })
            {
                continue
            }
            if let predicate = fetch.predicate, try !InMemoryMatcher.matches(object, predicate) { continue }
            result.append(object)
        }
        return result
    }
}
