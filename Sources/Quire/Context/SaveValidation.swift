import Foundation

/// The checks a save makes before it writes: required values, relationship counts and the deny rule.
enum SaveValidation {
    /// The failures of an inserted or updated object.
    static func errors(for object: ManagedObject) -> [QuireError] {
        var errors: [QuireError] = []
        let entity = object.entity
        for slot in entity.requiredAttributeSlots where object.attributeStorage[slot].isNull {
            let attribute = entity.allAttributes[slot]
            errors.append(error(.validationMissingMandatoryProperty, object, attribute.name, "\(attribute.name) is a required value."))
        }
        for relationship in entity.allRelationships where !relationship.isTransient {
            let storage = object.relationshipStorage[relationship.slot]
            if storage.isFault { continue }
            let count = storage.objectIDs.count
            if !relationship.isToMany {
                if !relationship.isOptional && count == 0 {
                    errors.append(error(.validationMissingMandatoryProperty, object, relationship.name, "\(relationship.name) is a required value."))
                }
                continue
            }
            if count == 0 && !relationship.isOptional {
                errors.append(error(.validationRelationshipLacksMinimumCount, object, relationship.name, "\(relationship.name) must have at least one object."))
            } else if count > 0 && count < relationship.minCount {
                errors.append(error(.validationRelationshipLacksMinimumCount, object, relationship.name, "\(relationship.name) has \(count) objects, fewer than its minimum of \(relationship.minCount)."))
            }
            if relationship.maxCount > 0 && count > relationship.maxCount {
                errors.append(error(.validationRelationshipExceedsMaximumCount, object, relationship.name, "\(relationship.name) has \(count) objects, more than its maximum of \(relationship.maxCount)."))
            }
        }
        return errors
    }

    /// The failures of a deleted object: relationships with the deny rule that still hold objects.
    static func deleteErrors(for object: ManagedObject) -> [QuireError] {
        var errors: [QuireError] = []
        for relationship in object.entity.allRelationships where relationship.deleteRule == .deny {
            let held = object.loadedStorage(for: relationship).objectIDs
            let live = held.filter { id in object.managedObjectContext?.registeredObject(for: id)?.isDeleted != true }
            if !live.isEmpty {
                errors.append(error(
                    .validationRelationshipDeniedDelete, object, relationship.name,
                    "\(object.entity.name) \(object.objectID) cannot be deleted: its relationship '\(relationship.name)' "
                        + "has the deny rule and still holds \(live.count) object\(live.count == 1 ? "" : "s")."))
            }
        }
        return errors
    }

    private static func error(_ code: QuireError.Code, _ object: ManagedObject, _ key: String, _ message: String) -> QuireError {
        QuireError(code, message, context: .init(entity: object.entity.name, key: key, object: object.objectID.uriRepresentation()))
    }
}
