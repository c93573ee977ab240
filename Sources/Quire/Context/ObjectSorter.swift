import QuireCore
import QuireStores
/// Sorts managed objects in memory by sort keys, with the same order the SQLite store's SQL gives: both use
/// ``SortKey/Comparator/compare(_:_:)`` (the store through collations that call it), so nil sorts first
/// ascending, strings compare by UTF-8 bytes (`compare:`) or with the Swift comparison of their comparator,
/// numbers by value.
enum ObjectSorter {
    static func sort(_ objects: [ManagedObject], by keys: [SortKey]) throws -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        let keyed = objects.map { object in (object, keys.map { sortValue(of: object, keyPath: $0.keyPath) }) }
        return keyed.enumerated().sorted { lhs, rhs in
            for (index, key) in keys.enumerated() {
                let order = key.comparator.compare(lhs.element.1[index], rhs.element.1[index])
                if order == .orderedSame { continue }
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
            return lhs.offset < rhs.offset
        }.map(\.element.0)
    }

    static func sortValue(of object: ManagedObject, keyPath: String) -> AttributeValue {
        let components = keyPath.split(separator: ".").map(String.init)
        var current = object
        for (index, key) in components.enumerated() {
            guard let property = current.entity.propertiesByName[key] else { return .null }
            if let attribute = property as? AttributeDescription {
                return index == components.count - 1 ? current.attributeValue(at: attribute.slot) : .null
            }
            if let composite = property as? CompositeAttributeDescription {
                // `address.city`: the element's value.
                return composite.leaf(forPath: components[(index + 1)...]).map { current.attributeValue(at: $0.slot) } ?? .null
            }
            guard let related = current.value(forKey: key) as? ManagedObject else { return .null }
            if index == components.count - 1 { return .integer(related.objectID.primaryKey ?? 0) }
            current = related
        }
        return .null
    }
}
