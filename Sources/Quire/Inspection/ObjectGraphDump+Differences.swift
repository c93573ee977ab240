import QuireCore
import QuireStores

extension ObjectGraphDump {
    /// One difference between two graphs: an object only in one of them, or one value of an object in both.
    public struct Change: Sendable, Hashable, Codable {
        /// What kind of difference this is.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// A value of an object both graphs hold differs.
            case changed
            /// The object is only in the first graph ("here").
            case removed
            /// The object is only in the second graph ("there").
            case added
        }

        /// What kind of difference this is.
        public var kind: Kind
        /// The object's entity.
        public var entity: String
        /// The object's name: its stable identity (``Object/identity``), or `Entity(pk 3)` when both graphs are of one
        /// store and the object has no other identity.
        public var object: String
        /// The attribute or relationship that differs; nil for an added or removed object.
        public var property: String?
        /// The value here (canonical text; related objects by name, in brackets); nil for an added object.
        public var here: String?
        /// The value there; nil for a removed object.
        public var there: String?

        /// The difference as one line: `Author[name="Ada"].born: 1815 -> 1816`, `+ Book[title="Emma"]`,
        /// `- Book[title="Persuasion"]`.
        public var line: String {
            switch kind {
            case .changed: return "\(object).\(property ?? ""): \(here ?? "nil") -> \(there ?? "nil")"
            case .removed: return "- \(object)"
            case .added: return "+ \(object)"
            }
        }
    }

    /// The differences between this graph ("here") and another ("there"), one per changed value and one per
    /// object only in one of them; empty when they are equal.
    ///
    /// Objects are matched by identity, not by position: by primary key when both dumps are of one store (the
    /// same `NSStoreUUID`: a copy, or a file before and after an edit), else by their stable identity (a
    /// uniqueness constraint, else a key attribute, else a hash of their values); objects left over in an entity
    /// are then paired when most of their values agree (an edited object whose hash changed). Renaming one
    /// author is one change, not a shift of every author after it.
    ///
    /// ```
    /// Author[name="Ada Lovelace"].born: 1815 -> 1816
    /// - Book[title="Persuasion"]
    /// + Book[title="Emma"]
    /// ```
    public func changes(from other: ObjectGraphDump) -> [Change] {
        let sameStore = storeUUID != nil && storeUUID == other.storeUUID
            && objects.allSatisfy { $0.primaryKey != nil } && other.objects.allSatisfy { $0.primaryKey != nil }
        var pairs: [(Int, Int)] = []
        var hereLeft = Set(objects.indices)
        var thereLeft = Set(other.objects.indices)
        func match(_ key: (Object) -> String) {
            var index: [String: Int] = [:]
            for i in thereLeft { index[key(other.objects[i])] = i }
            for i in hereLeft.sorted() {
                if let j = index[key(objects[i])], thereLeft.contains(j) {
                    pairs.append((i, j))
                    hereLeft.remove(i)
                    thereLeft.remove(j)
                }
            }
        }
        if sameStore { match { "\($0.entity)\u{1F}\($0.primaryKey ?? -1)" } }
        match { $0.identity.isEmpty ? $0.key : $0.identity }
        // Leftovers of one entity whose values mostly agree are one object edited.
        for i in hereLeft.sorted() {
            let mine = objects[i]
            var best: (Int, Int)?
            for j in thereLeft where other.objects[j].entity == mine.entity {
                let theirs = other.objects[j]
                let names = Set(mine.attributes.keys).union(theirs.attributes.keys)
                let equal = names.filter { mine.attributes[$0] == theirs.attributes[$0] }.count
                if equal * 2 >= names.count, equal > 0, equal > (best?.1 ?? -1) { best = (j, equal) }
            }
            if let (j, _) = best {
                pairs.append((i, j))
                hereLeft.remove(i)
                thereLeft.remove(j)
            }
        }
        // Names: an object both hold is named as here; related objects are named the same way on both sides.
        func label(_ object: Object) -> String {
            if sameStore, object.identity.contains("#"), let key = object.primaryKey { return "\(object.entity)(pk \(key))" }
            return object.identity.isEmpty ? object.key : object.identity
        }
        var hereNames: [String: String] = [:]
        for object in objects { hereNames[object.key] = label(object) }
        var thereNames: [String: String] = [:]
        for object in other.objects { thereNames[object.key] = label(object) }
        for (i, j) in pairs { thereNames[other.objects[j].key] = label(objects[i]) }

        var changes: [Change] = []
        for (i, j) in pairs {
            let mine = objects[i]
            let theirs = other.objects[j]
            let name = label(mine)
            for property in Set(mine.attributes.keys).union(theirs.attributes.keys).sorted() {
                let a = mine.attributes[property]
                let b = theirs.attributes[property]
                if a != b {
                    changes.append(Change(
                        kind: .changed, entity: mine.entity, object: name, property: property, here: a ?? "(no attribute)",
                        there: b ?? "(no attribute)"))
                }
            }
            for property in Set(mine.relationships.keys).union(theirs.relationships.keys).sorted() {
                let a = (mine.relationships[property] ?? []).map { hereNames[$0] ?? $0 }
                let b = (theirs.relationships[property] ?? []).map { thereNames[$0] ?? $0 }
                if a.sorted() != b.sorted() {
                    changes.append(Change(
                        kind: .changed, entity: mine.entity, object: name, property: property,
                        here: "[" + a.joined(separator: ", ") + "]", there: "[" + b.joined(separator: ", ") + "]"))
                }
            }
        }
        for i in hereLeft { changes.append(Change(kind: .removed, entity: objects[i].entity, object: label(objects[i]))) }
        for j in thereLeft {
            changes.append(Change(kind: .added, entity: other.objects[j].entity, object: label(other.objects[j])))
        }
        return changes.sorted { lhs, rhs in
            if lhs.entity != rhs.entity { return lhs.entity < rhs.entity }
            if lhs.object != rhs.object { return lhs.object < rhs.object }
            return (lhs.property ?? "") < (rhs.property ?? "")
        }
    }

    /// The differences between this graph and another, one readable line each (see ``changes(from:)``);
    /// empty when they are equal.
    public func differences(from other: ObjectGraphDump) -> [String] {
        changes(from: other).map(\.line)
    }
}
