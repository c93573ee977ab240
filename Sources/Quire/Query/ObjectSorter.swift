import Foundation

/// Sorts managed objects in memory by sort keys, with the same order the SQLite store's SQL gives:
/// nil first ascending, strings by UTF-8 bytes (`compare:`) or with ASCII case folded
/// (`caseInsensitiveCompare:`), numbers by value.
enum ObjectSorter {
    static func sort(_ objects: [ManagedObject], by keys: [SortKey]) throws -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        let keyed = objects.map { object in (object, keys.map { sortValue(of: object, keyPath: $0.keyPath) }) }
        return keyed.enumerated().sorted { lhs, rhs in
            for (index, key) in keys.enumerated() {
                let order = compare(lhs.element.1[index], rhs.element.1[index], comparator: key.comparator)
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
            guard let related = current.value(forKey: key) as? ManagedObject else { return .null }
            if index == components.count - 1 { return .integer(related.objectID.primaryKey ?? 0) }
            current = related
        }
        return .null
    }

    static func compare(_ lhs: AttributeValue, _ rhs: AttributeValue, comparator: SortKey.Comparator) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)):
            let x = comparator == .compare ? Array(a.utf8) : a.utf8.map(asciiLower)
            let y = comparator == .compare ? Array(b.utf8) : b.utf8.map(asciiLower)
            if x == y { return .orderedSame }
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        case (.date(let a), .date(let b)): return order(a, b)
        case (.data(let a), .data(let b)):
            if a == b { return .orderedSame }
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
        case (.uuid(let a), .uuid(let b)): return order(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return order(a.absoluteString, b.absoluteString)
        case (.integer(let a), .integer(let b)): return order(a, b)
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return .orderedSame }
            return order(a, b)
        }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }
}
