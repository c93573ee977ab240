import QuireCore
import QuireStores
import Foundation
import Synchronization

extension ManagedObjectContext {
    /// Runs the delete rules of objects deleted since the last call (`processPendingChanges()`): nullify
    /// removes the deleted object from related objects' inverse relationships, cascade deletes the related
    /// objects too. Deny is checked at save.
    public func processPendingChanges() {
        while let object = pendingDeletes.popLast() {
            object.prepareForDeletion()
            changeNotes.deleted.append(object)
            for relationship in object.entity.allRelationships {
                let related = object.loadedStorage(for: relationship).objectIDs.map { self.object(with: $0) }
                switch relationship.deleteRule {
                case .cascade:
                    for other in related {
                        if let inverse = relationship.resolvedInverse { other.removeOneSide(object.objectID, relationship: inverse) }
                        delete(other)
                    }
                case .nullify:
                    guard let inverse = relationship.resolvedInverse else { continue }
                    for other in related where !other.deletedFlag {
                        other.removeOneSide(object.objectID, relationship: inverse)
                    }
                case .deny, .noAction:
                    continue
                }
            }
        }
        endUndoEvent()
        postObjectsDidChange()
    }

    /// Saves every unsaved change (`save()`): delete rules run, objects are validated, and then either the
    /// stores commit (each in one transaction; inserted objects get permanent IDs) or, for a child context,
    /// the changes are pushed into the parent's objects. Afterwards ``didSaveNotification`` is posted.
    ///
    /// Conflicts with saves made since the objects were read (optimistic locking) are resolved by the
    /// ``mergePolicy`` and the save is retried; under ``MergePolicy/error`` they fail the save.
    ///
    /// On failure nothing in the context changes: the objects keep their unsaved changes and temporary IDs.
    ///
    /// - Throws: validation errors (1550–1680, several as ``QuireError/Code/validationMultipleErrors``),
    ///   ``QuireError/Code/managedObjectMerge`` listing the conflicts in ``QuireError/conflicts`` when the
    ///   merge policy is ``MergePolicy/error``, or a store error.
    public func save() throws {
        try performAndWait {
            // Objects inserted and deleted since the last save are not changes, but the save still lets them go.
            guard hasChanges || !pendingDeletes.isEmpty || changeLog.contains(where: \.hasChanges) || !derivedAttributeWrites.isEmpty
            else { return }
            NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
            processPendingChanges()
            // willSave may change more objects; those join the log and get their turn too. Bounded, so that
            // hooks that keep changing each other cannot loop forever.
            var index = 0
            let limit = changeLog.count * 10 + 100
            while index < changeLog.count && index < limit {
                let object = changeLog[index]
                index += 1
                if object.hasChanges { object.willSave() }
                if index == changeLog.count { processPendingChanges() }
            }
            processPendingChanges()
            var changed = changedObjectsInOrder()
            if try updateDerivedAttributes(changed) { changed = changedObjectsInOrder() }
            try validateForSave(changed)
            let objects = SavedObjectSets(changed, postedInserted: lastPostedInsertedObjects, of: self)
            let changes: ContextDidSave
            if let parent {
                changes = try push(changed, into: parent)
            } else {
                changes = try saveToStores(changed)
            }
            lastPostedInsertedObjects = []
            advanceQueryGeneration()
            if !changes.isEmpty { postDidSave(changes, objects: objects) }
        }
    }

    /// Writes the changed objects to the stores, resolving conflicts by the merge policy, and then marks
    /// them saved.
    private func saveToStores(_ changed: [ManagedObject]) throws -> ContextDidSave {
        let coordinator = coordinatorOrFail()
        let changed = try resolveConstraintConflicts(changed)
        // The coordinator holds its lock from first attempt to last, so no other context of the coordinator
        // can save between a conflict and the retry that resolves it.
        var saved = changed
        var attempts = 0
        let (request, result) = try coordinator.saveResolvingConflicts({ try makeSaveRequest(saved) }) { error in
            let conflicts = withCachedSnapshots(error.conflicts)
            attempts += 1
            guard attempts <= Self.maximumMergeAttempts else { throw mergeError(conflicts, cause: error) }
            pendingConflictCause = error
            defer { pendingConflictCause = nil }
            try mergePolicy.resolve(mergeConflicts: conflicts)
            saved = changedObjectsInOrder()
        }
        let changes = ContextDidSave(
            insertedObjectIDs: Set(result.permanentIDs),
            updatedObjectIDs: Set(request.updated.map(\.objectID)),
            deletedObjectIDs: Set(request.deleted.map(\.objectID)))
        didSave(result, of: request, saved)
        return changes
    }

    /// How many times a save resolves conflicts and tries again before it gives up (only writers outside the
    /// coordinator, such as another process, can make a second attempt conflict).
    static let maximumMergeAttempts = 8

    /// The changed objects, in the order of their first change.
    func changedObjectsInOrder() -> [ManagedObject] {
        changeLog.filter(\.hasChanges)
    }

    /// Calls each changed object's `validateForInsert()`, `validateForUpdate()` or `validateForDelete()` and
    /// throws what failed: one error, or one ``QuireError/Code/validationMultipleErrors`` listing them all.
    func validateForSave(_ changed: [ManagedObject]) throws {
        var errors: [QuireError] = []
        // Whether the previous object's entity has rules, asked again only when the entity changes (saves hold
        // runs of one entity; the objects keep their entities alive, so an identifier is not reused meanwhile).
        var lastEntity: (entity: ObjectIdentifier, hasRules: Bool)?
        for object in changed {
            // An object of exactly `ManagedObject` (no subclass that could override the validation methods)
            // whose entity has no rules has nothing to check: its `validateForInsert()`/`validateForUpdate()`
            // would find no errors.
            if type(of: object) == ManagedObject.self && !object.deletedFlag {
                let entity = object.withEntity { ObjectIdentifier($0) }
                if lastEntity?.entity != entity { lastEntity = (entity, object.withEntity { $0.hasValidationRules }) }
                if lastEntity?.hasRules == false { continue }
            }
            do {
                if object.deletedFlag {
                    if !object.insertedFlag { try object.validateForDelete() }
                } else if object.insertedFlag {
                    try object.validateForInsert()
                } else {
                    try object.validateForUpdate()
                }
            } catch {
                errors += SaveValidation.flatten(error)
            }
        }
        try SaveValidation.throwIfAny(errors)
    }

    private func makeSaveRequest(_ changed: [ManagedObject]) throws -> SaveRequest {
        let coordinator = coordinatorOrFail()
        var request = SaveRequest()
        request.transactionAuthor = transactionAuthor
        request.contextName = name
        request.inserted.reserveCapacity(changed.lazy.filter { $0.insertedFlag && !$0.deletedFlag }.count)
        // The store of the previous inserted object's entity, asked again only when the entity changes (objects
        // assigned to a store with assign(_:to:) are asked every time). `heldStore` keeps it alive; each change
        // takes it from `lastStore` unretained, so that a run of objects makes one retain a change (the change's
        // own) and no passing retain and release of a local copy (every store has a side table, so each of
        // those takes the slow path).
        var heldStore: PersistentStore?
        var lastStore: (entity: ObjectIdentifier, store: Unmanaged<PersistentStore>)?
        for object in changed {
            if object.insertedFlag {
                guard !object.deletedFlag else { continue }
                let entity = object.withEntity { ObjectIdentifier($0) }
                if !storeAssignments.isEmpty || lastStore?.entity != entity {
                    let store = try coordinator.store(for: object, in: self)
                    lastStore = (entity, Unmanaged.passUnretained(store))
                    heldStore = store
                }
                // Safe: `heldStore` holds the store `lastStore` names until the loop ends.
                guard let store = lastStore?.store else { continue }
                request.inserted.append(store._withUnsafeGuaranteedRef { change(for: object, store: $0) })
            } else if object.deletedFlag {
                guard let store = object.objectID.persistentStore else { continue }
                request.deleted.append(change(for: object, store: store))
            } else if object.updatedFlag, let store = object.objectID.persistentStore {
                request.updated.append(change(for: object, store: store, committedAttributes: object.committedAttributes))
            }
        }
        withExtendedLifetime(heldStore) {}
        return request
    }

    private func change(
        for object: ManagedObject, store: PersistentStore, committedAttributes: [AttributeValue]? = nil
    ) -> SaveRequest.Change {
        var attributes = object.attributeStorage
        var relationships = object.relationshipStorage
        // The entity read without a retain (`withEntity`); only an entity with transient properties is asked more.
        if object.withEntity({ $0.hasTransientProperties }) {
            let entity = object.entity
            for slot in entity.transientAttributeSlots { attributes[slot] = .null }
            for slot in entity.transientRelationshipSlots where slot < relationships.count { relationships[slot] = .fault }
        }
        // Made in one go (setting fields of a made change afterwards copies it); an object without a change
        // state has no committed relationships and no recorded members.
        let state = object.changeState
        return SaveRequest.Change(
            objectID: object.objectID,
            store: store,
            version: object.version,
            attributes: attributes,
            relationships: relationships,
            committedRelationships: state?.committedRelationships,
            committedAttributes: committedAttributes,
            memberChanges: state?.deferredMembers ?? [:])
    }

    private func didSave(_ result: SaveResult, of request: SaveRequest, _ saved: [ManagedObject]) {
        undoWillFinishSave(request, result)
        // The inserted objects come in the request's order, and the permanent IDs with them.
        // Only relationship values that name inserted objects by their temporary IDs need rewriting.
        let map = saved.contains(where: \.relationshipsReferenceTemporaryIDs) ? result.permanentIDsByTemporaryID(for: request) : [:]
        let remembersIDs = hasChildren.load(ordering: .relaxed)
        // One pass over the saved objects that stay (each pass retains and releases every object): an inserted
        // object takes its permanent ID (while the request's order matches), then every one is marked saved.
        var position = 0
        var idsInOrder = true
        for object in saved where !object.deletedFlag {
            if object.insertedFlag && idsInOrder {
                // The request's ID is a copy of the object's: identical, checked inline (`==` is a call that
                // copies both IDs, retaining and releasing their owners).
                if position < result.permanentIDs.count,
                    request.inserted[position].objectID.isIdentical(to: object.objectID)
                        || request.inserted[position].objectID == object.objectID
                {
                    if remembersIDs { permanentIDsByTemporaryID[object.objectID] = result.permanentIDs[position] }
                    registry.changeID(of: object, to: result.permanentIDs[position])
                    position += 1
                } else {
                    idsInOrder = false
                }
            }
            // Only an object whose relationships name a temporary ID has any to rewrite (rewriting the others
            // changed nothing but copied their relationship arrays, which the request shares).
            if !map.isEmpty && object.relationshipsReferenceTemporaryIDs {
                object.relationshipStorage.indices.forEach { object.relationshipStorage[$0].remap(map) }
            }
            // Stores start a record at version 1 and add 1 with every update (Core Data's Z_OPT).
            object.version = object.insertedFlag ? 1 : object.version + 1
            object.insertedFlag = false
            object.updatedFlag = false
            object.committedAttributes = nil
            object.committedRelationships = nil
            // The store has the members recorded without loading the sets now.
            if !object.deferredMembers.isEmpty { object.deferredMembers = [:] }
        }
        for object in saved where object.deletedFlag {
            unregister(object)
            object.deletedFlag = false
            object.insertedFlag = false
            object.managedObjectContext = nil
        }
        storeAssignments = [:]
        clearChangeLog()
        for object in saved { object.didSave() }
    }
}
