import QuireSupport
import Foundation

/// Deterministic string comparison for predicates and sort keys.
///
/// Quire does not lean on Foundation's locale-dependent comparison (which differs between platforms and
/// locales): strings order by Unicode scalar values after canonical normalization (Swift's `<`), optionally
/// folded for case and diacritics, optionally with digit runs compared as numbers.
enum QueryStringComparison {
    /// Folds a string for comparison: lowercased when case-insensitive, with combining marks removed after
    /// canonical decomposition when diacritic-insensitive.
    ///
    /// - Complexity: O(*n*) in the length of the string.
    static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var result = caseInsensitive ? string.lowercased() : string
        if diacriticInsensitive {
            var scalars = String.UnicodeScalarView()
            for scalar in result.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                scalars.append(scalar)
            }
            result = String(scalars)
        }
        return result
    }

    /// Compares two strings with the options `.caseInsensitive`, `.diacriticInsensitive` and `.numeric`
    /// (others are ignored).
    static func compare(_ a: String, _ b: String, options: String.CompareOptions) -> ComparisonResult {
        let caseInsensitive = options.contains(.caseInsensitive)
        let diacriticInsensitive = options.contains(.diacriticInsensitive)
        let left = fold(a, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        let right = fold(b, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        if options.contains(.numeric) { return numericCompare(left, right) }
        return plainCompare(left, right)
    }

    /// Compares two strings as Swift does (canonical equivalence, then Unicode scalar order).
    static func plainCompare(_ a: String, _ b: String) -> ComparisonResult {
        if a == b { return .orderedSame }
        return a < b ? .orderedAscending : .orderedDescending
    }

    /// Compares two strings by their UTF-8 bytes, as SQLite's `BINARY` collation does (the order of Unicode
    /// scalar values; the same as ``plainCompare(_:_:)`` for precomposed text).
    static func utf8Compare(_ a: String, _ b: String) -> ComparisonResult {
        var left = a
        var right = b
        return left.withUTF8 { x in
            right.withUTF8 { y in
                let count = Swift.min(x.count, y.count)
                if count > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let result = memcmp(p, q, count)
                    if result != 0 { return result < 0 ? .orderedAscending : .orderedDescending }
                }
                if x.count == y.count { return .orderedSame }
                return x.count < y.count ? .orderedAscending : .orderedDescending
            }
        }
    }

    /// Compares two strings character by character, except that runs of ASCII digits compare as numbers
    /// (`"file9" < "file10"`). Numbers of any length compare exactly; leading zeros are ignored.
    static func numericCompare(_ a: String, _ b: String) -> ComparisonResult {
        let left = Array(a)
        let right = Array(b)
        var i = 0
        var j = 0
        while i < left.count, j < right.count {
            if isDigit(left[i]), isDigit(right[j]) {
                let leftStart = i
                let rightStart = j
                while i < left.count, isDigit(left[i]) { i += 1 }
                while j < right.count, isDigit(right[j]) { j += 1 }
                let result = compareDigitRuns(left[leftStart..<i], right[rightStart..<j])
                if result != .orderedSame { return result }
            } else {
                if left[i] != right[j] { return left[i] < right[j] ? .orderedAscending : .orderedDescending }
                i += 1
                j += 1
            }
        }
        let leftRemaining = left.count - i
        let rightRemaining = right.count - j
        if leftRemaining == rightRemaining { return .orderedSame }
        return leftRemaining < rightRemaining ? .orderedAscending : .orderedDescending
    }

    /// Finder-style ordering (`localizedStandardCompare:`), made deterministic: case- and diacritic-
    /// insensitive with numeric digit runs first; then diacritics break ties, then case (lowercase first),
    /// then the plain order, so only equal strings compare the same.
    static func standardCompare(_ a: String, _ b: String) -> ComparisonResult {
        let primary = numericCompare(
            fold(a, caseInsensitive: true, diacriticInsensitive: true),
            fold(b, caseInsensitive: true, diacriticInsensitive: true)
        )
        if primary != .orderedSame { return primary }
        let secondary = numericCompare(
            fold(a, caseInsensitive: true, diacriticInsensitive: false),
            fold(b, caseInsensitive: true, diacriticInsensitive: false)
        )
        if secondary != .orderedSame { return secondary }
        let tertiary = numericCompare(swappingCase(a), swappingCase(b))
        if tertiary != .orderedSame { return tertiary }
        return plainCompare(a, b)
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    private static func compareDigitRuns(_ a: ArraySlice<Character>, _ b: ArraySlice<Character>) -> ComparisonResult {
        let left = a.drop { $0 == "0" }
        let right = b.drop { $0 == "0" }
        if left.count != right.count { return left.count < right.count ? .orderedAscending : .orderedDescending }
        for (x, y) in zip(left, right) where x != y {
            return x < y ? .orderedAscending : .orderedDescending
        }
        return .orderedSame
    }

    /// The string with upper- and lowercase letters swapped, so that a plain comparison puts lowercase first.
    private static func swappingCase(_ string: String) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        for character in string {
            if character.isUppercase {
                result += character.lowercased()
            } else if character.isLowercase {
                result += character.uppercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
