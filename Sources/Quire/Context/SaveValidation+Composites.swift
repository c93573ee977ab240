import QuireCore
import Foundation

extension SaveValidation {
    /// Checks the composite attributes' own `isOptional`: a required composite whose elements are all nil has no value,
    /// and fails as a required attribute does (`NSValidationMissingMandatoryPropertyError`, keyed by the composite's
    /// name, `address`). A required composite nested in another (`address.geo`) is checked when its parent has a value.
    /// A composite's elements are checked on their own as attributes (`address.city`).
    static func checkRequiredComposites(of object: ManagedObject, into errors: inout [QuireError]) {
        for composite in object.entity.allComposites where !composite.isOptional || composite.hasRequiredNestedComposite {
            check(composite, path: [composite.name], leaves: composite.leaves, object: object, into: &errors)
        }
    }

    /// Checks one composite, given the leaves below it (their paths start with `path`), then its nested composites.
    private static func check(
        _ composite: CompositeAttributeDescription, path: [String], leaves: [CompositeAttributeDescription.Leaf],
        object: ManagedObject, into errors: inout [QuireError]
    ) {
        let storage = object.attributeStorage
        let hasValue = leaves.contains { leaf in
            leaf.attribute.slot < storage.count && !storage[leaf.attribute.slot].isNull
        }
        guard hasValue else {
            if !composite.isOptional && !composite.isTransient {
                let key = path.joined(separator: ".")
                errors.append(QuireError(
                    .validationMissingMandatoryProperty,
                    ValidationMessages.message(.validationMissingMandatoryProperty, property: composite, entity: object.entity),
                    context: .init(
                        entity: object.entity.name, key: key, object: object.objectID.uriRepresentation(), objectID: object.objectID,
                        value: .null)))
            }
            return
        }
        for case let nested as CompositeAttributeDescription in composite.elements where !nested.isOptional || nested.hasRequiredNestedComposite {
            let nestedPath = path + [nested.name]
            let below = leaves.filter { $0.path.count > nestedPath.count && Array($0.path.prefix(nestedPath.count)) == nestedPath }
            check(nested, path: nestedPath, leaves: below, object: object, into: &errors)
        }
    }
}
