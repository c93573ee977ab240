import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObject {
    // MARK: Throwing key-value access

    /// The value of a property, like ``value(forKey:)``, throwing instead of trapping where the key or the
    /// record can come from input (a file, a user's field, a key read from a document).
    ///
    /// ```swift
    /// do {
    ///     let value = try run.validatedValue(forKey: keyFromFile)
    /// } catch let error as QuireError where error.code == .unknownKey {
    ///     // the key names no property of the entity
    /// }
    /// ```
    ///
    /// - Throws: ``QuireError/Code/unknownKey`` for a key that names no property of the entity;
    ///   ``QuireError/Code/managedObjectReferentialIntegrity`` when the object is a fault whose record no
    ///   longer exists (deleted elsewhere, or its store removed); what reading an external data file throws.
    public func validatedValue(forKey key: String) throws -> Any? {
        let property = try knownProperty(forKey: key)
        if let context = managedObjectContext, faultFlag || recordIsMissing { try context.fulfillFaultThrowing(of: self) }
        if let attribute = property as? AttributeDescription, case .externalData = attributeValue(at: attribute.slot) {
            return ValueCoercion.publicValue(try resolvedAttributeValue(at: attribute.slot, key: attribute.name), for: attribute)
        }
        return value(forKey: key)
    }

    /// Sets the value of a property, like ``setValue(_:forKey:)-(Any?,String)``, throwing instead of trapping for values
    /// that can come from input.
    ///
    /// An integer outside its attribute's range (40 000 for an Integer 16) is not an error here: it is stored,
    /// and the save fails validation with ``QuireError/Code/validationNumberTooLarge`` or
    /// ``QuireError/Code/validationNumberTooSmall`` naming the key, as in Core Data (``setValue(_:forKey:)-(Any?,String)``
    /// does the same).
    ///
    /// - Throws: ``QuireError/Code/unknownKey`` for a key that names no property of the entity;
    ///   ``QuireError/Code/invalidValue`` for a value the property cannot hold (a string for a date, a
    ///   fractional number for an integer, something other than managed objects of the destination entity in
    ///   this context for a relationship); ``QuireError/Code/managedObjectReferentialIntegrity`` when the
    ///   object is a fault whose record no longer exists. Nothing is changed when it throws.
    public func setValidatedValue(_ value: Any?, forKey key: String) throws {
        let property = try knownProperty(forKey: key)
        if let context = managedObjectContext, faultFlag || recordIsMissing { try context.fulfillFaultThrowing(of: self) }
        switch property {
        case let attribute as AttributeDescription:
            try checkNotDerived(attribute)
            let converted = try ValueCoercion.attributeValue(from: value, for: attribute, keepingIntegersOutOfRange: true)
            setAttributeValue(converted, at: attribute.slot)
        case let relationship as RelationshipDescription:
            try checkRelationshipValue(value, for: relationship)
            setValue(value, forKey: key)
        case let composite as CompositeAttributeDescription:
            try setCompositeValue(value, for: composite)
        default:
            setValue(value, forKey: key)
        }
    }

    /// The property a key names, or ``QuireError/Code/unknownKey``.
    private func knownProperty(forKey key: String) throws -> PropertyDescription {
        guard let property = entity.property(named: key) else {
            throw QuireError(
                .unknownKey, "Entity '\(entity.name)' has no property named '\(key)'.",
                context: .init(entity: entity.name, key: key))
        }
        return property
    }

    /// Checks what ``setValue(_:forKey:)-(Any?,String)`` would trap on for a relationship value.
    private func checkRelationshipValue(_ value: Any?, for relationship: RelationshipDescription) throws {
        func invalid(_ reason: String) -> QuireError {
            QuireError(
                .invalidValue, "Unacceptable value for relationship '\(relationship.name)' of entity '\(entity.name)': \(reason).",
                context: .init(entity: entity.name, key: relationship.name))
        }
        guard let objects = ManagedObject.relationshipMembers(of: value) else {
            throw invalid("it takes managed objects, not \(Self.memberTypeName(of: value))")
        }
        if !relationship.isToMany && objects.count > 1 { throw invalid("a to-one relationship takes one object") }
        for object in objects {
            if let destination = relationship.resolvedDestination, !object.entity.isKind(of: destination) {
                throw invalid("it takes '\(relationship.destinationEntityName)' objects, not '\(object.entity.name)'")
            }
            if object.managedObjectContext !== managedObjectContext {
                throw invalid("objects in different contexts cannot be related")
            }
        }
    }
}

extension ManagedObject {
    /// The type of a value, or of the first element of a sequence that is not a managed object, for messages.
    static func memberTypeName(of value: Any?) -> String {
        if let sequence = value as? any Sequence {
            for element in sequence where !(element is ManagedObject) { return "\(type(of: element))" }
        }
        return "\(type(of: value as Any))"
    }
}
