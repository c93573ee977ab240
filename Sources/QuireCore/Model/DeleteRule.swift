import QuireSupport
/// What deleting an object does to the objects its relationship points at (`NSDeleteRule`).
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Leave the related objects alone; they may keep pointing at the deleted object.
    case noAction
    /// Remove the deleted object from the related objects' inverse relationship.
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete while the relationship holds at least one object.
    case deny
}
