import QuireSupport
import OrderedCollections

/// Members added to and removed from a to-many relationship that was not loaded (still a fault) when it
/// changed: the context applies them when the relationship is loaded, and a save hands them to the store
/// (``SaveRequest/Change/memberChanges``), which writes them without reading the set.
///
/// Removals apply before additions, so a member removed and added again ends up last in an ordered
/// relationship, as it would in a loaded ordered set.
package struct DeferredMembers: Sendable, Equatable {
    /// Members added since the relationship was last saved, in the order they were added.
    package var added: OrderedSet<ObjectID> = []
    /// Members removed since the relationship was last saved.
    package var removed: Set<ObjectID> = []

    /// Creates an empty record.
    package init() {}

    /// Whether nothing was recorded.
    package var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    /// Records that `id` joined the relationship: appended after the members already added. A member
    /// removed earlier stays recorded as removed, so an ordered relationship moves it to its end.
    package mutating func add(_ id: ObjectID) {
        added.append(id)
    }

    /// Records that `id` left the relationship, undoing an addition recorded earlier.
    package mutating func remove(_ id: ObjectID) {
        added.remove(id)
        removed.insert(id)
    }

    /// `storage` (the members as the store has them) with the recorded changes: removals first, then the
    /// additions appended in order; an addition already present keeps its place.
    package func applied(to storage: RelationshipStorage) -> RelationshipStorage {
        var result = storage
        for id in removed { result.remove(id) }
        for id in added { result.add(id) }
        return result
    }

    /// The record with the IDs found in `map` replaced (temporary IDs becoming permanent).
    package func remapped(_ map: [ObjectID: ObjectID]) -> DeferredMembers {
        map.isEmpty ? self : remapped { map[$0] }
    }

    /// The record with every ID for which `transform` answers a new one replaced (a store migrated by Save As).
    package func remapped(_ transform: (ObjectID) -> ObjectID?) -> DeferredMembers {
        var result = DeferredMembers()
        result.added = OrderedSet(added.map { transform($0) ?? $0 })
        result.removed = Set(removed.map { transform($0) ?? $0 })
        return result
    }
}

/// A store backend that writes ``SaveRequest/Change/memberChanges``: join-table rows and order columns of
/// to-many relationships changed while they were faults, without reading the relationships. The context
/// records such changes only for objects of these stores; for the others it loads the set first.
package protocol MemberChangeApplyingBackend: PersistentStoreBackend {}
