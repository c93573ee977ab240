// Interim stand-ins until the predicate language lands; deleted then.
public struct QueryPredicate: Hashable, Sendable, CustomStringConvertible {
    public var description: String { "TRUEPREDICATE" }
}
public struct SortKey: Hashable, Sendable {
    public enum Comparator: Hashable, Sendable { case compare, caseInsensitiveCompare, localizedStandardCompare }
    public var keyPath: String
    public var ascending: Bool
    public var comparator: Comparator
    public init(_ keyPath: String, ascending: Bool = true, comparator: Comparator = .compare) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparator = comparator
    }
}
