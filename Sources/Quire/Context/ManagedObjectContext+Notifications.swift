import QuireCore
import QuireStores
import Foundation

/// The objects one ``ManagedObjectContext/objectsDidChangeNotification`` reports, as sets of objects (for use
/// on the context's queue). Core Data's keys: an object is in one set only.
struct ObjectsDidChange {
    /// Inserted objects (`NSInsertedObjectsKey`): inserted here, by a child's save, or by a merged save.
    var inserted: Set<ManagedObject>
    /// Changed objects (`NSUpdatedObjectsKey`).
    var updated: Set<ManagedObject>
    /// Deleted objects (`NSDeletedObjectsKey`), cascades included, and objects a merged save deleted.
    var deleted: Set<ManagedObject>
    /// Refreshed objects (`NSRefreshedObjectsKey`), by `refresh(_:mergeChanges:)` or a merged save.
    var refreshed: Set<ManagedObject>
    /// Objects that left the context because their records are gone (`NSInvalidatedObjectsKey`).
    var invalidated: Set<ManagedObject>
    /// Whether every object was invalidated by ``ManagedObjectContext/reset()`` (`NSInvalidatedAllObjectsKey`).
    var invalidatedAll: Bool

    /// The sets from a context's notes: an object inserted and deleted in the same event is in neither, an
    /// inserted or deleted one is not also updated, and one deleted by a merge is not also invalidated.
    init(_ notes: ContextChangeNotes) {
        var deleted = Set(notes.deleted)
        var inserted = Set(notes.inserted)
        if !deleted.isEmpty && !inserted.isEmpty {
            let bornAndGone = inserted.intersection(deleted)
            inserted.subtract(bornAndGone)
            deleted.subtract(bornAndGone)
            inserted = inserted.filter { !$0.deletedFlag }
        }
        self.inserted = inserted
        self.deleted = deleted
        // An object inserted earlier and changed since is updated; one inserted in this round is only inserted.
        var updated = Set<ManagedObject>()
        for object in notes.updated where !inserted.contains(object) && !deleted.contains(object) && !object.deletedFlag {
            updated.insert(object)
        }
        self.updated = updated
        invalidated = notes.invalidated.isEmpty ? [] : Set(notes.invalidated).subtracting(deleted)
        refreshed = notes.refreshed.isEmpty ? [] : Set(notes.refreshed).subtracting(deleted).subtracting(invalidated)
        invalidatedAll = notes.invalidatedAll
    }

    /// Whether nothing is reported.
    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }
}

/// What one ``ManagedObjectContext/objectsDidChangeNotification`` reported, as object IDs: the `Sendable`
/// element of ``ManagedObjectContext/objectChanges``.
///
/// ```swift
/// for await change in context.objectChanges {
///     print(change.insertedObjectIDs.count, "inserted,", change.deletedObjectIDs.count, "deleted")
/// }
/// ```
public struct ContextObjectsDidChange: Sendable, Hashable {
    /// The IDs of inserted objects (temporary until they are saved).
    public var insertedObjectIDs: Set<ObjectID>
    /// The IDs of changed objects.
    public var updatedObjectIDs: Set<ObjectID>
    /// The IDs of deleted objects.
    public var deletedObjectIDs: Set<ObjectID>
    /// The IDs of refreshed objects.
    public var refreshedObjectIDs: Set<ObjectID>
    /// The IDs of invalidated objects.
    public var invalidatedObjectIDs: Set<ObjectID>
    /// Whether the context was reset, invalidating every object.
    public var invalidatedAllObjects: Bool

    /// Creates a payload.
    public init(
        insertedObjectIDs: Set<ObjectID> = [], updatedObjectIDs: Set<ObjectID> = [], deletedObjectIDs: Set<ObjectID> = [],
        refreshedObjectIDs: Set<ObjectID> = [], invalidatedObjectIDs: Set<ObjectID> = [], invalidatedAllObjects: Bool = false
    ) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
        self.refreshedObjectIDs = refreshedObjectIDs
        self.invalidatedObjectIDs = invalidatedObjectIDs
        self.invalidatedAllObjects = invalidatedAllObjects
    }

    init(_ change: ObjectsDidChange) {
        self.init(
            insertedObjectIDs: Set(change.inserted.map(\.objectID)), updatedObjectIDs: Set(change.updated.map(\.objectID)),
            deletedObjectIDs: Set(change.deleted.map(\.objectID)), refreshedObjectIDs: Set(change.refreshed.map(\.objectID)),
            invalidatedObjectIDs: Set(change.invalidated.map(\.objectID)), invalidatedAllObjects: change.invalidatedAll)
    }
}

extension ManagedObjectContext {
    /// Posted on `NotificationCenter.default`, on the context's queue with the context as the object, when the
    /// context processes its pending changes (`NSManagedObjectContextObjectsDidChangeNotification`): at
    /// ``processPendingChanges()``, at the end of every ``perform(_:)-(()->Void)`` block (Core Data's end of event; not
    /// after ``performAndWait(_:)``, as in Core Data), before a save, when a child saves into it, and after
    /// ``mergeChanges(fromContextDidSave:)-(ContextDidSave)``, ``rollback()`` and ``reset()``.
    ///
    /// The user info holds `Set<ManagedObject>`s under ``insertedObjectsKey``, ``updatedObjectsKey``,
    /// ``deletedObjectsKey``, ``refreshedObjectsKey`` and ``invalidatedObjectsKey`` (only the non-empty ones),
    /// and `true` under ``invalidatedAllObjectsKey`` after a reset. The objects belong to the context's queue.
    public static let objectsDidChangeNotification = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted at the start of a save that has changes, before delete rules run and objects' `willSave()`
    /// (`NSManagedObjectContextWillSaveNotification`); no user info.
    public static let willSaveNotification = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a save with the saved objects' IDs only (`NSManagedObjectContextDidSaveObjectIDsNotification`),
    /// after ``didSaveNotification``; ``ContextDidSave/init(_:)`` reads it too.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted by a context after ``mergeChanges(fromContextDidSave:)-(ContextDidSave)`` merged changes, with the IDs (as this
    /// context knows them) under the ID keys (`NSManagedObjectContextDidMergeChangesObjectIDsNotification`).
    public static let didMergeChangesObjectIDsNotification = Notification.Name(
        "NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// The user-info key of inserted objects (`NSInsertedObjectsKey`).
    public static let insertedObjectsKey = "inserted"
    /// The user-info key of updated objects (`NSUpdatedObjectsKey`).
    public static let updatedObjectsKey = "updated"
    /// The user-info key of deleted objects (`NSDeletedObjectsKey`).
    public static let deletedObjectsKey = "deleted"
    /// The user-info key of refreshed objects (`NSRefreshedObjectsKey`).
    public static let refreshedObjectsKey = "refreshed"
    /// The user-info key of invalidated objects (`NSInvalidatedObjectsKey`).
    public static let invalidatedObjectsKey = "invalidated"
    /// The user-info key set after a reset (`NSInvalidatedAllObjectsKey`).
    public static let invalidatedAllObjectsKey = "invalidatedAll"

    /// A stream of what every ``objectsDidChangeNotification`` of this context reports, as object IDs: the
    /// Swift-concurrency form of observing the notification. Each read of the property makes a new stream;
    /// it ends when its consumer stops iterating, or when the context is deallocated. Changes made before the stream was made are not in it.
    public var objectChanges: AsyncStream<ContextObjectsDidChange> {
        changeNotes.streams.makeStream()
    }

    /// Registers an in-process observer of the context's object changes, called on its queue; returns the
    /// token that removes it.
    func addObjectsDidChangeObserver(_ observer: @escaping (ObjectsDidChange) -> Void) -> Int {
        changeNotes.nextObserverToken += 1
        changeNotes.observers[changeNotes.nextObserverToken] = observer
        return changeNotes.nextObserverToken
    }

    /// Removes an observer added with `addObjectsDidChangeObserver(_:)`.
    func removeObjectsDidChangeObserver(_ token: Int) {
        changeNotes.observers[token] = nil
    }

    /// Posts ``objectsDidChangeNotification`` with what was noted since it was last posted, if anything.
    func postObjectsDidChange() {
        guard !changeNotes.isEmpty else { return }
        let change = ObjectsDidChange(changeNotes.take())
        guard !change.isEmpty else { return }
        var info: [AnyHashable: Any] = [:]
        if !change.inserted.isEmpty { info[Self.insertedObjectsKey] = change.inserted }
        if !change.updated.isEmpty { info[Self.updatedObjectsKey] = change.updated }
        if !change.deleted.isEmpty { info[Self.deletedObjectsKey] = change.deleted }
        if !change.refreshed.isEmpty { info[Self.refreshedObjectsKey] = change.refreshed }
        if !change.invalidated.isEmpty { info[Self.invalidatedObjectsKey] = change.invalidated }
        if change.invalidatedAll { info[Self.invalidatedAllObjectsKey] = true }
        if !change.inserted.isEmpty { lastPostedInsertedObjects = change.inserted }
        for observer in changeNotes.observers.values { observer(change) }
        changeNotes.streams.yield(ContextObjectsDidChange(change))
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: info)
    }

    /// Processes pending changes at the end of a ``perform(_:)-(()->Void)`` block, Core Data's end of an event.
    func endOfEvent() {
        guard !pendingDeletes.isEmpty || !changeNotes.isEmpty else { return }
        processPendingChanges()
    }

    /// Posts ``didSaveNotification`` (object sets and IDs) and ``didSaveObjectIDsNotification`` (IDs).
    func postDidSave(_ changes: ContextDidSave, objects: SavedObjectSets) {
        var info = changes.userInfo
        info[Self.insertedObjectsKey] = objects.inserted
        info[Self.updatedObjectsKey] = objects.updated
        info[Self.deletedObjectsKey] = objects.deleted
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: info)
        NotificationCenter.default.post(name: Self.didSaveObjectIDsNotification, object: self, userInfo: changes.userInfo)
    }
}

/// The objects a save inserted, updated and deleted, taken before the save clears their flags.
struct SavedObjectSets {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []

    /// The sets of the changed objects of `context`. `posted` is the inserted set the context's last
    /// ``ManagedObjectContext/objectsDidChangeNotification`` reported: when it holds exactly the objects the save
    /// inserts (most saves insert what was inserted since the last one, posted once as the save began), it is
    /// the inserted set, shared rather than built again (a hash insertion per object).
    init(_ changed: [ManagedObject], postedInserted posted: Set<ManagedObject>, of context: ManagedObjectContext) {
        // Each set made once at its final size (growing one rehashes every object it held).
        var insertedCount = 0
        var updatedCount = 0
        var deletedCount = 0
        for object in changed {
            if object.deletedFlag {
                if !object.insertedFlag { deletedCount += 1 }
            } else if object.insertedFlag {
                insertedCount += 1
            } else if object.updatedFlag {
                updatedCount += 1
            }
        }
        // `changed` holds every object of the context's change log with changes, so its inserted objects are
        // those in the log that are inserted and not deleted: a set of as many objects, each of them such an
        // object, is that very set.
        let reusesPosted =
            insertedCount > 0 && posted.count == insertedCount
            && posted.allSatisfy { object in
                object.insertedFlag && !object.deletedFlag && object.isInChangeLog && object.managedObjectContext === context
            }
        if reusesPosted {
            inserted = posted
        } else {
            inserted.reserveCapacity(insertedCount)
        }
        updated.reserveCapacity(updatedCount)
        deleted.reserveCapacity(deletedCount)
        for object in changed {
            if object.deletedFlag {
                if !object.insertedFlag { deleted.insert(object) }
            } else if object.insertedFlag {
                if !reusesPosted { inserted.insert(object) }
            } else if object.updatedFlag {
                updated.insert(object)
            }
        }
    }
}
