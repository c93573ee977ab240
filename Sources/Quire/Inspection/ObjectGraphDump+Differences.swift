import QuireCore
import QuireStores
extension ObjectGraphDump {
    /// The differences between this graph and another, one readable line each; empty when they are equal.
    ///
    /// ```
    /// Employee: 3 objects here, 4 there
    /// Employee#2.name: "Ada" here, "Grace" there
    /// Employee#4: only there
    /// ```
    public func differences(from other: ObjectGraphDump) -> [String] {
        var lines: [String] = []
        let mine = counts
        let theirs = other.counts
        for entity in Set(mine.keys).union(theirs.keys).sorted() where mine[entity] != theirs[entity] {
            lines.append("\(entity): \(mine[entity] ?? 0) objects here, \(theirs[entity] ?? 0) there")
        }
        let others = Dictionary(other.objects.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let own = Set(objects.map(\.key))
        for object in objects {
            guard let counterpart = others[object.key] else {
                lines.append("\(object.key): only here")
                continue
            }
            for name in Set(object.attributes.keys).union(counterpart.attributes.keys).sorted() {
                let a = object.attributes[name] ?? "(no attribute)"
                let b = counterpart.attributes[name] ?? "(no attribute)"
                if a != b { lines.append("\(object.key).\(name): \(a) here, \(b) there") }
            }
            for name in Set(object.relationships.keys).union(counterpart.relationships.keys).sorted() {
                let a = object.relationships[name] ?? []
                let b = counterpart.relationships[name] ?? []
                if a != b {
                    lines.append("\(object.key).\(name): [\(a.joined(separator: ", "))] here, [\(b.joined(separator: ", "))] there")
                }
            }
        }
        for object in other.objects where !own.contains(object.key) {
            lines.append("\(object.key): only there")
        }
        return lines
    }
}
