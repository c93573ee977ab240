import QuireCore
import QuireStores
import Foundation

extension ManagedObject {
    // MARK: Composite attributes

    /// The value of a composite attribute, as Core Data gives it: a dictionary keyed by element name (a nested
    /// composite as a dictionary in turn), holding the elements that are not nil; nil when every element is.
    func compositeValue(_ composite: CompositeAttributeDescription) -> [String: Any]? {
        var result: [String: Any] = [:]
        for leaf in composite.leaves {
            guard let value = value(forKey: leaf.attribute.name) else { continue }
            Self.insert(value, at: leaf.path.dropFirst(), into: &result)
        }
        return result.isEmpty ? nil : result
    }

    /// Sets a composite attribute from a dictionary keyed by element name; elements the dictionary lacks become
    /// nil, and nil clears every element.
    ///
    /// - Throws: ``QuireError/Code/invalidValue`` for something other than a dictionary, a key that names no element
    ///   (nothing is dropped silently), or an element value its type cannot hold. Nothing changes when it throws.
    func setCompositeValue(_ value: Any?, for composite: CompositeAttributeDescription) throws {
        func invalid(_ reason: String) -> QuireError {
            QuireError(
                .invalidValue, "Unacceptable value for composite attribute '\(composite.name)' of entity '\(entity.name)': \(reason).",
                context: .init(entity: entity.name, key: composite.name))
        }
        let dictionary: [String: Any]
        switch value {
        case nil, is NSNull: dictionary = [:]
        case let given as [String: Any]: dictionary = given
        case let given as [String: Any?]: dictionary = given.compactMapValues { $0 }
        default: throw invalid("it takes a [String: Any] dictionary, not \(value.map { "\(type(of: $0))" } ?? "nil")")
        }
        // Every key must name an element (or a nested composite holding a dictionary whose keys do).
        func check(_ given: [String: Any], path: [String]) throws {
            for (key, element) in given {
                let below = path + [key]
                if composite.leaf(forPath: below) != nil { continue }
                guard let nested = element as? [String: Any],
                    composite.leaves.contains(where: { Array($0.path.dropFirst().prefix(below.count)) == below })
                else { throw invalid("'\(below.joined(separator: "."))' is not one of its elements") }
                try check(nested, path: below)
            }
        }
        try check(dictionary, path: [])
        var converted: [(slot: Int, value: AttributeValue)] = []
        for leaf in composite.leaves {
            var current: Any? = dictionary
            for key in leaf.path.dropFirst() { current = (current as? [String: Any])?[key] }
            do {
                converted.append((leaf.attribute.slot, try ValueCoercion.attributeValue(from: current, for: leaf.attribute, keepingIntegersOutOfRange: true)))
            } catch let error as QuireError {
                throw invalid("element '\(leaf.path.dropFirst().joined(separator: "."))': \(error.message)")
            }
        }
        for (slot, value) in converted where attributeValue(at: slot) != value { setAttributeValue(value, at: slot) }
    }

    /// Puts a value into nested dictionaries at a key path.
    private static func insert(_ value: Any, at path: ArraySlice<String>, into dictionary: inout [String: Any]) {
        guard let key = path.first else { return }
        if path.count == 1 {
            dictionary[key] = value
            return
        }
        var nested = dictionary[key] as? [String: Any] ?? [:]
        insert(value, at: path.dropFirst(), into: &nested)
        dictionary[key] = nested
    }
}
