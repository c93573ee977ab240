import QuireCore
import QuireStores
import Foundation

extension ManagedObject {
    /// Whether a relationship's members are at hand without asking the store: a to-one (its row holds it) or a
    /// to-many already loaded. The migration reads the others for a batch of objects at once.
    func hasLoadedRelationship(_ relationship: RelationshipDescription) -> Bool {
        guard relationship.isToMany else { return true }
        fireFaultIfNeeded()
        if let packed = packedValues { return !packed.relationship(at: relationship.slot, owner: nil).isFault }
        return relationship.slot < relationshipStorage.count && !relationshipStorage[relationship.slot].isFault
    }
}
