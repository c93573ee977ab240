import QuireSupport
import Foundation

/// A composite attribute's elements as predicates and sort keys read them (`address.city == "Lyon"`, evaluated in
/// memory over managed objects or store records): each element key gives the element's value, a nested composite's
/// key another such view.
package struct CompositePredicateValue: PredicateEvaluable {
    /// The composite.
    package let composite: CompositeAttributeDescription
    /// The element names read so far below the composite (empty at its top).
    package let path: [String]
    /// Reads the value an object or record holds for one of the composite's leaf attributes.
    package let read: (AttributeDescription) throws -> AttributeValue

    /// A view of a composite's elements, reading leaf values with `read`.
    package init(composite: CompositeAttributeDescription, path: [String] = [], read: @escaping (AttributeDescription) throws -> AttributeValue) {
        self.composite = composite
        self.path = path
        self.read = read
    }

    /// The value of an element, or a view of a nested composite's elements.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key that names no element.
    package func predicateValue(forKey key: String) throws -> PredicateValue {
        let below = path + [key]
        if let leaf = composite.leaf(forPath: below) { return .value(try read(leaf)) }
        guard composite.leaves.contains(where: { Array($0.path.dropFirst().prefix(below.count)) == below }) else {
            throw QuireError(
                .predicateEvaluation, "Composite attribute '\(composite.name)' has no element '\(below.joined(separator: "."))'.",
                context: .init(entity: composite.entity?.name, key: composite.name))
        }
        return .object(CompositePredicateValue(composite: composite, path: below, read: read))
    }

    /// Composites have no identity of their own.
    package var predicateObjectID: ObjectID? { nil }
}
