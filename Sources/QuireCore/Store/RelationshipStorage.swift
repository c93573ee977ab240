import QuireSupport
import OrderedCollections

/// What a managed object holds for one relationship: a fault (not loaded yet) or the related objects' IDs.
///
/// Relationships hold IDs, not objects, so objects never retain each other; the context turns IDs into its
/// one object per record on access (uniquing).
@usableFromInline package enum RelationshipStorage: Sendable, Equatable {
    /// Not loaded: a to-many relationship whose members have not been fetched yet.
    case fault
    /// A to-one relationship.
    case toOne(ObjectID?)
    /// An unordered to-many relationship.
    case toMany(Set<ObjectID>)
    /// An ordered to-many relationship.
    case ordered(OrderedSet<ObjectID>)

    /// The empty value for a relationship of a new object.
    package static func empty(for relationship: RelationshipDescription) -> RelationshipStorage {
        if !relationship.isToMany { return .toOne(nil) }
        return relationship.isOrdered ? .ordered([]) : .toMany([])
    }

    /// Every ID held, in order for ordered relationships; empty for a fault.
    package var objectIDs: [ObjectID] {
        switch self {
        case .fault: return []
        case .toOne(let id): return id.map { [$0] } ?? []
        case .toMany(let ids): return Array(ids)
        case .ordered(let ids): return Array(ids)
        }
    }

    package var isFault: Bool {
        if case .fault = self { return true }
        return false
    }

    /// Whether the relationship holds `id`.
    package func contains(_ id: ObjectID) -> Bool {
        switch self {
        case .fault: return false
        case .toOne(let other): return other == id
        case .toMany(let ids): return ids.contains(id)
        case .ordered(let ids): return ids.contains(id)
        }
    }

    /// Adds an ID (to-one: replaces).
    package mutating func add(_ id: ObjectID) {
        switch self {
        case .fault: break
        case .toOne: self = .toOne(id)
        case .toMany(var ids):
            self = .fault
            ids.insert(id)
            self = .toMany(ids)
        case .ordered(var ids):
            self = .fault
            ids.append(id)
            self = .ordered(ids)
        }
    }

    /// Removes an ID (to-one: clears it when it is the one held).
    package mutating func remove(_ id: ObjectID) {
        switch self {
        case .fault: break
        case .toOne(let other): if other == id { self = .toOne(nil) }
        case .toMany(var ids):
            self = .fault
            ids.remove(id)
            self = .toMany(ids)
        case .ordered(var ids):
            self = .fault
            ids.remove(id)
            self = .ordered(ids)
        }
    }

    /// Replaces every occurrence of IDs found in `map` (temporary IDs becoming permanent after a save).
    package mutating func remap(_ map: [ObjectID: ObjectID]) {
        switch self {
        case .fault: break
        case .toOne(let id):
            if let id, let new = map[id] { self = .toOne(new) }
        case .toMany(let ids):
            guard ids.contains(where: { map[$0] != nil }) else { return }
            self = .toMany(Set(ids.map { map[$0] ?? $0 }))
        case .ordered(let ids):
            guard ids.contains(where: { map[$0] != nil }) else { return }
            self = .ordered(OrderedSet(ids.map { map[$0] ?? $0 }))
        }
    }
}
