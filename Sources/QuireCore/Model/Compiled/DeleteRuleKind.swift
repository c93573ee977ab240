import QuireSupport
/// What deleting an object does along a relationship (`NSDeleteRule`), with Core Data's numbers.
package enum DeleteRuleKind: Sendable, Hashable {
    /// `NSNoActionDeleteRule` (0).
    case noAction
    /// `NSNullifyDeleteRule` (1).
    case nullify
    /// `NSCascadeDeleteRule` (2).
    case cascade
    /// `NSDenyDeleteRule` (3).
    case deny
    /// A number Core Data does not define.
    case unknown(Int)

    /// The kind for an `NSDeleteRule` number.
    package init(rawValue: Int) {
        switch rawValue {
        case 0: self = .noAction
        case 1: self = .nullify
        case 2: self = .cascade
        case 3: self = .deny
        default: self = .unknown(rawValue)
        }
    }

    /// The `NSDeleteRule` number.
    package var rawValue: Int {
        switch self {
        case .noAction: return 0
        case .nullify: return 1
        case .cascade: return 2
        case .deny: return 3
        case .unknown(let value): return value
        }
    }
}
