import Foundation

/// The string operators of predicates: `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`.
enum PredicateStringMatching {
    /// Folds a string for the comparison options `[c]` and `[d]`.
    static func fold(_ string: String, _ options: QueryComparison.Options) -> String {
        QueryStringComparison.fold(
            string,
            caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive)
        )
    }

    /// True when two strings are equal under the options.
    static func equal(_ a: String, _ b: String, _ options: QueryComparison.Options) -> Bool {
        guard !options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]) else { return a == b }
        return fold(a, options) == fold(b, options)
    }

    /// `BEGINSWITH`.
    static func begins(_ string: String, with prefix: String, _ options: QueryComparison.Options) -> Bool {
        fold(string, options).hasPrefix(fold(prefix, options))
    }

    /// `ENDSWITH`.
    static func ends(_ string: String, with suffix: String, _ options: QueryComparison.Options) -> Bool {
        fold(string, options).hasSuffix(fold(suffix, options))
    }

    /// `CONTAINS` on strings (and `IN` with the operands swapped). The empty string is in every string.
    static func contains(_ string: String, _ substring: String, _ options: QueryComparison.Options) -> Bool {
        let needle = fold(substring, options)
        return needle.isEmpty || fold(string, options).contains(needle)
    }

    // MARK: - LIKE

    private enum LikeElement: Equatable {
        case literal(Character)
        case anyOne
        case anyRun
    }

    /// `LIKE`: `*` matches any run of characters (the empty one too), `?` exactly one, and a backslash makes
    /// the next character literal. The whole string must match.
    ///
    /// - Complexity: O(*n* × *m*) in the worst case, for a string of *n* and a pattern of *m* characters.
    static func like(_ string: String, pattern: String, _ options: QueryComparison.Options) -> Bool {
        let text = Array(fold(string, options))
        var elements: [LikeElement] = []
        var escaping = false
        for character in fold(pattern, options) {
            if escaping {
                elements.append(.literal(character))
                escaping = false
                continue
            }
            switch character {
            case "\\": escaping = true
            case "*": if elements.last != .anyRun { elements.append(.anyRun) }
            case "?": elements.append(.anyOne)
            default: elements.append(.literal(character))
            }
        }
        if escaping { elements.append(.literal("\\")) }

        // Greedy matching with backtracking to the last `*`: linear for most patterns, never exponential.
        var t = 0
        var p = 0
        var starPattern: Int?
        var starText = 0
        while t < text.count {
            if p < elements.count {
                switch elements[p] {
                case .anyRun:
                    starPattern = p
                    starText = t
                    p += 1
                    continue
                case .anyOne:
                    t += 1
                    p += 1
                    continue
                case .literal(let character) where character == text[t]:
                    t += 1
                    p += 1
                    continue
                case .literal:
                    break
                }
            }
            guard let star = starPattern else { return false }
            p = star + 1
            starText += 1
            t = starText
        }
        while p < elements.count, elements[p] == .anyRun { p += 1 }
        return p == elements.count
    }

    // MARK: - MATCHES

    /// `MATCHES`: the whole string matches an ICU regular expression (`[c]` makes it case-insensitive, `[d]`
    /// folds diacritics of the string and the pattern).
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` when the pattern is not a valid regular expression.
    static func matches(_ string: String, pattern: String, _ options: QueryComparison.Options) throws -> Bool {
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
final class PredicateRegexCache: @unchecked Sendable {
    /// The process-wide cache.
    static let shared = PredicateRegexCache()

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
    func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
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
