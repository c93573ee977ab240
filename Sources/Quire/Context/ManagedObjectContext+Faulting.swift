import Foundation

extension ManagedObjectContext {
    /// Fills a fault from the coordinator (its row cache first, the store otherwise).
    ///
    /// Accessors do not throw, so a record that no longer exists (deleted by another coordinator) leaves the
    /// object with empty values; ``existingObject(with:)`` and ``fulfillFaultThrowing(of:)`` report it as
    /// ``QuireError/Code/managedObjectReferentialIntegrity``.
    func fulfillFault(of object: ManagedObject) {
        do {
            try fulfillFaultThrowing(of: object)
        } catch {
            object.attributeStorage = object.entity.allAttributes.map { _ in .null }
            object.relationshipStorage = object.entity.emptyRelationshipValues
            object.faultFlag = false
        }
    }

    /// Fills a fault, throwing when its record cannot be found.
    func fulfillFaultThrowing(of object: ManagedObject) throws {
        guard object.faultFlag else { return }
        guard let snapshot = try coordinatorOrFail().snapshot(for: object.objectID) else {
            throw QuireError(
                .managedObjectReferentialIntegrity,
                "The record of \(object.objectID) no longer exists, so its fault cannot be fulfilled.",
                context: .init(entity: object.entity.name, object: object.objectID.uriRepresentation()))
        }
        fill(object, from: snapshot)
    }

    /// Loads the members of a to-many relationship fault.
    func fulfillRelationshipFault(of object: ManagedObject, relationship: RelationshipDescription) {
        guard !object.objectID.isTemporaryID else {
            object.relationshipStorage[relationship.slot] = .empty(for: relationship)
            return
        }
        let ids = (try? coordinatorOrFail().relatedObjectIDs(of: object.objectID, relationship: relationship)) ?? []
        object.relationshipStorage[relationship.slot] =
            relationship.isOrdered ? .ordered(.init(ids)) : .toMany(Set(ids))
    }
}
