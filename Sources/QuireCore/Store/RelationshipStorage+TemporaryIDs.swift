import QuireSupport
import OrderedCollections

extension RelationshipStorage {
    /// Whether the value names an object by a temporary ID (an object inserted and not yet saved): what decides
    /// whether a save must map temporary IDs to permanent ones. A fault names nothing.
    package var referencesTemporaryID: Bool {
        switch self {
        case .fault: return false
        case .toOne(let id): return id?.isTemporaryID ?? false
        case .toMany(let ids): return ids.contains { $0.isTemporaryID }
        case .ordered(let ids): return ids.contains { $0.isTemporaryID }
        }
    }
}
