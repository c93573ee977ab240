import QuireCore
import Foundation

extension SaveRequest.Change {
    /// The change that writes one to-many relationship of a record copied in by Save As or migration: every
    /// other relationship a fault (left as it is), no attributes.
    package static func importedMembers(
        of owner: ObjectID, _ relationship: RelationshipDescription, _ members: [ObjectID], store: PersistentStore
    ) -> SaveRequest.Change {
        var relationships = [RelationshipStorage](repeating: .fault, count: owner.entity.allRelationships.count)
        relationships[relationship.slot] = relationship.isOrdered ? .ordered(.init(members)) : .toMany(Set(members))
        return SaveRequest.Change(
            objectID: owner, store: store, version: 1, attributes: [], relationships: relationships, committedRelationships: nil)
    }
}
