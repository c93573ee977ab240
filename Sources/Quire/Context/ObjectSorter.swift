import QuireCore
import QuireStores
/// Sorts managed objects in memory by sort keys, with the same order the SQLite store's SQL gives: both use
/// ``SortKey/Comparator/compare(_:_:)`` (the store through collations that call it), so nil sorts first
/// ascending, strings compare by UTF-8 bytes (`compare:`) or with the Swift comparison of their comparator,
/// numbers by value.
enum ObjectSorter {
    static func sort(_ objects: [ManagedObject], by keys: [SortKey]) throws -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        if keys.contains(where: \.sortsInMemory) { return sortWithCustomComparators(objects, by: keys) }
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

    /// Sorts by keys some of which compare with Swift code (``SortKey/customComparator``): those are given the
    /// values' public forms (the related object for a to-one relationship, the object for `SELF`).
    private static func sortWithCustomComparators(_ objects: [ManagedObject], by keys: [SortKey]) -> [ManagedObject] {
        let keyed = objects.map { object in
            (object, keys.map { key -> (AttributeValue, Any?) in
                guard key.sortsInMemory else { return (sortValue(of: object, keyPath: key.keyPath), nil) }
                return (.null, customValue(of: object, keyPath: key.keyPath))
            })
        }
        return keyed.enumerated().sorted { lhs, rhs in
            for (index, key) in keys.enumerated() {
                let a = lhs.element.1[index]
                let b = rhs.element.1[index]
                let order = key.customComparator.map { $0.compare(a.1, b.1) } ?? key.comparator.compare(a.0, b.0)
                if order == .orderedSame { continue }
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
            return lhs.offset < rhs.offset
        }.map(\.element.0)
    }

    /// The value a custom comparator is given for a key path.
    static func customValue(of object: ManagedObject, keyPath: String) -> Any? {
        if keyPath == "SELF" { return object }
        let components = keyPath.split(separator: ".").map(String.init)
        var current = object
        for (index, key) in components.enumerated() {
            guard let property = current.entity.propertiesByName[key] else { return nil }
            if let attribute = property as? AttributeDescription {
                return index == components.count - 1 ? current.attributeValue(at: attribute.slot).anyValue : nil
            }
            guard let related = current.value(forKey: key) as? ManagedObject else { return nil }
            if index == components.count - 1 { return related }
            current = related
        }
        return nil
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
