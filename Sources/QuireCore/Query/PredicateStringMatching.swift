import QuireSupport
import Foundation

/// The string operators of predicates: `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`.
package enum PredicateStringMatching {
    /// Folds a string for the comparison options `[c]` and `[d]`.
    package static func fold(_ string: String, _ options: QueryComparison.Options) -> String {
        QueryStringComparison.fold(
            string,
            caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive)
        )
    }

    /// True when two strings are equal under the options.
    package static func equal(_ a: String, _ b: String, _ options: QueryComparison.Options) -> Bool {
        guard !options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]) else { return a == b }
        return fold(a, options) == fold(b, options)
    }

    /// `BEGINSWITH`.
    package static func begins(_ string: String, with prefix: String, _ options: QueryComparison.Options) -> Bool {
        PreparedStringPattern(.beginsWith, pattern: prefix, options: options).matches(string)
    }

    /// `ENDSWITH`.
    package static func ends(_ string: String, with suffix: String, _ options: QueryComparison.Options) -> Bool {
        PreparedStringPattern(.endsWith, pattern: suffix, options: options).matches(string)
    }

    /// `CONTAINS` on strings (and `IN` with the operands swapped). The empty string is in every string.
    package static func contains(_ string: String, _ substring: String, _ options: QueryComparison.Options) -> Bool {
        PreparedStringPattern(.contains, pattern: substring, options: options).matches(string)
    }

    /// `LIKE`: `*` matches any run of characters (the empty one too), `?` exactly one, and a backslash makes
    /// the next character literal. The whole string must match.
    ///
    /// - Complexity: O(*n* × *m*) in the worst case, for a string of *n* and a pattern of *m* characters.
    package static func like(_ string: String, pattern: String, _ options: QueryComparison.Options) -> Bool {
        PreparedStringPattern(.like, pattern: pattern, options: options).matches(string)
    }

    // MARK: - MATCHES

    /// `MATCHES`: the whole string matches an ICU regular expression (`[c]` makes it case-insensitive, `[d]`
    /// folds diacritics of the string and the pattern).
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` when the pattern is not a valid regular expression.
    package static func matches(_ string: String, pattern: String, _ options: QueryComparison.Options) throws -> Bool {
        let diacritics: QueryComparison.Options = options.intersection(.diacriticInsensitive)
        let subject = fold(string, diacritics)
        let regex = try PredicateRegexCache.shared.regex(
            for: fold(pattern, diacritics),
            caseInsensitive: options.contains(.caseInsensitive)
        )
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [], range: range) != nil
    }
}

/// Compiled `MATCHES` patterns, shared by all evaluations so a fetch compiles each pattern once.
///
/// `@unchecked Sendable`: the dictionary is only read and written while `lock` is held, and
/// `NSRegularExpression` is immutable once built (Foundation documents it as safe to share between threads).
package final class PredicateRegexCache: @unchecked Sendable {
    /// The process-wide cache.
    package static let shared = PredicateRegexCache()

    /// Entries kept before the cache starts over.
    private let capacity = 128
    private let lock = NSLock()
    private var entries: [Key: NSRegularExpression] = [:]

    private struct Key: Hashable {
        var pattern: String
        var caseInsensitive: Bool
    }

    /// The compiled whole-string matcher for a pattern.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` when the pattern is not a valid regular expression.
    package func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
        lock.lock()
        let cached = entries[key]
        lock.unlock()
        if let cached { return cached }
        let regex: NSRegularExpression
        do {
            // `\A(?:…)\z` makes the match cover the whole string, as Core Data's MATCHES does.
            regex = try NSRegularExpression(
                pattern: "\\A(?:" + pattern + ")\\z",
                options: caseInsensitive ? [.caseInsensitive] : []
            )
        } catch {
            throw QuireError(
                .predicateEvaluation,
                "The MATCHES pattern \"\(pattern)\" is not a valid regular expression."
            )
        }
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = regex
        lock.unlock()
        return regex
    }
}

extension PredicateStringMatching {
    /// The form of a string that `==`, `<` and the other comparisons under `[c]` and `[d]` compare byte for
    /// byte: the folded string, precomposed (NFC). Two strings are equal under the options exactly when their
    /// keys have the same bytes, since canonically equivalent strings have the same NFC form; the SQLite store
    /// compares these keys in SQL (`quire_fold`).
    ///
    /// - Complexity: O(*n*); without allocation beyond the result for ASCII text.
    package static func comparisonKey(_ string: String, _ options: QueryComparison.Options) -> String {
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            return options.contains(.caseInsensitive) ? asciiLowercased(string) : string
        }
        return fold(string, options).precomposedStringWithCanonicalMapping
    }

    private static func asciiLowercased(_ string: String) -> String {
        guard string.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return string }
        return String(decoding: string.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
