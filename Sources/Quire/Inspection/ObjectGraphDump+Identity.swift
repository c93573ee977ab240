import QuireCore
import QuireStores
import Foundation

extension ObjectGraphDump {
    /// Attribute names taken for an object's key when an entity has no uniqueness constraint, in order of
    /// preference (compared without case); the first whose values are present and distinct is used.
    static let keyAttributeNames = ["id", "uuid", "identifier", "identity", "key", "code", "isbn", "email", "name", "title"]

    /// Names every object by a stable identity: its entity's first uniqueness constraint, else a key
    /// attribute (a UUID attribute, else one named like a key, whose values are present and distinct), else a
    /// hash of its attribute values (`#2` added where two objects have the same values).
    mutating func assignIdentities(model: ManagedObjectModel) {
        let entities = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let byEntity = Dictionary(grouping: objects.indices, by: { objects[$0].entity })
        for (name, indices) in byEntity {
            let attributeNames = Set(indices.flatMap { objects[$0].attributes.keys })
            func distinct(_ names: [String]) -> Bool {
                var seen = Set<[String]>()
                for index in indices {
                    let values = names.map { objects[index].attributes[$0] ?? "nil" }
                    if values.allSatisfy({ $0 == "nil" }) || !seen.insert(values).inserted { return false }
                }
                return true
            }
            var chosen: [String]?
            var kind = "content hash"
            if let entity = entities[name] {
                for constraint in entity.uniquenessConstraints {
                    let names = constraint.filter { attributeNames.contains($0) }
                    if !names.isEmpty, names.count == constraint.count, distinct(names) {
                        chosen = names
                        kind = "uniqueness constraint " + names.joined(separator: ", ")
                        break
                    }
                }
                if chosen == nil {
                    let uuids = entity.allAttributes.filter { $0.attributeType == .uuid && !$0.isTransient }.map(\.name)
                    let named = Self.keyAttributeNames.compactMap { key in
                        attributeNames.sorted().first { $0.lowercased() == key }
                    }
                    for candidate in uuids + named where distinct([candidate]) {
                        chosen = [candidate]
                        kind = "key attribute " + candidate
                        break
                    }
                }
            }
            identityKind[name] = kind
            var used: [String: Int] = [:]
            for index in indices {
                var label: String
                if let chosen {
                    let parts = chosen.map { "\($0)=\(objects[index].attributes[$0] ?? "nil")" }
                    label = "\(name)[\(parts.joined(separator: ", "))]"
                } else {
                    let text = objects[index].attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                        .joined(separator: "\u{1F}")
                    label = "\(name)#" + String(SHA256.hexHash(Data(text.utf8)).prefix(8))
                }
                used[label, default: 0] += 1
                if let count = used[label], count > 1 { label += "~\(count)" }
                objects[index].identity = label
            }
        }
    }
}
