/// The changes of one context save, as the coordinator hands them to the stores.
struct SaveRequest: Sendable {
    /// One changed object: its values and the version it was read at.
    struct Change: Sendable {
        /// The object's ID (temporary for inserted objects).
        var objectID: ObjectID
        /// The store the object is saved to.
        var store: PersistentStore
        /// The version (`Z_OPT`) the object's values were read at; 0 for inserted objects.
        var version: Int64
        /// The attribute values by slot (transient attributes `.null`).
        var attributes: [AttributeValue]
        /// The relationship values by slot; to-many relationships that were never loaded are `.fault`.
        var relationships: [RelationshipStorage]
        /// The relationship values as last saved (updated objects), for join-table differences.
        var committedRelationships: [RelationshipStorage]?
    }

    var inserted: [Change] = []
    var updated: [Change] = []
    var deleted: [Change] = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a successful save reports back.
///
/// Versions are not reported: every store writes an inserted record at version 1 and adds 1 to the version
/// of every record it updates, as Core Data does with `Z_OPT`.
struct SaveResult: Sendable {
    /// The permanent ID of every inserted object, in the order of ``SaveRequest/inserted``.
    var permanentIDs: [ObjectID] = []

    /// The permanent IDs keyed by temporary ID, for rewriting relationships that point at inserted objects.
    func permanentIDsByTemporaryID(for request: SaveRequest) -> [ObjectID: ObjectID] {
        Dictionary(zip(request.inserted.map(\.objectID), permanentIDs), uniquingKeysWith: { first, _ in first })
    }
}

extension SaveRequest {
    /// Whether any changed object has relationships, which may point at inserted objects' temporary IDs.
    var involvesRelationships: Bool {
        inserted.contains { !$0.objectID.entity.allRelationships.isEmpty }
            || updated.contains { !$0.objectID.entity.allRelationships.isEmpty }
    }
}
