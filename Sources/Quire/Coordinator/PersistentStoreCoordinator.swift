import QuireCore
import QuireStores
import Foundation
import Synchronization

/// Connects contexts to stores (`NSPersistentStoreCoordinator`): it holds the model, the stores, and a cache
/// of the rows it has read, and serializes every request to the stores.
///
/// ```swift
/// let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
/// ```
///
/// `@unchecked Sendable`: every mutable member is accessed only while holding `lock`, so contexts on several
/// queues can share one coordinator.
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// The model of every store of the coordinator; frozen by the coordinator's creation.
    public let managedObjectModel: ManagedObjectModel

    private let lock = NSRecursiveLock()
    private var stores: [PersistentStore] = []
    var rowCache: [ObjectID: RowSnapshot] = [:]
    /// Records this coordinator's saves updated or deleted, with their new versions (`Int64.max` for deleted
    /// ones): a fault holding an older row re-reads its record instead of firing with stale values.
    private var changedRecords: [ObjectID: Int64] = [:]
    /// Bumped whenever `changedRecords` is emptied to stay small; rows held from an earlier generation are
    /// treated as stale (also bumped by batch requests, which change records without naming them).
    ///
    /// Written only under the coordinator's lock (so `+= 1` loses no bump); read by contexts outside it, when they
    /// stamp the rows a fetch holds: hence an atomic, which makes that read a race-free load.
    var heldRowGeneration: Int {
        get { heldRowGenerationValue.load(ordering: .acquiring) }
        set {
            heldRowGenerationValue.store(newValue, ordering: .releasing)
            heldRowGenerationStart = .now
        }
    }
    private let heldRowGenerationValue = Atomic<Int>(0)
    /// When ``heldRowGeneration`` last changed: every row held or cached since was read after it (see
    /// ManagedObjectContext+Staleness.swift).
    var heldRowGenerationStart = ContinuousClock.Instant.now
    /// How many saves went through the coordinator (read under its lock): what tells a fetched results
    /// controller's cache whether it is still current.
    private(set) var saveGeneration = 0
    /// The most rows the cache keeps; past that it starts afresh (cheaper than tracking use of each row).
    var rowCacheLimit = 500_000
    /// The contexts using the coordinator, held weakly, so Save As can re-point their objects.
    var registeredContexts: [WeakContextReference] = []
    /// The external records of the stores whose options ask for them, by store (`ExternalRecords/`); empty
    /// for most coordinators, which is all a save checks then.
    var externalRecordFolders: [ObjectIdentifier: ExternalRecordFolder] = [:]

    /// Creates a coordinator for a model, freezing the model.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` when the model is inconsistent (a dangling destination or
    ///   inverse, a duplicate name).
    public init(managedObjectModel: ManagedObjectModel) throws {
        self.managedObjectModel = managedObjectModel
        // Classes by the model's class names (`representedClassName`), before the model is frozen.
        ManagedObjectClassRegistry.bindClasses(of: managedObjectModel)
        try managedObjectModel.freeze()
        temporaryIDOwner = ObjectIDOwner(token: 0, model: managedObjectModel)
    }

    /// What the temporary IDs of objects its contexts insert retain (see ``ObjectIDOwner``): the model, so that
    /// an ID the application keeps never outlives its entity.
    let temporaryIDOwner: ObjectIDOwner

    deinit {
        for store in stores {
            StoreHandles.shared.setRemoved(store, true)
            stopWatchingForWrites(of: store)
            try? store.backend.close()
        }
    }

    /// How many times ``locked(_:)`` took the lock (read under it; tests count a fetch's acquisitions).
    package private(set) var lockAcquisitions = 0

    /// Serializes a block against every other request to the coordinator. Only the coordinator's own methods
    /// (`Coordinator/PersistentStoreCoordinator*.swift`) call it: other layers ask those methods, never the lock
    /// or a backend.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        lockAcquisitions &+= 1
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Stores

    /// The stores attached to the coordinator, in the order they were added.
    public var persistentStores: [PersistentStore] { locked { stores } }

    /// Adds a store (`addPersistentStore(ofType:configurationName:at:options:)`): opens the file, or creates
    /// it when missing.
    ///
    /// - Parameters:
    ///   - type: The store type, or nil to tell SQLite, XML and binary stores from the file's content.
    ///   - configuration: The model configuration whose entities the store holds (`nil` for all).
    ///   - url: The store's file (ignored for in-memory stores).
    ///   - options: Read-only, journal mode, pragmas, migration. Core Data options Quire does not know
    ///     (``StoreOptions/ignoredCoreDataOptions``) are ignored, each with a note on standard error.
    /// - Returns: The added store.
    /// - Throws: ``QuireError`` when the file is not a store of that type, is truncated or corrupt, was
    ///   written with an incompatible model (unless the options ask to migrate it automatically, inferring the
    ///   mapping), or cannot be opened for writing; nothing is written then.
    @discardableResult
    public func addPersistentStore(
        type: StoreType?, configuration: String? = nil, at url: URL?, options: StoreOptions = StoreOptions()
    ) throws -> PersistentStore {
        try options.checkExternalRecordOptions()
        let type = try type ?? StoreKinds.detectType(at: url ?? URL(fileURLWithPath: "/dev/null"))
        return try locked {
            if let url, stores.contains(where: { $0.url?.standardizedFileURL == url.standardizedFileURL }) {
                throw QuireError(
                    .persistentStoreOpen, "The store at '\(url.path)' is already added to this coordinator.",
                    context: .init(file: url))
            }
            var store = try StoreKinds.makeStore(
                type: type, url: url, configuration: configuration, options: options, model: managedObjectModel)
            do {
                try store.backend.load()
            } catch let error as QuireError where error.code == .persistentStoreIncompatibleVersionHash {
                store = try storeMigratedAfterIncompatibleVersion(store, error: error)
            }
            // Object IDs name the store by its token, which resolves to it while it is attached; removing it
            // (or freeing the coordinator) detaches it, and it is freed once nobody holds it.
            StoreHandles.shared.setRemoved(store, false)
            do {
                try attachExternalRecords(of: store)
            } catch {
                StoreHandles.shared.setRemoved(store, true)
                try? store.backend.close()
                throw error
            }
            store.coordinatorReference = self
            stores.append(store)
            Self.noteIgnoredOptions(options, store: store)
            startWatchingForWrites(of: store)
            return store
        }
    }

    /// Adds an opened store to the list (the caller holds the lock).
    func appendStore(_ store: PersistentStore) {
        StoreHandles.shared.setRemoved(store, false)
        stores.append(store)
        startWatchingForWrites(of: store)
        // A store Save As made or put back: its records are written when its options ask for them; a failure
        // leaves them to the next attach (the store's record folder is then missing).
        try? attachExternalRecords(of: store)
    }

    /// Detaches a store, closing it (`remove(_:)`). Objects from it can no longer be fulfilled.
    public func remove(_ store: PersistentStore) throws {
        try locked {
            guard let index = stores.firstIndex(where: { $0 === store }) else {
                throw QuireError(.persistentStoreOperation, "The store \(store) is not attached to this coordinator.")
            }
            stores.remove(at: index)
            detachExternalRecords(of: store)
            rowCache = rowCache.filter { !$0.key.isStored(in: store) }
            StoreHandles.shared.setRemoved(store, true)
            store.coordinatorReference = nil
            stopWatchingForWrites(of: store)
            try store.backend.close()
        }
    }

    /// The store at a URL (`persistentStore(for:)`).
    public func persistentStore(for url: URL) -> PersistentStore? {
        locked { stores.first { $0.url?.standardizedFileURL == url.standardizedFileURL } }
    }

    /// Turns a URI from ``ObjectID/uriRepresentation()`` back into an ID (`managedObjectID(forURIRepresentation:)`),
    /// or `nil` when no attached store or entity matches.
    public func managedObjectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard uri.scheme == "x-coredata", let host = uri.host else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[String(parts[0])],
            parts[1].first == "p", let pk = Int64(parts[1].dropFirst()), pk > 0
        else { return nil }
        return locked {
            guard let store = stores.first(where: { $0.identifier.caseInsensitiveCompare(host) == .orderedSame }) else {
                return nil
            }
            return ObjectID(entity: entity, store: store, primaryKey: pk)
        }
    }

    /// The store a newly inserted object is saved to: its assignment, or the first store holding its entity.
    func store(for object: ManagedObject, in context: ManagedObjectContext) throws -> PersistentStore {
        if let assigned = context.storeAssignments[ObjectIdentifier(object)] { return assigned }
        return try locked {
            guard let store = stores.first(where: { $0.holds(object.entity) }) else {
                throw QuireError(
                    .persistentStoreSave,
                    "No store of the coordinator holds entity '\(object.entity.name)'; add one before saving.",
                    context: .init(entity: object.entity.name))
            }
            return store
        }
    }

    // MARK: Requests

    func targetStores(_ fetch: StoreFetch, _ affected: [PersistentStore]?) -> [PersistentStore] {
        (affected ?? stores).filter { store in stores.contains { $0 === store } && store.holds(fetch.entity) }
    }

    /// Whether every store a fetch reaches evaluates its predicate itself.
    func storesEvaluate(_ predicate: QueryPredicate, for fetch: StoreFetch, in affected: [PersistentStore]?) -> Bool {
        locked { targetStores(fetch, affected).allSatisfy { $0.backend.canEvaluate(predicate, for: fetch.entity) } }
    }

    /// The rows of a fetch from every store it reaches.
    ///
    /// - Parameter cachesRows: Whether to keep the rows in the row cache, so that faults made of them fire
    ///   without reading a store. Fetches that fill their objects at once need not.
    func fetchRows(_ fetch: StoreFetch, stores affected: [PersistentStore]?, cachesRows: Bool = true) throws -> [RowSnapshot] {
        try locked {
            let targets = targetStores(fetch, affected)
            var rows: [RowSnapshot]
            if targets.count == 1 {
                rows = try targets[0].backend.fetchRows(fetch)
            } else {
                rows = []
                for store in targets { rows += try store.backend.fetchRows(fetch) }
            }
            if cachesRows && usesRowCache {
                if rowCache.count + rows.count > rowCacheLimit { rowCache = [:] }
                rowCache.reserveCapacity(rowCache.count + rows.count)
                for row in rows { rowCache[row.objectID] = row }
            }
            return rows
        }
    }

    /// Hands the rows of a fetch from every store it reaches to `body`, one at a time and without caching
    /// them, while holding the coordinator's lock. `body` must not make requests of the stores.
    func visitRows(_ fetch: StoreFetch, stores affected: [PersistentStore]?, _ body: (consuming RowSnapshot) throws -> Void) throws {
        try locked {
            for store in targetStores(fetch, affected) { try store.backend.visitRows(fetch, body) }
        }
    }

    func fetchObjectIDs(_ fetch: StoreFetch, stores affected: [PersistentStore]?) throws -> [ObjectID] {
        try locked {
            let targets = targetStores(fetch, affected)
            // One store's array as it is: a million IDs are 24 MB, not to be copied.
            if targets.count == 1 { return try targets[0].backend.fetchObjectIDs(fetch) }
            var ids: [ObjectID] = []
            for store in targets { ids += try store.backend.fetchObjectIDs(fetch) }
            return ids
        }
    }

    func count(_ fetch: StoreFetch, stores affected: [PersistentStore]?) throws -> Int {
        try locked {
            try targetStores(fetch, affected).reduce(0) { $0 + (try $1.backend.count(fetch)) }
        }
    }

    /// The row of an object: from the row cache when known, otherwise from its store.
    func snapshot(for objectID: ObjectID) throws -> RowSnapshot? {
        try locked {
            if usesRowCache, !rowCache.isEmpty, let cached = rowCache[objectID] { return cached }
            return try freshSnapshot(for: objectID)
        }
    }

    /// The row to fire an object's fault with: the row cache's when it has one, otherwise the store's, packed by
    /// stores that read rows packed (not added to the cache, as ``freshSnapshot(for:)``).
    func faultRow(for objectID: ObjectID) throws -> FaultRow? {
        try locked {
            if usesRowCache, !rowCache.isEmpty, let cached = rowCache[objectID] { return .arrays(cached) }
            guard let store = objectID.persistentStore, stores.contains(where: { $0 === store }) else { return nil }
            return try store.backend.faultRow(for: objectID)
        }
    }

    /// The row of an object read from its store, bypassing the row cache and refreshing the cache's entry
    /// when it has one. A row read for one object is not added: the object that fires keeps it, and caching
    /// every fired fault's row held a second copy of each for the life of the coordinator.
    func freshSnapshot(for objectID: ObjectID) throws -> RowSnapshot? {
        try locked {
            guard let store = objectID.persistentStore, stores.contains(where: { $0 === store }) else { return nil }
            let row = try store.backend.snapshot(for: objectID)
            if usesRowCache, !rowCache.isEmpty, rowCache[objectID] != nil { rowCache[objectID] = row }
            return row
        }
    }

    /// Whether a row a fault holds (read at `version`, in generation `generation`) is still the record's
    /// latest as far as this coordinator's saves know.
    func heldRowIsCurrent(_ objectID: ObjectID, version: Int64, generation: Int) -> Bool {
        locked {
            // Rows keep the generation's low 32 bits (`PackedRow.Header.generation`).
            guard UInt32(truncatingIfNeeded: generation) == UInt32(truncatingIfNeeded: heldRowGeneration) else { return false }
            guard let changed = changedRecords[objectID] else { return true }
            return changed <= version
        }
    }

    func forgetSnapshot(for objectID: ObjectID) {
        _ = locked { rowCache.removeValue(forKey: objectID) }
    }

    func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        try locked {
            guard let store = objectID.persistentStore, stores.contains(where: { $0 === store }) else { return [] }
            return try store.backend.relatedObjectIDs(of: objectID, relationship: relationship)
        }
    }

    /// Saves a context's changes, store by store, and drops the cached rows the save made stale.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreSaveConflicts`` with the store's rows in
    ///   ``QuireError/conflicts`` (the row cache takes those rows, so faults read the store's values).
    func save(_ request: SaveRequest) throws -> SaveResult {
        do {
            return try unconditionalSave(request)
        } catch let error as QuireError where !error.conflicts.isEmpty {
            locked {
                for conflict in error.conflicts {
                    if let row = conflict.storeRow { rowCache[conflict.objectID] = row } else { rowCache[conflict.objectID] = nil }
                }
            }
            throw error
        }
    }

    private func unconditionalSave(_ request: SaveRequest) throws -> SaveResult {
        try locked {
            var result = SaveResult()
            var request = request
            let involved = stores.filter { store in
                request.inserted.contains { $0.store === store } || request.updated.contains { $0.store === store }
                    || request.deleted.contains { $0.store === store } || (store.metadataIsDirty && !store.isReadOnly)
            }
            for store in involved {
                guard !store.isReadOnly else { throw store.readOnlyError() }
            }
            // External records are written before the stores commit and put in place as each one has
            // (`ExternalRecords/`); a coordinator without them pays this one check.
            let records = externalRecordFolders.isEmpty ? nil : try stageExternalRecords(&request, involved: involved)
            do {
                if involved.count == 1 {
                    result = try involved[0].backend.save(request)
                    records?.commit(involved[0], permanentIDs: result.permanentIDs)
                } else {
                    // Each store saves its part; the permanent IDs go back to the positions of the whole request.
                    var permanent = request.inserted.map(\.objectID)
                    for store in involved {
                        let positions = request.inserted.indices.filter { request.inserted[$0].store === store }
                        let part = SaveRequest(
                            inserted: positions.map { request.inserted[$0] },
                            updated: request.updated.filter { $0.store === store },
                            deleted: request.deleted.filter { $0.store === store })
                        let saved = try store.backend.save(part)
                        for (position, id) in zip(positions, saved.permanentIDs) { permanent[position] = id }
                        records?.commit(store, permanentIDs: permanent)
                    }
                    result.permanentIDs = permanent
                }
            } catch {
                records?.discardUncommitted()
                throw error
            }
            if !rowCache.isEmpty {
                for change in request.updated { rowCache[change.objectID] = nil }
                for change in request.deleted { rowCache[change.objectID] = nil }
            }
            if changedRecords.count + request.updated.count + request.deleted.count > 1_000_000 {
                changedRecords = [:]
                heldRowGeneration += 1
            }
            for change in request.updated { changedRecords[change.objectID] = change.version + 1 }
            for change in request.deleted { changedRecords[change.objectID] = Int64.max }
            // Stores that post remote changes announce the save (asynchronously, on the remote-change queue).
            if involved.contains(where: { $0.options.postsRemoteChangeNotifications }) { announceOwnSave(request, result) }
            saveGeneration += 1
            return result
        }
    }
}
