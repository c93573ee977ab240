import QuireSupport
import Foundation

extension QueryPredicate {
    /// A predicate true when every subpredicate is (`NSCompoundPredicate(andPredicateWithSubpredicates:)`), as
    /// ``conjunction(_:)`` makes it.
    ///
    /// ```swift
    /// let waiting = QueryPredicate(andPredicateWithSubpredicates: [notUploaded, notDeleted])
    /// ```
    public init(andPredicateWithSubpredicates subpredicates: [QueryPredicate]) {
        self = .conjunction(subpredicates)
    }

    /// A predicate true when some subpredicate is (`NSCompoundPredicate(orPredicateWithSubpredicates:)`), as
    /// ``disjunction(_:)`` makes it.
    public init(orPredicateWithSubpredicates subpredicates: [QueryPredicate]) {
        self = .disjunction(subpredicates)
    }

    /// A predicate true when `subpredicate` is false (`NSCompoundPredicate(notPredicateWithSubpredicate:)`).
    public init(notPredicateWithSubpredicate subpredicate: QueryPredicate) {
        self = .not(subpredicate)
    }
}
