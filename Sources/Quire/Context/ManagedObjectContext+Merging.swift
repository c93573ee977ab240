import QuireCore
import QuireStores
import Foundation

/// What one context save changed, as object IDs: the payload of
/// ``ManagedObjectContext/didSaveNotification``.
///
/// ```swift
/// let observer = NotificationCenter.default.addObserver(
///     forName: ManagedObjectContext.didSaveNotification, object: writer, queue: nil
/// ) { notification in
///     guard let changes = ContextDidSave(notification) else { return }
///     reader.perform { reader.mergeChanges(fromContextDidSave: changes) }
/// }
/// ```
public struct ContextDidSave: Sendable, Hashable {
    /// The IDs of the objects the save inserted (permanent after a save to the stores, still temporary after
    /// a child context's save into its parent).
    public var insertedObjectIDs: Set<ObjectID>
    /// The IDs of the objects the save updated.
    public var updatedObjectIDs: Set<ObjectID>
    /// The IDs of the objects the save deleted.
    public var deletedObjectIDs: Set<ObjectID>

    /// Creates a payload.
    public init(insertedObjectIDs: Set<ObjectID> = [], updatedObjectIDs: Set<ObjectID> = [], deletedObjectIDs: Set<ObjectID> = []) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
    }

    /// Reads the payload of a did-save notification; nil for another notification.
    public init?(_ notification: Notification) {
        guard notification.name == ManagedObjectContext.didSaveNotification
            || notification.name == ManagedObjectContext.didSaveObjectIDsNotification
            || notification.name == ManagedObjectContext.didMergeChangesObjectIDsNotification,
            let info = notification.userInfo
        else { return nil }
        insertedObjectIDs = info[ManagedObjectContext.insertedObjectIDsKey] as? Set<ObjectID> ?? []
        updatedObjectIDs = info[ManagedObjectContext.updatedObjectIDsKey] as? Set<ObjectID> ?? []
        deletedObjectIDs = info[ManagedObjectContext.deletedObjectIDsKey] as? Set<ObjectID> ?? []
    }

    /// Whether the save changed nothing.
    public var isEmpty: Bool { insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty }

    /// The notification's user info.
    var userInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.insertedObjectIDsKey: insertedObjectIDs,
            ManagedObjectContext.updatedObjectIDsKey: updatedObjectIDs,
            ManagedObjectContext.deletedObjectIDsKey: deletedObjectIDs,
        ]
    }
}

extension ManagedObjectContext {
    /// Posted on `NotificationCenter.default` after every successful save of a context, on the context's
    /// queue, with the context as the object (`NSManagedObjectContextDidSaveNotification`). The user info
    /// holds `Set<ObjectID>`s under ``insertedObjectIDsKey``, ``updatedObjectIDsKey`` and
    /// ``deletedObjectIDsKey``; ``ContextDidSave/init(_:)`` reads them.
    public static let didSaveNotification = Notification.Name("NSManagedObjectContextDidSaveNotification")
    /// The user-info key of the inserted objects' IDs (Core Data's `NSInsertedObjectIDsKey`).
    public static let insertedObjectIDsKey = "inserted_objectIDs"
    /// The user-info key of the updated objects' IDs (Core Data's `NSUpdatedObjectIDsKey`).
    public static let updatedObjectIDsKey = "updated_objectIDs"
    /// The user-info key of the deleted objects' IDs (Core Data's `NSDeletedObjectIDsKey`).
    public static let deletedObjectIDsKey = "deleted_objectIDs"

    /// Brings another context's save into this one (`mergeChanges(fromContextDidSave:)`): updated objects
    /// are refreshed (unchanged ones turn into faults that reload the saved values; changed ones reload them
    /// under their own unsaved changes, so this context's next save does not conflict), deleted objects leave
    /// the context (and the relationships of registered objects), and inserted objects, already in the store,
    /// are found by the next fetch. The saving context may use another coordinator on the same store files:
    /// its IDs are matched through their URIs.
    ///
    /// Runs on the context's queue (it waits for it).
    ///
    /// - Parameter notification: A ``didSaveNotification``.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let changes = ContextDidSave(notification) else { return }
        mergeChanges(fromContextDidSave: changes)
    }

    /// Brings another context's save into this one, from the notification's payload; see
    /// ``mergeChanges(fromContextDidSave:)-(Notification)``.
    ///
    /// - Parameter changes: What the other context saved.
    public func mergeChanges(fromContextDidSave changes: ContextDidSave) {
        performAndWait {
            advanceQueryGeneration()
            let coordinator = persistentStoreCoordinator
            let own = coordinator?.persistentStores ?? []
            // IDs from a context of another coordinator (on the same files) are translated through their URIs,
            // and the rows this coordinator cached for them are dropped.
            func local(_ id: ObjectID) -> ObjectID? {
                guard let store = id.persistentStore, !own.contains(where: { $0 === store }) else { return id }
                guard let translated = coordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()) else { return nil }
                coordinator?.forgetSnapshot(for: translated)
                return translated
            }
            var merged = ContextDidSave()
            for id in changes.deletedObjectIDs {
                guard let id = local(id) else { continue }
                merged.deletedObjectIDs.insert(id)
                guard let object = registry[id] else { continue }
                changeNotes.deleted.append(object)
                forgetObjectDeletedElsewhere(object)
            }
            for id in changes.updatedObjectIDs {
                guard let id = local(id) else { continue }
                merged.updatedObjectIDs.insert(id)
                guard let object = registry[id], !object.insertedFlag else { continue }
                if object.faultFlag {
                    // A fault reloads when it fires (a row it kept is let go); it is reported as refreshed.
                    refresh(object, mergeChanges: false)
                    changeNotes.refreshed.append(object)
                } else {
                    refresh(object, mergeChanges: object.hasChanges)
                }
            }
            // Inserted objects are faulted in, as in Core Data, so observers see them.
            for id in changes.insertedObjectIDs where !id.isTemporaryID {
                guard let id = local(id) else { continue }
                merged.insertedObjectIDs.insert(id)
                changeNotes.inserted.append(object(with: id))
            }
            postObjectsDidChange()
            if !merged.isEmpty {
                NotificationCenter.default.post(name: Self.didMergeChangesObjectIDsNotification, object: self, userInfo: merged.userInfo)
            }
        }
    }

    /// Removes an object whose record another context or coordinator deleted: it leaves the registry and the
    /// relationships of the registered objects that hold it, without making them count as changed.
    func forgetObjectDeletedElsewhere(_ object: ManagedObject) {
        guard object.managedObjectContext === self else { return }
        if !object.faultFlag {
            let id = object.objectID
            for relationship in object.entity.allRelationships where relationship.slot < object.relationshipStorage.count {
                guard let inverse = relationship.resolvedInverse else { continue }
                for relatedID in object.relationshipStorage[relationship.slot].objectIDs {
                    guard let related = registry[relatedID], !related.faultFlag, inverse.slot < related.relationshipStorage.count
                    else { continue }
                    related.relationshipStorage[inverse.slot].remove(id)
                    if related.committedRelationships != nil { related.committedRelationships?[inverse.slot].remove(id) }
                }
            }
        }
        pendingDeletes.removeAll { $0 === object }
        changeNotes.invalidated.append(object)
        unregister(object)
        object.insertedFlag = false
        object.updatedFlag = false
        object.deletedFlag = false
        object.committedAttributes = nil
        object.committedRelationships = nil
        object.managedObjectContext = nil
    }

    /// Resolves optimistic-locking conflicts as a standard merge policy type does, changing the conflicting
    /// objects so that saving again succeeds (what ``MergePolicy/resolve(optimisticLockingConflicts:)`` does).
    func resolveOptimisticLocking(_ conflicts: [MergeConflict], type: MergePolicyType) {
        resolvedConflictCount += conflicts.count
        for conflict in conflicts {
            guard let object = changedObject(with: conflict.objectID) else { continue }
            guard let row = conflict.storeRow else {
                // Deleted in the store: nothing of it can be saved.
                forgetObjectDeletedElsewhere(object)
                continue
            }
            if object.deletedFlag {
                if type == .rollbackMergePolicyType {
                    object.rebase(on: row, rule: .discard)
                    pendingDeletes.removeAll { $0 === object }
                } else {
                    object.version = row.version
                }
                continue
            }
            switch type {
            case .errorMergePolicyType: return
            case .rollbackMergePolicyType: object.rebase(on: row, rule: .discard)
            case .overwriteMergePolicyType: object.rebase(on: row, rule: .overwrite)
            case .mergeByPropertyObjectTrumpMergePolicyType: object.rebase(on: row, rule: .objectTrump)
            case .mergeByPropertyStoreTrumpMergePolicyType: object.rebase(on: row, rule: .storeTrump)
            }
        }
    }

    /// The changed object with an ID (changed objects are always registered, but look in the log too).
    private func changedObject(with id: ObjectID) -> ManagedObject? {
        if let object = registry[id], object.managedObjectContext === self { return object }
        return changeLog.first { $0.objectID == id }
    }

    /// The conflicts with their objects and the values each object read (its cached snapshot) filled in.
    func withCachedSnapshots(_ conflicts: [MergeConflict]) -> [MergeConflict] {
        conflicts.map { conflict in
            var conflict = conflict
            guard let object = changedObject(with: conflict.objectID) else { return conflict }
            conflict.source = ConflictObjects([object])
            if !object.faultFlag {
                conflict.cachedValues = MergeConflict.snapshot(
                    of: object.entity, attributes: object.committedAttributes ?? object.attributeStorage,
                    relationships: object.committedRelationships ?? object.relationshipStorage)
            }
            return conflict
        }
    }

    /// The error of a save whose conflicts the merge policy does not resolve.
    func mergeError(_ conflicts: [MergeConflict], cause: QuireError?) -> QuireError {
        let first = conflicts.first
        var error = QuireError(
            .managedObjectMerge,
            "Could not merge changes: \(conflicts.count) object\(conflicts.count == 1 ? " was" : "s were") changed or "
                + "deleted in the store since this context read \(conflicts.count == 1 ? "it" : "them") "
                + "(\(conflicts.prefix(5).map(\.description).joined(separator: "; "))\(conflicts.count > 5 ? "; …" : "")).",
            context: .init(
                file: cause?.context.file, entity: first?.objectID.entity.name, object: first?.objectID.uriRepresentation(),
                objectID: first?.objectID),
            underlying: cause)
        error.conflicts = conflicts
        return error
    }
}

/// How ``ManagedObject/rebase(on:rule:)`` combines an object's values with a newer row.
enum RebaseRule {
    /// Properties the object changed keep its values; the others take the row's.
    case objectTrump
    /// Properties the row changed take its values; the others keep the object's.
    case storeTrump
    /// Every property keeps the object's value; only the version moves on.
    case overwrite
    /// Every property takes the row's value; the object's changes are discarded.
    case discard
}

extension ManagedObject {
    /// Moves the object onto a newer row of its record: its version becomes the row's, and its values combine
    /// with the row's by `rule`, property by property. Relationships: to-ones merge like attributes; to-manys
    /// keep the object's members (or, discarding, reload).
    func rebase(on row: RowSnapshot, rule: RebaseRule) {
        let entity = self.entity
        guard attributeStorage.count == entity.allAttributes.count, row.attributes.count == attributeStorage.count else { return }
        let cached = committedAttributes ?? attributeStorage
        var merged = attributeStorage
        var committed = row.attributes
        for attribute in entity.allAttributes {
            let slot = attribute.slot
            if attribute.isTransient {
                committed[slot] = cached[slot]
                continue
            }
            let local = attributeStorage[slot]
            let store = row.attributes[slot]
            switch rule {
            case .objectTrump: merged[slot] = local != cached[slot] ? local : store
            case .storeTrump: merged[slot] = store != cached[slot] ? store : local
            case .overwrite: break
            case .discard: merged[slot] = store
            }
        }
        let cachedRelationships = committedRelationships ?? relationshipStorage
        var relationships = relationshipStorage
        var committedRelationships = self.committedRelationships
        var deferred = deferredMembers
        for relationship in entity.allRelationships where !relationship.isTransient {
            let slot = relationship.slot
            guard slot < relationships.count, slot < row.relationships.count else { continue }
            if relationship.isToMany {
                if rule == .discard {
                    relationships[slot] = .fault
                } else if rule != .overwrite, !relationship.isOrdered {
                    // Merging: the store's members now, with the object's own additions and removals on top (as
                    // Core Data's refresh with merging reapplies them), so that counts kept from the set see what
                    // other contexts added. Members the store has not read yet are loaded when first needed.
                    let local = relationshipStorage[slot]
                    let cached = cachedRelationships[slot]
                    let store = row.relationships[slot]
                    guard !local.isFault, !cached.isFault else { continue }
                    var changes = DeferredMembers()
                    let localIDs = Set(local.objectIDs)
                    let cachedIDs = Set(cached.objectIDs)
                    for id in local.objectIDs where !cachedIDs.contains(id) { changes.add(id) }
                    for id in cached.objectIDs where !localIDs.contains(id) { changes.remove(id) }
                    if !store.isFault {
                        relationships[slot] = changes.applied(to: store)
                        committedRelationships?[slot] = store
                    } else if changes.isEmpty || defersMembers(toManyWithInverse: relationship) {
                        relationships[slot] = .fault
                        committedRelationships?[slot] = .fault
                        if changes.isEmpty { deferred[slot] = nil } else { deferred[slot] = changes }
                    }
                }
                continue
            }
            let local = relationshipStorage[slot]
            let store = row.relationships[slot]
            switch rule {
            case .objectTrump: relationships[slot] = local != cachedRelationships[slot] ? local : store
            case .storeTrump: relationships[slot] = store != cachedRelationships[slot] ? store : local
            case .overwrite: break
            case .discard: relationships[slot] = store
            }
            committedRelationships?[slot] = store
        }
        // An object that kept to-ones of its own which the row no longer has (`.overwrite`, with no relationship
        // changed before) records the row's as its committed relationships, as it records the row's attributes:
        // a change without committed relationships has every to-one as the row at its version holds it, so its
        // UPDATE writes none of them.
        if committedRelationships == nil, rule != .discard,
            entity.allRelationships.contains(where: { relationship in
                let slot = relationship.slot
                return !relationship.isToMany && !relationship.isTransient && slot < relationships.count
                    && slot < row.relationships.count && relationships[slot] != row.relationships[slot]
            })
        {
            var recorded = relationships
            for relationship in entity.allRelationships where !relationship.isToMany && !relationship.isTransient {
                let slot = relationship.slot
                if slot < recorded.count, slot < row.relationships.count { recorded[slot] = row.relationships[slot] }
            }
            committedRelationships = recorded
        }
        attributeStorage = merged
        relationshipStorage = relationships
        if deferred != deferredMembers { deferredMembers = deferred }
        version = row.version
        if rule == .discard {
            self.committedAttributes = nil
            self.committedRelationships = nil
            updatedFlag = false
            deletedFlag = false
        } else {
            self.committedAttributes = committed
            self.committedRelationships = committedRelationships
        }
    }
}
