import QuireSupport
/// The changes of one context save, as the coordinator hands them to the stores.
package struct SaveRequest: Sendable {
    /// One changed object: its values and the version it was read at.
    package struct Change: Sendable {
        // The store is declared before the ID so that the implicit memberwise initializer (store first) differs
        // from the package one below (ID first), which calls it: see that initializer.
        /// The store the object is saved to.
        package var store: PersistentStore
        /// The object's ID (temporary for inserted objects).
        package var objectID: ObjectID
        /// The version (`Z_OPT`) the object's values were read at; 0 for inserted objects.
        package var version: Int64
        /// The attribute values by slot (transient attributes `.null`).
        package var attributes: [AttributeValue]
        /// The relationship values by slot; to-many relationships that were never loaded are `.fault`.
        package var relationships: [RelationshipStorage]
        /// The relationship values as last saved (updated objects), for join-table differences.
        package var committedRelationships: [RelationshipStorage]?
        /// The attribute values as last read (updated objects, when known), for the updated properties
        /// persistent history records.
        package var committedAttributes: [AttributeValue]?
        /// Members added to and removed from to-many relationships that were faults when they changed
        /// (`relationships` holds `.fault` for them), by relationship slot.
        package var memberChanges: [Int: DeferredMembers]
    }

    package var inserted: [Change] = []
    package var updated: [Change] = []
    package var deleted: [Change] = []
    /// The saving context's ``transactionAuthor`` and name, recorded by stores that track persistent history.
    package var transactionAuthor: String? = nil
    /// See ``transactionAuthor``.
    package var contextName: String? = nil

    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Creates one with every stored value.
    package init(inserted: [Change] = [], updated: [Change] = [], deleted: [Change] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

extension SaveRequest.Change {
    /// Creates one with every stored value. (The stored properties have no default values of their own: with
    /// them, every change was made as a temporary and copied into place.)
    ///
    /// It calls the memberwise initializer: an initializer that assigned the eight properties one by one was
    /// compiled with a copy and a destruction of the whole change (every array, dictionary and reference
    /// retained and released again), about 500 instructions a change.
    package init(
        objectID: ObjectID, store: PersistentStore, version: Int64, attributes: [AttributeValue], relationships: [RelationshipStorage],
        committedRelationships: [RelationshipStorage]?, committedAttributes: [AttributeValue]? = nil,
        memberChanges: [Int: DeferredMembers] = [:]
    ) {
        self.init(
            store: store, objectID: objectID, version: version, attributes: attributes, relationships: relationships,
            committedRelationships: committedRelationships, committedAttributes: committedAttributes, memberChanges: memberChanges)
    }
}

/// What a successful save reports back.
///
/// Versions are not reported: every store writes an inserted record at version 1 and adds 1 to the version
/// of every record it updates, as Core Data does with `Z_OPT`.
package struct SaveResult: Sendable {
    /// The permanent ID of every inserted object, in the order of ``SaveRequest/inserted``.
    package var permanentIDs: [ObjectID] = []

    /// The permanent IDs keyed by temporary ID, for rewriting relationships that point at inserted objects.
    package func permanentIDsByTemporaryID(for request: SaveRequest) -> [ObjectID: ObjectID] {
        Dictionary(zip(request.inserted.map(\.objectID), permanentIDs), uniquingKeysWith: { first, _ in first })
    }

    /// Creates one with every stored value.
    package init(permanentIDs: [ObjectID] = []) {
        self.permanentIDs = permanentIDs
    }
}

extension SaveRequest {
    /// Whether any changed object has relationships, which may point at inserted objects' temporary IDs.
    var involvesRelationships: Bool {
        inserted.contains { !$0.objectID.entity.allRelationships.isEmpty }
            || updated.contains { !$0.objectID.entity.allRelationships.isEmpty }
    }
}

extension SaveRequest {
    /// Whether any inserted or updated object's relationship values (current or as last saved) or recorded
    /// member changes name an object by a temporary ID: only then do stores need the map from temporary to
    /// permanent IDs (``SaveResult/permanentIDsByTemporaryID(for:)``), whose making costs a hash insertion per
    /// inserted object. Member changes are counted as naming one, whatever they hold.
    package var referencesTemporaryIDs: Bool {
        // Through buffer pointers, so that no change is copied (each copy retains and releases its arrays).
        func references(_ changes: UnsafeBufferPointer<Change>) -> Bool {
            for index in changes.indices {
                if !changes[index].memberChanges.isEmpty { return true }
                for storage in changes[index].relationships where storage.referencesTemporaryID { return true }
                guard let committed = changes[index].committedRelationships else { continue }
                for storage in committed where storage.referencesTemporaryID { return true }
            }
            return false
        }
        return inserted.withUnsafeBufferPointer(references) || updated.withUnsafeBufferPointer(references)
    }
}
