import QuireSupport
import Foundation

extension SortKey {
    /// Swift code comparing two values of a sort key, the comparator block of
    /// `NSSortDescriptor(key:ascending:comparator:)`. Two custom comparators are equal only when they are the
    /// same one (copies of one sort key).
    public struct CustomComparator: Hashable, Sendable {
        private final class Box: Sendable {
            let compare: @Sendable (Any?, Any?) -> ComparisonResult
            init(_ compare: @escaping @Sendable (Any?, Any?) -> ComparisonResult) { self.compare = compare }
        }

        private let box: Box

        /// Wraps a comparison of two public values (`String`, `Int`, `Date`, …; nil for nil; the object
        /// itself for the key path `SELF`).
        ///
        /// - Parameter compare: The comparison, in ascending order.
        public init(_ compare: @escaping @Sendable (Any?, Any?) -> ComparisonResult) {
            box = Box(compare)
        }

        /// Compares two values in ascending order.
        public func compare(_ a: Any?, _ b: Any?) -> ComparisonResult { box.compare(a, b) }

        /// Whether two comparators are the same one.
        public static func == (lhs: CustomComparator, rhs: CustomComparator) -> Bool { lhs.box === rhs.box }

        /// Hashes the comparator's identity.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
    }

    /// A sort key whose values are compared by Swift code, `NSSortDescriptor(key:ascending:comparator:)`.
    ///
    /// ```swift
    /// let byLength = SortKey("title") { a, b in
    ///     let x = (a as? String)?.count ?? 0, y = (b as? String)?.count ?? 0
    ///     return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    /// }
    /// ```
    ///
    /// Core Data refuses such keys in SQLite fetches; Quire sorts in memory instead: the stores fetch the
    /// matching objects unsorted, the context sorts them, then applies ``FetchRequest/fetchOffset`` and
    /// ``FetchRequest/fetchLimit``, so a limited fetch still returns the first objects of the whole sorted
    /// result (at the cost of reading every match).
    ///
    /// - Parameters:
    ///   - keyPath: The key path whose values are compared (`SELF` for the objects themselves).
    ///   - ascending: True for ascending order (the default).
    ///   - comparator: The comparison of two values in ascending order: public values such as `String`, `Int`,
    ///     `Date`, `Data`; nil for nil; an object ID for a to-one relationship; the object for `SELF`.
    public init(_ keyPath: String, ascending: Bool = true, comparator: @escaping @Sendable (Any?, Any?) -> ComparisonResult) {
        self.init(keyPath, ascending: ascending)
        customComparator = CustomComparator(comparator)
    }

    /// A sort key whose values a `SortComparator` compares, such as `String.StandardComparator.localizedStandard`;
    /// the key's order is the comparator's.
    ///
    /// ```swift
    /// let order = SortKey("title", using: String.StandardComparator(.localizedStandard, order: .reverse))
    /// ```
    ///
    /// Values that are nil or not of the comparator's type sort before the others in forward order. The fetch
    /// sorts in memory (see ``init(_:ascending:comparator:)-(_,_,(Any?,Any?)->ComparisonResult)``).
    ///
    /// - Parameters:
    ///   - keyPath: The key path whose values are compared.
    ///   - comparator: The comparator.
    public init<Comparator: SortComparator & Sendable>(_ keyPath: String, using comparator: Comparator) {
        let forward = comparator.order == .forward
        self.init(keyPath, ascending: forward) { a, b in
            switch (a as? Comparator.Compared, b as? Comparator.Compared) {
            case (let x?, let y?):
                let result = comparator.compare(x, y)
                return forward ? result : SortKey.flipped(result)
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            }
        }
    }

    /// A sort key that compares the objects themselves with a `SortComparator` of their class, such as a
    /// `KeyPathComparator` over the properties of a managed object subclass; the key path is `SELF`.
    ///
    /// ```swift
    /// let order = SortKey(using: KeyPathComparator(\Author.lastName))
    /// ```
    ///
    /// - Parameter comparator: The comparator.
    public init<Comparator: SortComparator & Sendable>(using comparator: Comparator) {
        self.init("SELF", using: comparator)
    }

    /// True when a ``customComparator`` compares the objects themselves (the key path `SELF`).
    public var comparesObjects: Bool { sortsInMemory && keyPath == "SELF" }

    /// True when the key compares with Swift code (``customComparator``), so that only memory can sort by it.
    public var sortsInMemory: Bool { customComparator != nil }

    /// Compares two values of the key in ascending order: with the ``customComparator`` (given their public
    /// forms) when there is one, with ``comparator`` otherwise.
    package func compareValues(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
        if let customComparator { return customComparator.compare(a.anyValue, b.anyValue) }
        return comparator.compare(a, b)
    }
}
