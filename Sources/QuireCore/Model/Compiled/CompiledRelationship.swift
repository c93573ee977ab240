import QuireSupport

/// A relationship of a decoded model (`NSRelationshipDescription` or an Xcode 3 `XDPMRelationship`).
package struct CompiledRelationship: Sendable, Hashable {
    /// The relationship's name.
    package var name: String
    /// The name of the destination entity.
    package var destinationEntityName: String
    /// The name of the inverse relationship, if any.
    package var inverseName: String?
    /// The entity the inverse belongs to, when the file names it.
    package var inverseEntityName: String?
    /// The fewest objects it may hold when saved.
    package var minCount: Int = 0
    /// The most objects it may hold, as stored: 1 for to-one; 0 (or a negative number, as some compiled
    /// models store) for an unbounded to-many.
    package var maxCount: Int = 1
    /// Whether the relationship is to-many.
    package var isToMany: Bool = false
    /// Whether a to-many relationship keeps its objects in order.
    package var isOrdered: Bool = false
    /// The `NSDeleteRule` number, as stored.
    package var deleteRule: Int = 1
    /// ``deleteRule`` as a readable kind.
    package var deleteRuleKind: DeleteRuleKind { DeleteRuleKind(rawValue: deleteRule) }
    /// Whether the relationship may be empty (nil) when saved.
    package var isOptional: Bool = true
    /// Whether the relationship is never stored.
    package var isTransient: Bool = false
    /// Whether the store keeps an index for it (legacy flag).
    package var isIndexed: Bool = false
    /// Whether it is indexed by Spotlight.
    package var isIndexedBySpotlight: Bool = false
    /// Whether it is stored in an external record file.
    package var isStoredInExternalRecord: Bool = false
    /// Application data attached to the relationship.
    package var userInfo: [String: ModelValue] = [:]
    /// The relationship's name in an earlier model version.
    package var renamingIdentifier: String?
    /// A string mixed into the version hash.
    var versionHashModifier: String?
    /// Validation predicates in predicate-format syntax.
    package var validationPredicates: [String] = []
    /// The warning of each validation predicate.
    package var validationWarnings: [String] = []

    /// ``maxCount`` as Quire counts it: 1 for to-one, 0 for no limit, otherwise the limit.
    package var normalizedMaxCount: Int {
        guard isToMany else { return 1 }
        // -1 is `maxCount = .max` set in code (Core Data hashes it as 0xFFFFFFFF, which Int.max truncates to).
        if maxCount < 0 { return Int.max }
        return maxCount > 1 ? maxCount : 0
    }

    /// Creates a relationship; every other field has Core Data's default.
    init(name: String, destinationEntityName: String) {
        self.name = name
        self.destinationEntityName = destinationEntityName
    }
}
