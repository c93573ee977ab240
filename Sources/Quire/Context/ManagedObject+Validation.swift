import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObject {
    /// Checks a value for one property without setting it (`validateValue(_:forKey:)`): the property's rules
    /// in the model, then the subclass's method when ``keysWithValidationMethods`` names the key.
    ///
    /// ```swift
    /// var pid: Any? = Int64(0)
    /// do {
    ///     try run.validateValue(&pid, forKey: "processID")
    /// } catch let error as QuireError {
    ///     print(error.message)   // Process ID must not be less than 1
    /// }
    /// ```
    ///
    /// Values set with ``setValue(_:forKey:)-(Any?,String)`` are not checked until the context saves; call this to check one
    /// before setting it (an editor's field, say).
    ///
    /// - Parameters:
    ///   - value: The value, as ``setValue(_:forKey:)-(Any?,String)`` takes it; a validation method may replace it.
    ///   - key: The property's key. An unknown key is a programmer error.
    /// - Throws: The failure (codes 1550–1680), ``QuireError/Code/validationMultipleErrors`` listing several,
    ///   or ``QuireError/Code/invalidValue`` for a value of the wrong type.
    public func validateValue(_ value: inout Any?, forKey key: String) throws {
        guard let property = self.property(forKey: key) else { return }
        var errors: [QuireError] = []
        switch property {
        case let attribute as AttributeDescription:
            let converted = try ValueCoercion.attributeValue(from: value, for: attribute, keepingIntegersOutOfRange: true)
            SaveValidation.check(converted, of: attribute, object: self, into: &errors)
        case let relationship as RelationshipDescription:
            if relationship.hasValidationRules {
                SaveValidation.check(validationStorage(from: value, for: relationship), of: relationship, object: self, into: &errors)
            }
        default:
            break
        }
        if type(of: self).keysWithValidationMethods.contains(key) {
            SaveValidation.callValidationMethod(of: self, property: property, value: &value, into: &errors)
        }
        try SaveValidation.throwIfAny(errors)
    }

    /// A relationship value, as given to ``validateValue(_:forKey:)``, as stored IDs.
    private func validationStorage(from value: Any?, for relationship: RelationshipDescription) -> RelationshipStorage {
        guard let objects = ManagedObject.relationshipMembers(of: value) else {
            preconditionFailure("Relationship '\(relationship.name)' takes managed objects, not \(type(of: value)).")
        }
        let ids = objects.map(\.objectID)
        if !relationship.isToMany { return .toOne(ids.first) }
        return relationship.isOrdered ? .ordered(OrderedSet(ids)) : .toMany(Set(ids))
    }
}

extension ManagedObject {
    /// The objects a value for a relationship holds: none for nil, the object, or the members of a set, array,
    /// ordered set or other sequence of managed objects; nil when the value is anything else.
    static func relationshipMembers(of value: Any?) -> [ManagedObject]? {
        switch value {
        case nil: return []
        case let object as ManagedObject: return [object]
        case let set as Set<ManagedObject>: return Array(set)
        case let array as [ManagedObject]: return array
        case let ordered as OrderedSet<ManagedObject>: return Array(ordered)
        case let sequence as any Sequence:
            var objects: [ManagedObject] = []
            for element in sequence {
                guard let object = element as? ManagedObject else { return nil }
                objects.append(object)
            }
            return objects
        default: return nil
        }
    }
}
