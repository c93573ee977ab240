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
    /// are then paired when at least half of their other values agree, related objects compared through the pairs
    /// already made (an edited object whose identity changed: a renamed author that keeps its publications).
    /// Renaming one author is one changed value, not a removal and an addition, nor a shift of every author after
    /// it.
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
        // Leftovers of one entity whose other values agree are one object edited (a renamed author keeps its
        // publications): paired with the candidate that agrees on the most properties, at least half of them.
        // Related objects compare through the pairs made so far, so each round can pair more.
        pairLeftovers(&pairs, &hereLeft, &thereLeft, other)
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

    /// The most leftover pairs compared per entity; beyond it (a wholesale change) leftovers stay added and removed.
    static let maximumLeftoverComparisons = 4_000_000

    /// Pairs objects left over after matching by key and identity: an object here with the object there of the
    /// same entity that agrees with it on the most attributes and relationships, when it agrees on at least one
    /// and on at least half of those either has; relationships agree when their objects are paired. Repeated
    /// while new pairs are found, since a pair can make the relationships of others agree.
    private func pairLeftovers(
        _ pairs: inout [(Int, Int)], _ hereLeft: inout Set<Int>, _ thereLeft: inout Set<Int>, _ other: ObjectGraphDump
    ) {
        var thereKeyOfHere: [String: String] = [:]
        for (i, j) in pairs { thereKeyOfHere[objects[i].key] = other.objects[j].key }
        var progress = true
        while progress && !hereLeft.isEmpty && !thereLeft.isEmpty {
            progress = false
            let hereByEntity = Dictionary(grouping: hereLeft.sorted(), by: { objects[$0].entity })
            let thereByEntity = Dictionary(grouping: thereLeft.sorted(), by: { other.objects[$0].entity })
            for entity in hereByEntity.keys.sorted() {
                guard let mine = hereByEntity[entity], let theirs = thereByEntity[entity],
                    mine.count * theirs.count <= Self.maximumLeftoverComparisons
                else { continue }
                var candidates: [(score: Int, here: Int, there: Int)] = []
                for i in mine {
                    let a = objects[i]
                    for j in theirs {
                        let b = other.objects[j]
                        var agree = 0
                        var total = 0
                        for name in Set(a.attributes.keys).union(b.attributes.keys) {
                            total += 1
                            if a.attributes[name] == b.attributes[name] { agree += 1 }
                        }
                        for name in Set(a.relationships.keys).union(b.relationships.keys) {
                            let mapped = (a.relationships[name] ?? []).map { thereKeyOfHere[$0] ?? "\u{1F}" + $0 }
                            let theirsRelated = b.relationships[name] ?? []
                            // A relationship empty on both sides says nothing about which object this is.
                            guard !(mapped.isEmpty && theirsRelated.isEmpty) else { continue }
                            total += 1
                            if mapped.sorted() == theirsRelated.sorted() { agree += 1 }
                        }
                        if agree > 0, agree * 2 >= total { candidates.append((agree, i, j)) }
                    }
                }
                // Best agreement first; between equals, the order of the dumps.
                candidates.sort { ($0.score, $1.here, $1.there) > ($1.score, $0.here, $0.there) }
                for candidate in candidates where hereLeft.contains(candidate.here) && thereLeft.contains(candidate.there) {
                    pairs.append((candidate.here, candidate.there))
                    hereLeft.remove(candidate.here)
                    thereLeft.remove(candidate.there)
                    thereKeyOfHere[objects[candidate.here].key] = other.objects[candidate.there].key
                    progress = true
                }
            }
        }
    }

    /// The differences between this graph and another, one readable line each (see ``changes(from:)``);
    /// empty when they are equal.
    public func differences(from other: ObjectGraphDump) -> [String] {
        changes(from: other).map(\.line)
    }
}
