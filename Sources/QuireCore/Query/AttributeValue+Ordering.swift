import QuireSupport
import Foundation

extension AttributeValue {
    /// Compares two values the way predicates and sort keys order them; nil when they cannot be compared.
    ///
    /// ```swift
    /// AttributeValue.integer(2).compare(.double(2.5))                           // .orderedAscending
    /// AttributeValue.string("Ärger").compare(.string("arger"), options: [.caseInsensitive,
    ///                                                                     .diacriticInsensitive])  // .orderedSame
    /// AttributeValue.string("a").compare(.integer(1))                           // nil
    /// ```
    ///
    /// - Numbers compare numerically across ``integer(_:)``, ``double(_:)``, ``float(_:)``, ``decimal(_:)``
    ///   and ``boolean(_:)`` (false is 0, true is 1); NaN compares with nothing.
    /// - Strings compare by Unicode scalar values after canonical normalization, honoring
    ///   `.caseInsensitive`, `.diacriticInsensitive` and `.numeric` (digit runs as numbers) in `options`.
    /// - Dates compare in time; data compares byte by byte, shorter first on a common prefix; UUIDs compare
    ///   by their bytes; URIs by their absolute strings.
    /// - ``null`` equals ``null`` and orders before every other value (nil sorts first, as in Core Data's
    ///   SQLite store). Predicates treat `<` and `>` with nil as false themselves.
    ///
    /// - Parameters:
    ///   - other: The value to compare with.
    ///   - options: String comparison options; others than those above are ignored.
    /// - Returns: The order of `self` relative to `other`, or nil when the kinds cannot be compared.
    public func compare(_ other: AttributeValue, options: String.CompareOptions = []) -> ComparisonResult? {
        switch (self, other) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)): return QueryStringComparison.compare(a, b, options: options)
        case (.date(let a), .date(let b)):
            return Self.order(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.data(let a), .data(let b)): return Self.order(bytes: Array(a), Array(b))
        case (.uuid(let a), .uuid(let b)):
            let x = withUnsafeBytes(of: a.uuid) { Array($0) }
            let y = withUnsafeBytes(of: b.uuid) { Array($0) }
            return Self.order(bytes: x, y)
        case (.uri(let a), .uri(let b)): return QueryStringComparison.plainCompare(a.absoluteString, b.absoluteString)
        default:
            guard let a = PredicateNumber(self), let b = PredicateNumber(other) else { return nil }
            return PredicateNumber.compare(a, b)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult? {
        if a < b { return .orderedAscending }
        if a > b { return .orderedDescending }
        if a == b { return .orderedSame }
        return nil
    }

    private static func order(bytes a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y {
            return x < y ? .orderedAscending : .orderedDescending
        }
        if a.count == b.count { return .orderedSame }
        return a.count < b.count ? .orderedAscending : .orderedDescending
    }
}

/// A number of any numeric case of ``AttributeValue``, compared exactly where it can be.
enum PredicateNumber {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    init?(_ value: AttributeValue) {
        switch value {
        case .integer(let v): self = .integer(v)
        case .boolean(let v): self = .integer(v ? 1 : 0)
        case .double(let v): self = .double(v)
        case .float(let v): self = .double(Double(v))
        case .decimal(let v): self = .decimal(v)
        default: return nil
        }
    }

    /// The number as a double.
    var doubleValue: Double {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        }
    }

    /// The number as a decimal, when it has one.
    var decimalValue: Decimal? {
        switch self {
        case .integer(let v): return Decimal(v)
        case .double(let v): return PredicateCast.decimal(from: v)
        case .decimal(let v): return v
        }
    }

    static func compare(_ a: PredicateNumber, _ b: PredicateNumber) -> ComparisonResult? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.integer(let x), .double(let y)):
            return compare(x, y)
        case (.double(let x), .integer(let y)):
            return compare(y, x).map(reversed)
        case (.decimal(let x), .integer), (.decimal(let x), .decimal):
            guard let y = b.decimalValue else { return nil }
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.integer, .decimal(let y)):
            guard let x = a.decimalValue else { return nil }
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        default:
            let x = a.doubleValue
            let y = b.doubleValue
            if x < y { return .orderedAscending }
            if x > y { return .orderedDescending }
            if x == y { return .orderedSame }
            return nil
        }
    }

    /// Compares an integer with a double exactly (no rounding of large integers).
    private static func compare(_ x: Int64, _ y: Double) -> ComparisonResult? {
        guard !y.isNaN else { return nil }
        let converted = Double(x)
        if converted < y { return .orderedAscending }
        if converted > y { return .orderedDescending }
        // Double(x) == y, so y is integral; compare exactly where y fits in 64 bits (2^63 does not, and is larger).
        guard let integral = Int64(exactly: y) else { return .orderedAscending }
        return x == integral ? .orderedSame : (x < integral ? .orderedAscending : .orderedDescending)
    }

    private static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
