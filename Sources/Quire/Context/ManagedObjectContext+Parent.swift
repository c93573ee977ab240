import QuireCore
import QuireStores
import Foundation

/// Child contexts: a context with a ``ManagedObjectContext/parent`` reads rows from its parent (which sees
/// its own unsaved changes) instead of the coordinator, and saves by pushing its changes into the parent's
/// objects. Each request to the parent runs on the parent's queue (`performAndWait`).
extension ManagedObjectContext {
    // MARK: Reading through the parent

    /// The row of an object as this context's source sees it: the parent's object, or the coordinator's row
    /// cache and then the store.
    func row(for objectID: ObjectID) throws -> RowSnapshot? {
        guard let parent else { return try readingStores { try coordinatorOrFail().snapshot(for: objectID) } }
        return try parent.performAndWait { try parent.rowForChild(objectID) }
    }

    /// The row to fire an object's fault with: from the parent, or from the store (packed when the store reads
    /// rows packed).
    func faultRow(for objectID: ObjectID) throws -> FaultRow? {
        guard let parent else { return try readingStores { try coordinatorOrFail().faultRow(for: objectID) } }
        return try parent.performAndWait { try parent.rowForChild(objectID) }.map(FaultRow.arrays)
    }

    /// The row of an object read afresh: from the parent, or from the store (refreshing the row cache).
    func freshRow(for objectID: ObjectID) throws -> RowSnapshot? {
        guard let parent else { return try readingStores { try coordinatorOrFail().freshSnapshot(for: objectID) } }
        return try parent.performAndWait { try parent.rowForChild(objectID) }
    }

    /// The members of an object's to-many relationship as this context's source sees them.
    func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        guard let parent else {
            guard !objectID.isTemporaryID else { return [] }
            return try readingStores { try coordinatorOrFail().relatedObjectIDs(of: objectID, relationship: relationship) }
        }
        return try parent.performAndWait { try parent.relatedObjectIDsForChild(objectID, relationship: relationship) }
    }

    /// The rows a fetch matches as this context's source sees them: for a child, every object of the parent
    /// that matches, the parent's unsaved changes included, unsorted and unlimited (the child sorts and
    /// limits after merging its own changes).
    func fetchSourceRows(_ fetch: StoreFetch, stores: [PersistentStore]?, cachesRows: Bool) throws -> [RowSnapshot] {
        guard let parent else {
            return try readingStores { try coordinatorOrFail().fetchRows(fetch, stores: stores, cachesRows: cachesRows) }
        }
        return try parent.performAndWait { try parent.rowsForChild(fetch, stores: stores) }
    }

    /// An object's ID in this context: the permanent ID a save gave an object the child knows by its
    /// temporary ID, or the ID itself.
    private func localID(_ id: ObjectID) -> ObjectID {
        guard id.isTemporaryID, !permanentIDsByTemporaryID.isEmpty else { return id }
        return permanentIDsByTemporaryID[id] ?? id
    }

    /// The object with an ID as this context has it (for a child's request), or nil when it has no such
    /// record: a temporary ID it does not know, or a deleted object.
    private func objectForChild(_ id: ObjectID) throws -> ManagedObject? {
        let id = localID(id)
        if let object = registry[id] {
            guard !object.deletedFlag else { return nil }
            if object.faultFlag { try fulfillFaultThrowing(of: object) }
            return object
        }
        guard !id.isTemporaryID, let row = try row(for: id) else { return nil }
        return object(for: row, asFault: false)
    }

    /// The row of an object, for a child: this context's values, unsaved changes included.
    fileprivate func rowForChild(_ id: ObjectID) throws -> RowSnapshot? {
        guard let object = try objectForChild(id) else { return nil }
        return RowSnapshot(
            objectID: id, version: object.version, attributes: object.attributeStorage,
            relationships: object.relationshipStorage.map { $0.isFault ? .fault : $0 })
    }

    fileprivate func relatedObjectIDsForChild(_ id: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        guard let object = try objectForChild(id) else { return [] }
        return object.loadedStorage(for: relationship).objectIDs
    }

    fileprivate func rowsForChild(_ fetch: StoreFetch, stores: [PersistentStore]?) throws -> [RowSnapshot] {
        var all = fetch
        all.limit = 0
        all.offset = 0
        all.sortKeys = []
        return try mergedObjects(all, stores: stores, asFaults: false, includePending: true).map { object in
            if object.faultFlag { fulfillFault(of: object) }
            return RowSnapshot(
                objectID: object.objectID, version: object.version, attributes: object.attributeStorage,
                relationships: object.relationshipStorage)
        }
    }

    // MARK: Saving into the parent

    /// Pushes a child's changes into its parent's objects (`save()` of a child context): inserted objects
    /// appear in the parent as inserted (same temporary IDs), changed properties are set on the parent's
    /// objects, deleted objects are deleted there. Nothing reaches the stores until the parent saves.
    func push(_ changed: [ManagedObject], into parent: ManagedObjectContext) throws -> ContextDidSave {
        var changes = ContextDidSave()
        try parent.performAndWait {
            // Check first, so a failure leaves the parent untouched.
            for object in changed where !object.insertedFlag {
                let id = parent.localID(object.objectID)
                if parent.registry[id] == nil && id.isTemporaryID {
                    throw QuireError(
                        .managedObjectReferentialIntegrity,
                        "The object \(object.objectID) is not in the parent context any more; the child cannot save it.",
                        context: .init(entity: object.entity.name, object: object.objectID.uriRepresentation(), objectID: object.objectID))
                }
            }
            for object in changed {
                if object.insertedFlag {
                    guard !object.deletedFlag else { continue }
                    parent.adoptInserted(object)
                    changes.insertedObjectIDs.insert(object.objectID)
                } else if object.deletedFlag {
                    parent.applyDelete(of: object)
                    changes.deletedObjectIDs.insert(object.objectID)
                } else if object.updatedFlag {
                    parent.applyUpdate(of: object)
                    changes.updatedObjectIDs.insert(object.objectID)
                }
            }
            parent.postObjectsDidChange()
        }
        for object in changed where object.deletedFlag {
            unregister(object)
            object.deletedFlag = false
            object.insertedFlag = false
            object.managedObjectContext = nil
        }
        for object in changed where object.managedObjectContext === self {
            object.insertedFlag = false
            object.updatedFlag = false
            object.committedAttributes = nil
            object.committedRelationships = nil
        }
        storeAssignments = [:]
        clearChangeLog()
        for object in changed { object.didSave() }
        return changes
    }

    /// Relationship values with the IDs the parent knows objects by.
    private func localRelationships(_ relationships: [RelationshipStorage]) -> [RelationshipStorage] {
        guard !permanentIDsByTemporaryID.isEmpty else { return relationships }
        return relationships.map { storage in
            var storage = storage
            storage.remap(permanentIDsByTemporaryID)
            return storage
        }
    }

    /// A child's inserted object, as an inserted object of this context with the same temporary ID.
    private func adoptInserted(_ child: ManagedObject) {
        let entity = child.entity
        let object: ManagedObject
        if let existing = registry[child.objectID] {
            object = existing
        } else {
            object = entity.managedObjectClass.init(entity: entity)
            object.objectID = child.objectID
            object.managedObjectContext = self
            object.insertedFlag = true
            register(object)
        }
        object.faultFlag = false
        object.attributeStorage = child.attributeStorage
        object.relationshipStorage = localRelationships(child.relationshipStorage)
        noteChange(object)
        changeNotes.inserted.append(object)
        if let store = child.managedObjectContext?.storeAssignments[ObjectIdentifier(child)] {
            storeAssignments[ObjectIdentifier(object)] = store
        }
    }

    /// A child's changed properties, set on this context's object.
    private func applyUpdate(of child: ManagedObject) {
        let object = self.object(with: localID(child.objectID))
        object.fireFaultIfNeeded()
        if let committed = child.committedAttributes {
            for slot in child.attributeStorage.indices where slot < committed.count && committed[slot] != child.attributeStorage[slot] {
                object.setAttributeValue(child.attributeStorage[slot], at: slot)
            }
        }
        if let committed = child.committedRelationships {
            let current = localRelationships(child.relationshipStorage)
            for slot in current.indices where slot < committed.count && !current[slot].isFault && committed[slot] != child.relationshipStorage[slot] {
                object.willChangeRelationships()
                object.relationshipStorage[slot] = current[slot]
            }
        }
    }

    /// A child's deletion, applied here (its delete rules already ran in the child, which pushes their
    /// effects as updates).
    private func applyDelete(of child: ManagedObject) {
        let object = self.object(with: localID(child.objectID))
        changeNotes.deleted.append(object)
        if object.insertedFlag {
            // Inserted here and never saved: it simply leaves this context.
            unregister(object)
            object.insertedFlag = false
            object.managedObjectContext = nil
            return
        }
        object.fireFaultIfNeeded()
        object.deletedFlag = true
        noteChange(object)
    }
}
