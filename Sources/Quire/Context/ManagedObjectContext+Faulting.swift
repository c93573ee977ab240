@_spi(QuireEngine) import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Fills a fault from the coordinator (its row cache first, the store otherwise), or for a child context
    /// from its parent.
    ///
    /// Accessors do not throw, so a record that no longer exists (deleted by another coordinator, or in a store
    /// that was removed) leaves the object with empty values, marked as missing its record;
    /// ``existingObject(with:)``, ``ManagedObject/validatedValue(forKey:)`` and ``fulfillFaultThrowing(of:)``
    /// report it as ``QuireError/Code/managedObjectReferentialIntegrity``.
    func fulfillFault(of object: ManagedObject) {
        do {
            try fulfillFaultThrowing(of: object)
        } catch {
            object.heldRow = nil
            object.storedAttributes = object.entity.allAttributes.map { _ in .null }
            object.storedRelationships = object.entity.emptyRelationshipValues
            object.faultFlag = false
            object.recordIsMissing = true
        }
    }

    /// Fills a fault, throwing when its record cannot be found.
    func fulfillFaultThrowing(of object: ManagedObject) throws {
        if object.recordIsMissing { throw missingRecordError(object.objectID) }
        guard object.faultFlag else { return }
        // A fault has no unsaved changes: changes recorded to its to-many faults before it became one are gone.
        if !object.deferredMembers.isEmpty { object.deferredMembers = [:] }
        let mayUseEarlierRows = stalenessInterval < 0 || rowsReadEarlierAreFreshEnough()
        if let held = object.heldRow {
            object.heldRow = nil
            if mayUseEarlierRows,
                coordinatorOrFail().heldRowIsCurrent(object.objectID, version: object.version, generation: held.header.generation)
            {
                if held.isPacked {
                    // The packed row stays as the object's values (see `ManagedObject+PackedValues.swift`).
                    object.storedAttributes = []
                    object.storedRelationships = []
                    object.heldRow = held
                } else {
                    (object.storedAttributes, object.storedRelationships) = held.unpacked(owner: object.objectID.idOwner)
                }
                object.faultFlag = false
                object.awakeFromFetch()
                return
            }
            // Another context of this coordinator saved the record since: read it again.
        }
        switch try mayUseEarlierRows ? faultRow(for: object.objectID) : freshRow(for: object.objectID).map(FaultRow.arrays) {
        case .packed(let row):
            // The packed row becomes the object's values, as a filled fetched object's does.
            load(object, packed: row.values, version: row.version)
            object.awakeFromFetch()
        case .arrays(let snapshot): fill(object, from: snapshot)
        case nil: throw missingRecordError(object.objectID)
        }
    }

    /// The error of an object whose record cannot be found (`NSManagedObjectReferentialIntegrityError`).
    func missingRecordError(_ objectID: ObjectID) -> QuireError {
        if objectID.storeWasRemoved {
            return QuireError(
                .managedObjectReferentialIntegrity,
                "The store of \(objectID.entity.name) \(objectID.primaryKey ?? 0) was removed from its coordinator, so its "
                    + "fault cannot be fulfilled.",
                context: .init(entity: objectID.entity.name, object: objectID.uriRepresentation()))
        }
        return QuireError(
            .managedObjectReferentialIntegrity,
            "The record of \(objectID) does not exist (deleted, or its store was removed), so its fault cannot be fulfilled.",
            context: .init(entity: objectID.entity.name, object: objectID.uriRepresentation()))
    }

    /// Loads the members of a to-many relationship fault (from the parent, for a child context).
    func fulfillRelationshipFault(of object: ManagedObject, relationship: RelationshipDescription) {
        let ids = (try? relatedObjectIDs(of: object.objectID, relationship: relationship)) ?? []
        object.relationshipStorage[relationship.slot] = object.applyingDeferredMembers(
            to: relationship.isOrdered ? .ordered(.init(ids)) : .toMany(Set(ids)), slot: relationship.slot)
    }
}
