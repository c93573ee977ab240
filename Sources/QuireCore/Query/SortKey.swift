import QuireSupport
import Foundation

/// One key of a sort order, Core Data's `NSSortDescriptor`.
///
/// ```swift
/// let order = [SortKey("lastName", comparator: .localizedStandardCompare), SortKey("age", ascending: false)]
/// let sorted = try authors.sorted(by: order)
/// ```
///
/// Nil sorts before every value in ascending order (after every value in descending order), as in Core
/// Data's SQLite store.
public struct SortKey: Hashable, Sendable {
    /// How two values of the key are compared, named after the selectors Core Data's stores accept.
    public enum Comparator: String, Hashable, Sendable, CaseIterable {
        /// `compare:`: numbers numerically, strings by their UTF-8 bytes (Unicode scalar order, SQLite's
        /// `BINARY`), dates in time.
        case compare = "compare:"
        /// `caseInsensitiveCompare:`: as ``compare``, strings regardless of case.
        case caseInsensitiveCompare = "caseInsensitiveCompare:"
        /// `localizedCompare:`: as ``compare`` (Quire does not vary by locale).
        case localizedCompare = "localizedCompare:"
        /// `localizedCaseInsensitiveCompare:`: as ``caseInsensitiveCompare``.
        case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
        /// `localizedStandardCompare:`: Finder order: case- and diacritic-insensitive, digit runs as numbers
        /// (`"file9" < "file10"`), ties broken deterministically so only equal strings compare the same.
        case localizedStandardCompare = "localizedStandardCompare:"

        /// The Objective-C selector name, such as `compare:`.
        public var selectorName: String { rawValue }

        /// The comparator for a selector name, such as `caseInsensitiveCompare:`; nil for others.
        ///
        /// - Parameter selectorName: The selector name, with its colon.
        public init?(selectorName: String) {
            self.init(rawValue: selectorName)
        }

        /// Compares two values with this comparator; values of kinds that do not compare order by kind
        /// (nil, then numbers, strings, dates, data, UUIDs, URIs), so sorting is always total.
        ///
        /// - Parameters:
        ///   - a: The first value.
        ///   - b: The second value.
        /// - Returns: The order of `a` relative to `b`, ascending.
        public func compare(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
            if case .string(let x) = a, case .string(let y) = b {
                switch self {
                case .compare, .localizedCompare:
                    return QueryStringComparison.utf8Compare(x, y)
                case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare:
                    return QueryStringComparison.compare(x, y, options: .caseInsensitive)
                case .localizedStandardCompare:
                    return QueryStringComparison.standardCompare(x, y)
                }
            }
            if let result = a.compare(b) { return result }
            let rankA = Self.kindRank(a)
            let rankB = Self.kindRank(b)
            if rankA != rankB { return rankA < rankB ? .orderedAscending : .orderedDescending }
            return .orderedSame
        }

        private static func kindRank(_ value: AttributeValue) -> Int {
            switch value {
            case .null: return 0
            case .integer, .double, .float, .decimal, .boolean: return 1
            case .string: return 2
            case .date: return 3
            case .data, .externalData: return 4
            case .uuid: return 5
            case .uri: return 6
            }
        }
    }

    /// The key path whose values are compared, such as `author.lastName` or `books.@count`.
    public var keyPath: String
    /// True for ascending order.
    public var ascending: Bool
    /// How values are compared.
    public var comparator: Comparator
    /// Swift code that compares the values instead of ``comparator``, as `NSSortDescriptor(key:ascending:comparator:)`
    /// (see ``init(_:ascending:comparator:)-(_,_,(Any?,Any?)->ComparisonResult)``); nil for the named
    /// comparators. Stores cannot run it: a fetch with such a key sorts in memory.
    public var customComparator: CustomComparator?

    /// Creates a sort key.
    ///
    /// - Parameters:
    ///   - keyPath: The key path whose values are compared.
    ///   - ascending: True for ascending order (the default).
    ///   - comparator: How values are compared; ``Comparator/compare`` by default.
    public init(_ keyPath: String, ascending: Bool = true, comparator: Comparator = .compare) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparator = comparator
    }

    /// Creates a sort key under Core Data's labels (`NSSortDescriptor(key:ascending:)`).
    ///
    /// - Parameters:
    ///   - key: The key path whose values are compared.
    ///   - ascending: True for ascending order.
    public init(key: String, ascending: Bool) {
        self.init(key, ascending: ascending)
    }

    /// The same key in the opposite order.
    public var reversed: SortKey {
        var key = SortKey(keyPath, ascending: !ascending, comparator: comparator)
        key.customComparator = customComparator
        return key
    }
}
