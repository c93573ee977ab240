import QuireCore
import QuireStores
import Dispatch
import Foundation
import Synchronization

/// A scratch pad of managed objects (`NSManagedObjectContext`): it tracks inserts, updates and deletes,
/// hands out one object per record (uniquing), fills faults, and saves through its coordinator.
///
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .privateQueue)
/// context.persistentStoreCoordinator = coordinator
/// try context.performAndWait {
///     let run = ManagedObject(entity: runEntity, insertInto: context)
///     run.setValue(Date(), forKey: "date")
///     try context.save()
/// }
/// ```
///
/// A context is confined to its own queue, as in Core Data: touch it and its objects only inside
/// ``perform(_:)->()`` or ``performAndWait(_:)`` (or, for a context used from one thread only, from that
/// thread). Managed objects are not `Sendable`; pass ``ObjectID``s between contexts.
///
/// `@unchecked Sendable`: the context may be handed to other threads so they can call `perform`; its
/// mutable state is touched only on its queue, which serializes every access.
public final class ManagedObjectContext: @unchecked Sendable {
    /// How a context runs its work (`NSManagedObjectContextConcurrencyType`).
    public enum ConcurrencyType: Sendable {
        /// The context owns a private serial queue.
        case privateQueue
        /// The context runs on the main queue.
        case mainQueue

        /// Core Data's name for ``privateQueue`` (`NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType`).
        public static var privateQueueConcurrencyType: ConcurrencyType { .privateQueue }
        /// Core Data's name for ``mainQueue`` (`.mainQueueConcurrencyType`).
        public static var mainQueueConcurrencyType: ConcurrencyType { .mainQueue }
    }

    /// How the context runs its work.
    public let concurrencyType: ConcurrencyType
    /// A name for debugging.
    public var name: String?

    /// The coordinator the context fetches from and saves to: its own, or for a child context its root
    /// ancestor's. Set it, or ``parent``, once before the context is used, not both.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { ownCoordinator ?? parent?.persistentStoreCoordinator }
        set {
            precondition(parent == nil || newValue == nil, "A context has a parent or a coordinator, not both.")
            ownCoordinator = newValue
            newValue?.register(self)
        }
    }
    private var ownCoordinator: PersistentStoreCoordinator?

    /// The context this one is a child of (`parent`): it fetches and fills faults through the parent (seeing
    /// the parent's unsaved changes), and its saves push its changes into the parent's objects instead of the
    /// stores. A child is a scratch pad a modal editor can discard with ``rollback()``; the parent's save
    /// writes what children pushed. Set it, or ``persistentStoreCoordinator``, once before use, not both.
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(concurrencyType: .privateQueue)
    /// editor.parent = mainContext
    /// try editor.performAndWait {
    ///     let run = editor.object(with: runID)
    ///     run.setValue(Int64(7), forKey: "processID")
    ///     try editor.save()          // into mainContext, not the store
    /// }
    /// try mainContext.performAndWait { try mainContext.save() }   // now the store
    /// ```
    public var parent: ManagedObjectContext? {
        didSet {
            precondition(ownCoordinator == nil || parent == nil, "A context has a parent or a coordinator, not both.")
            precondition(parent !== self, "A context cannot be its own parent.")
            parent?.hasChildren.store(true, ordering: .relaxed)
            parent?.persistentStoreCoordinator?.register(self)
        }
    }
    /// Whether a child context was ever given this one as its parent; the context then remembers the permanent
    /// IDs its saves give objects its children know by temporary ID.
    let hasChildren = Atomic<Bool>(false)
    /// Permanent IDs by the temporary IDs objects had before this context saved them (kept only for contexts
    /// with children).
    var permanentIDsByTemporaryID: [ObjectID: ObjectID] = [:]
    /// The inserted objects the last ``objectsDidChangeNotification`` that had any reported, kept until the next
    /// save (or rollback), which reports the same set again when it inserts exactly those objects (see
    /// `SavedObjectSets`).
    var lastPostedInsertedObjects: Set<ManagedObject> = []

    /// How saves resolve optimistic-locking conflicts (``MergePolicy/error`` by default, as in Core Data).
    public var mergePolicy: MergePolicy = .error
    /// The store's conflict error while the merge policy resolves its conflicts (the cause of the error the
    /// error policy throws).
    var pendingConflictCause: QuireError?
    /// The application's own values kept with the context (`userInfo`), as Core Data's `NSMutableDictionary` keeps
    /// them; Quire never reads it. Use it on the context's queue.
    public var userInfo: [AnyHashable: Any] = [:]
    /// The author recorded with this context's saves in persistent history (`transactionAuthor`).
    public var transactionAuthor: String?
    /// How old, in seconds, a row read earlier may be and still fill this context's faults
    /// (`stalenessInterval`); negative (the default, -1) for any age, 0 to read every fault from its store. See
    /// ManagedObjectContext+Staleness.swift.
    public var stalenessInterval: TimeInterval = -1
    /// Whether an object whose record is gone when its fault fires counts as deleted
    /// (`shouldDeleteInaccessibleFaults`, true by default); see ManagedObjectContext+Staleness.swift.
    public var shouldDeleteInaccessibleFaults = true
    /// Whether the context merges the saves of its parent, or of the other contexts of its coordinator when it
    /// has no parent, as they happen (`automaticallyMergesChangesFromParent`); see ManagedObjectContext+AutomaticMerging.swift.
    public var automaticallyMergesChangesFromParent = false { didSet { updateAutomaticMerging() } }
    /// The query generation the context reads (see ManagedObjectContext+QueryGenerations.swift).
    var queryGenerationPin = QueryGenerationPin.unpinned
    /// The did-save observer while ``automaticallyMergesChangesFromParent`` is on.
    var automaticMergeObserver: (any NSObjectProtocol)?
    /// How many conflicts the merge policy has resolved in this context (for tests and diagnostics).
    var resolvedConflictCount = 0

    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// One object per record (see ``ObjectRegistry``). Used only on the context's queue, so its accesses are
    /// not checked for exclusivity at run time (a check costs as much as a lookup).
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// The coordinator's ``PersistentStoreCoordinator/temporaryIDOwner``, once read (see `temporaryIDOwner`).
    @exclusivity(unchecked) private var cachedTemporaryIDOwner: ObjectIDOwner?
    /// Every object changed since the last save, in the order of its first change (saves are deterministic).
    /// It holds changed objects strongly until they are saved or rolled back; their flags say how they
    /// changed. Used only on the context's queue, like the registry, so its accesses are not checked at run time.
    @exclusivity(unchecked) var changeLog: [ManagedObject] = []
    /// The change log grouped by root entity for fetches (see ``ChangeLogIndex``); used on the context's queue only.
    @exclusivity(unchecked) var changeLogIndex = ChangeLogIndex()
    /// Whether fetches with unsaved changes let the store filter, sort and limit what is saved and merge the
    /// changed objects in memory (see `fetchMergingPendingChanges`); tests turn it off to compare with the
    /// wholly in-memory pass.
    package var fetchesPendingChangesThroughStore = true
    /// How many fetches merged unsaved changes into a store's sorted and limited answer (for tests).
    package var storeMergedFetchCount = 0
    /// Store assignments made with ``assign(_:to:)``.
    var storeAssignments: [ObjectIdentifier: PersistentStore] = [:]
    /// The results of fetched properties evaluated so far, per object and property (dropped by `refresh`).
    var fetchedPropertyResults: [ObjectID: [String: [ObjectID]]] = [:]
    /// Derived attributes set by hand since the last save, which the next save reports (see `DerivedAttributes`).
    var derivedAttributeWrites: [DerivedAttributeWrite] = []
    /// The undo manager and its bookkeeping (see ManagedObjectContext+Undo.swift).
    let undoState = ContextUndoState()
    /// What changed since the last objects-did-change notification (see ManagedObjectContext+Notifications.swift).
    let changeNotes = ContextChangeNotes()

    /// Creates a context.
    ///
    /// - Parameter concurrencyType: A private queue (the default) or the main queue.
    public init(concurrencyType: ConcurrencyType = .privateQueue) {
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .privateQueue: queue = DispatchQueue(label: "quire.context")
        case .mainQueue: queue = DispatchQueue.main
        }
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        // Objects point back at their context without retaining it; every such object is registered, so
        // clearing the registered objects' pointers leaves none dangling.
        // Objects nobody else holds are released in key order, mostly the order they were made in, which walks
        // memory forward several times faster than hash order; the others forget their context.
        changeNotes.streams.finishAll()
        if let automaticMergeObserver { NotificationCenter.default.removeObserver(automaticMergeObserver) }
        for object in changeLog { object.managedObjectContext = nil }
        registry.releaseAll { $0.managedObjectContext = nil }
    }

    // MARK: Queue confinement

    /// Runs a block on the context's queue and returns at once (`perform(_:)`).
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            RunningContexts.run(self) {
                block()
                self.endOfEvent()
            }
        }
    }

    /// Runs a block on the context's queue and returns its result (Swift concurrency form of `perform`).
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    try RunningContexts.run(self) {
                        defer { self.endOfEvent() }
                        return try block()
                    }
                })
            }
        }
    }

    /// Runs a block on the context's queue and waits for it (`performAndWait(_:)`); runs it directly when
    /// the calling thread already runs a block of this context (on its queue, or further up the stack, as
    /// when a child context called from its parent's block asks the parent for rows), so calls nest.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) {
            return try block()
        }
        if concurrencyType == .mainQueue && Thread.isMainThread {
            return try block()
        }
        if RunningContexts.contains(self) {
            return try block()
        }
        return try queue.sync { try RunningContexts.run(self, block) }
    }

    // MARK: Model

    func coordinatorOrFail() -> PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            preconditionFailure("The context has no persistent store coordinator.")
        }
        return coordinator
    }

    /// What the temporary IDs of the objects the context inserts retain: its coordinator's (read once; the
    /// coordinator is set before the context is used and not changed).
    var temporaryIDOwner: ObjectIDOwner? {
        if let cached = cachedTemporaryIDOwner { return cached }
        let owner = persistentStoreCoordinator?.temporaryIDOwner
        cachedTemporaryIDOwner = owner
        return owner
    }

    /// The entity whose managed object class is `type`, in the coordinator's model.
    func entity(for type: ManagedObject.Type) -> EntityDescription? {
        persistentStoreCoordinator?.managedObjectModel.entities.first { $0.managedObjectClass == type }
    }

    // MARK: Registration and uniquing

    /// The registered object with an ID, if the context has one alive.
    public func registeredObject(for objectID: ObjectID) -> ManagedObject? {
        registry[objectID]
    }

    func register(_ object: ManagedObject) {
        registry.insert(object)
    }

    func unregister(_ object: ManagedObject) {
        registry.remove(object)
    }

    /// The object for an ID (`object(with:)`): the registered one, or a new fault that loads on first access.
    ///
    /// Within one context there is exactly one object per record, however it is reached.
    public func object(with objectID: ObjectID) -> ManagedObject {
        if let existing = registry[objectID] { return existing }
        let object = objectID.entity.managedObjectClass.init(entity: objectID.entity)
        object.objectID = objectID
        object.managedObjectContext = self
        object.storedAttributes = []
        object.storedRelationships = []
        object.faultFlag = true
        register(object)
        return object
    }

    /// The object for an ID, loading its values to prove the record exists (`existingObject(with:)`).
    ///
    /// - Throws: ``QuireError/Code/managedObjectReferentialIntegrity`` when no store has the record: its
    ///   store was removed from the coordinator (an ID kept from before a store was removed and added again is
    ///   stale), it was deleted, or the object was inserted and then deleted before being saved.
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        if let existing = registry[objectID] {
            // Inserted and deleted before any save: the object is gone, as in Core Data.
            if existing.insertedFlag && existing.deletedFlag {
                throw QuireError(
                    .managedObjectReferentialIntegrity,
                    "The object \(objectID) was inserted and then deleted before being saved.",
                    context: .init(entity: objectID.entity.name, object: objectID.uriRepresentation()))
            }
            if existing.recordIsMissing { throw missingRecordError(objectID) }
        }
        if let store = objectID.persistentStore, parent == nil,
            persistentStoreCoordinator?.persistentStores.contains(where: { $0 === store }) != true
        {
            // An ID of a store that was removed (perhaps added again since, as a new store object).
            throw missingRecordError(objectID)
        }
        if let existing = registry[objectID], !existing.faultFlag { return existing }
        if objectID.isTemporaryID && parent == nil {
            throw QuireError(
                .managedObjectReferentialIntegrity,
                "The object \(objectID) is not registered in this context.",
                context: .init(entity: objectID.entity.name, object: objectID.uriRepresentation()))
        }
        let object = self.object(with: objectID)
        if object.faultFlag { try fulfillFaultThrowing(of: object) }
        return object
    }

    /// Makes an object from a snapshot, or fills the registered one when it is a fault.
    func object(for snapshot: consuming RowSnapshot, asFault: Bool) -> ManagedObject {
        let (object, awakes) = materialize(snapshot, asFault: asFault)
        if awakes { object.awakeFromFetch() }
        return object
    }

    /// Makes an object from a snapshot, or fills the registered one when it is a fault, without calling
    /// application code: returns whether the object is due its `awakeFromFetch()`, which the caller calls
    /// once it holds no lock (a fetch streaming rows from a store materializes while reading them).
    func materialize(_ snapshot: consuming RowSnapshot, asFault: Bool) -> (ManagedObject, awakes: Bool) {
        let holdsRows = asFault && parent == nil
        return materialize(snapshot, asFault: asFault, heldRowGeneration: holdsRows ? persistentStoreCoordinator?.heldRowGeneration : nil)
    }

    /// The object registered under an ID, or a new one of its entity's class registered now (`isNew`), in no
    /// state yet: what materializing a row starts with, whatever form the row comes in.
    @inline(__always)
    func registeredObject(for id: ObjectID) -> (ManagedObject, isNew: Bool) {
        switch registry.lookup(id) {
        case .found(let existing):
            return (existing, false)
        case .vacant(let slot):
            let entity = id.entity
            let object = entity.managedObjectClass.init(entity: entity)
            object.objectID = id
            object.managedObjectContext = self
            registry.fill(slot, with: object)
            return (object, true)
        }
    }

    /// `materialize(_:asFault:)` with what it asks of the context worked out once per fetch: the
    /// coordinator's held-row generation when new faults keep their rows (a root context's fault fetch).
    func materialize(
        _ snapshot: consuming RowSnapshot, asFault: Bool, heldRowGeneration: Int?
    ) -> (ManagedObject, awakes: Bool) {
        let (object, isNew) = registeredObject(for: snapshot.objectID)
        object.recentlyFetched = true
        switch materializeStep(object, isNew: isNew, asFault: asFault, heldRowGeneration: heldRowGeneration) {
        case .holdRow(let generation):
            let row = PackedRow.make(attributes: snapshot.attributes, relationships: snapshot.relationships, generation: generation)
            makeFault(object, holding: row, version: snapshot.version)
        case .emptyFault:
            makeFault(object, holding: nil, version: object.version)
        case .fill:
            load(object, from: snapshot)
            return (object, true)
        case .keep:
            break
        }
        return (object, false)
    }

    /// Fills an object with a row's values and calls its `awakeFromFetch()`.
    func fill(_ object: ManagedObject, from snapshot: RowSnapshot) {
        load(object, from: snapshot)
        object.awakeFromFetch()
    }

    /// Gives an object a row's values: it is no longer a fault, and holds no row of its own.
    @inline(__always)
    private func load(_ object: ManagedObject, from snapshot: borrowing RowSnapshot) {
        object.heldRow = nil
        object.recordIsMissing = false
        object.storedAttributes = snapshot.attributes
        object.storedRelationships = snapshot.relationships
        object.version = snapshot.version
        object.faultFlag = false
    }

    // MARK: Changes

    /// Inserts a new object; it gets its defaults and a temporary ID, and is saved with the next save.
    public func insert(_ object: ManagedObject) {
        // The entity is read through `withEntity` here and below: `object.entity` retains and releases it each time.
        precondition(!object.withEntity { $0.isAbstract }, "Cannot insert an object of abstract entity '\(object.entity.name)'.")
        if object.managedObjectContext === self && (object.insertedFlag || registry[object.objectID] === object) {
            if object.deletedFlag { undelete(object) }
            return
        }
        precondition(object.managedObjectContext == nil, "The object already belongs to another context.")
        object.managedObjectContext = self
        if object.objectID.isUnassigned {
            let owner = temporaryIDOwner
            object.objectID = object.withEntity { ObjectID.makeTemporary(for: $0, owner: owner) }
        }
        object.insertedFlag = true
        object.faultFlag = false
        if let held = object.heldRow {
            // A fault of a context that is gone brings the values of the row it kept.
            object.heldRow = nil
            (object.attributeStorage, object.relationshipStorage) = held.unpacked(owner: object.objectID.idOwner)
        }
        object.withEntity { entity in
            if object.attributeStorage.count != entity.frozenAttributeCount {
                object.attributeStorage = entity.makeDefaultAttributeValues()
                object.relationshipStorage = entity.emptyRelationshipValues
            } else if object.storedAttributes.withUnsafeBufferPointer({ $0.baseAddress })
                == entity.defaultAttributeValues.withUnsafeBufferPointer({ $0.baseAddress })
            {
                // A new object shares its entity's array of defaults: it gets one of its own now, made more cheaply
                // than the copy its first value set would make (see `makeDefaultAttributeValues()`).
                object.storedAttributes = entity.makeDefaultAttributeValues()
            }
        }
        noteChange(object)
        register(object)
        changeNotes.inserted.append(object)
        object.insertionNotePending = undoState.undoManager == nil
        registerUndoForInsert(object)
        object.awakeFromInsert()
    }

    /// Marks an object for deletion; its delete rules run when changes are processed (at the latest, at
    /// the next save), and the record is removed by that save.
    public func delete(_ object: ManagedObject) {
        guard object.managedObjectContext === self, !object.deletedFlag else { return }
        object.fireFaultIfNeeded()
        object.deletedFlag = true
        if object.insertedFlag {
            // Never saved: it simply leaves the context, after its delete rules ran.
            pendingDeletes.append(object)
        } else {
            noteChange(object)
            pendingDeletes.append(object)
        }
        registerUndoForDelete(object)
    }

    private func undelete(_ object: ManagedObject) {
        object.deletedFlag = false
        pendingDeletes.removeAll { $0 === object }
    }

    /// Objects deleted since changes were last processed, whose delete rules have not run yet.
    var pendingDeletes: [ManagedObject] = []

    func objectDidChange(_ object: ManagedObject) {
        guard object.managedObjectContext === self, !object.insertedFlag, !object.updatedFlag else { return }
        object.updatedFlag = true
        noteChange(object)
    }

    /// Records the first change of an object since the last save.
    func noteChange(_ object: ManagedObject) {
        guard !object.isInChangeLog else { return }
        object.isInChangeLog = true
        changeLog.append(object)
    }

    /// Forgets the change log once its changes were saved or discarded.
    func clearChangeLog() {
        for object in changeLog { object.isInChangeLog = false }
        changeLog = []
        changeLogIndex.invalidate()
    }

    /// Whether the context has unsaved inserts, updates or deletes: whether any of ``insertedObjects``,
    /// ``updatedObjects`` and ``deletedObjects`` has an object (or a delete's rules have yet to run). An object
    /// inserted and then deleted before any save is in none of them and does not count, as in Core Data.
    public var hasChanges: Bool {
        pendingDeletes.contains { !$0.insertedFlag } || changeLog.contains { $0.hasChanges && !($0.insertedFlag && $0.deletedFlag) }
    }

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { Set(changeLog.lazy.filter { $0.insertedFlag && !$0.deletedFlag }) }
    /// Objects changed since the last save (not inserted ones, not deleted ones).
    public var updatedObjects: Set<ManagedObject> {
        Set(changeLog.lazy.filter { $0.updatedFlag && !$0.deletedFlag && !$0.insertedFlag })
    }
    /// Objects deleted since the last save (not inserted-then-deleted ones).
    public var deletedObjects: Set<ManagedObject> { Set(changeLog.lazy.filter { $0.deletedFlag && !$0.insertedFlag }) }

    /// Puts a newly inserted object into a particular store (`assign(_:to:)`).
    public func assign(_ object: ManagedObject, to store: PersistentStore) {
        storeAssignments[ObjectIdentifier(object)] = store
    }

    /// Discards every unsaved change (`rollback()`): inserted objects leave the context, updated and deleted
    /// objects get their saved values back.
    public func rollback() {
        for object in changeLog where object.insertedFlag { changeNotes.deleted.append(object) }
        for object in changeLog where !object.insertedFlag && (object.updatedFlag || object.deletedFlag) {
            changeNotes.refreshed.append(object)
        }
        for object in changeLog where object.insertedFlag {
            unregister(object)
            object.insertedFlag = false
            object.deletedFlag = false
            object.managedObjectContext = nil
        }
        for object in changeLog where object.updatedFlag || object.deletedFlag {
            if let committed = object.committedAttributes { object.attributeStorage = committed }
            if let committed = object.committedRelationships { object.relationshipStorage = committed }
            object.committedAttributes = nil
            object.committedRelationships = nil
            object.updatedFlag = false
            object.deletedFlag = false
        }
        pendingDeletes = []
        storeAssignments = [:]
        clearChangeLog()
        lastPostedInsertedObjects = []
        postObjectsDidChange()
    }

    /// Forgets every object (`reset()`): unsaved changes are discarded and registered objects leave the
    /// context; fetch again to get objects.
    public func reset() {
        rollback()
        for object in registry.removeAll() { object.managedObjectContext = nil }
        permanentIDsByTemporaryID = [:]
        fetchedPropertyResults = [:]
        _ = changeNotes.take()
        changeNotes.invalidatedAll = true
        advanceQueryGeneration()
        postObjectsDidChange()
    }

    /// Turns an object back into a fault (`refresh(_:mergeChanges:)`), releasing its values, or with
    /// `mergeChanges` reloads the store's values (for a child context, the parent's) and reapplies the
    /// object's unsaved changes on top, so its next save does not conflict with what it reloaded.
    ///
    /// An object whose record no longer exists leaves the context (see
    /// ``mergeChanges(fromContextDidSave:)-(ContextDidSave)``).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.insertedFlag else { return }
        fetchedPropertyResults[object.objectID] = nil
        if object.faultFlag {
            // A fault that still holds the row it was fetched with lets it go.
            object.heldRow = nil
            return
        }
        if mergeChanges && object.hasChanges {
            let row: RowSnapshot?
            do {
                row = try freshRow(for: object.objectID)
            } catch {
                return
            }
            guard let row else {
                forgetObjectDeletedElsewhere(object)
                return
            }
            object.rebase(on: row, rule: .objectTrump)
            changeNotes.refreshed.append(object)
            return
        }
        changeNotes.refreshed.append(object)
        object.willTurnIntoFault()
        if object.hasChanges {
            pendingDeletes.removeAll { $0 === object }
            object.updatedFlag = false
            object.deletedFlag = false
        }
        object.committedAttributes = nil
        object.committedRelationships = nil
        object.heldRow = nil
        object.storedAttributes = []
        object.storedRelationships = []
        object.faultFlag = true
        object.recordIsMissing = false
        if !mergeChanges && parent == nil { coordinatorOrFail().forgetSnapshot(for: object.objectID) }
        object.didTurnIntoFault()
        // A context that refreshes objects to let their values go, and never ends an event, must not keep them
        // all in its notes: past a bound the round ends here.
        if changeNotes.refreshed.count >= ContextChangeNotes.refreshedBound { postObjectsDidChange() }
    }
}
