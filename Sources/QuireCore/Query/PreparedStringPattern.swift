import QuireSupport
import Foundation

/// The right side of a string operator (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`), folded and analysed
/// once, then tested against many strings.
///
/// This is the one implementation of those operators: the in-memory evaluator uses it through
/// ``PredicateStringMatching``, and the SQLite store's SQL functions use it on the UTF-8 bytes SQLite hands
/// them, so SQL and memory always agree. Texts made only of ASCII characters other than carriage return (in
/// which every byte is one `Character`) take a byte-level path that allocates nothing; every other text is
/// decoded and compared by `Character`s, with canonical equivalence, exactly as Swift compares strings.
package struct PreparedStringPattern {
    /// The operator.
    package enum Operator: Int, Sendable, CaseIterable {
        /// `BEGINSWITH`.
        case beginsWith = 1
        /// `ENDSWITH`.
        case endsWith = 2
        /// `CONTAINS` on strings (and `IN` with its operands swapped).
        case contains = 3
        /// `LIKE`.
        case like = 4
    }

    /// One element of a `LIKE` pattern.
    package enum LikeElement: Equatable {
        case literal(Character)
        case anyOne
        case anyRun
    }

    /// One element of a `LIKE` pattern for ASCII texts.
    enum ASCIILikeElement: Equatable {
        case literal(UInt8)
        case anyOne
        case anyRun
    }

    package let `operator`: Operator
    package let caseInsensitive: Bool
    package let options: QueryComparison.Options
    /// The folded pattern (begins, ends, contains).
    package let folded: String
    /// The folded `LIKE` pattern's elements.
    let likeElements: [LikeElement]
    /// The folded pattern's bytes when it is simple ASCII; nil when no simple-ASCII text can match it.
    let asciiNeedle: [UInt8]?
    /// The `LIKE` elements for simple-ASCII texts; nil when no simple-ASCII text can match the pattern.
    let asciiLike: [ASCIILikeElement]?

    /// Prepares a pattern.
    ///
    /// - Parameters:
    ///   - operator: The string operator.
    ///   - pattern: The right side, unfolded.
    ///   - options: The comparison options; `[c]` and `[d]` matter.
    package init(_ operator: Operator, pattern: String, options: QueryComparison.Options) {
        self.operator = `operator`
        self.options = options
        caseInsensitive = options.contains(.caseInsensitive)
        let folded = PredicateStringMatching.fold(pattern, options)
        self.folded = folded
        if `operator` == .like {
            var elements: [LikeElement] = []
            var escaping = false
            for character in folded {
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
            likeElements = elements
            var ascii: [ASCIILikeElement]? = []
            for element in elements {
                switch element {
                case .anyOne: ascii?.append(.anyOne)
                case .anyRun: ascii?.append(.anyRun)
                case .literal(let character):
                    let scalars = character.unicodeScalars
                    if scalars.count == 1, let scalar = scalars.first, Self.isSimple(scalar) {
                        ascii?.append(.literal(UInt8(scalar.value)))
                    } else {
                        ascii = nil
                    }
                }
            }
            asciiLike = ascii
            asciiNeedle = nil
        } else {
            likeElements = []
            asciiLike = nil
            let bytes = Array(folded.utf8)
            asciiNeedle = bytes.allSatisfy(Self.isSimple) ? bytes : nil
        }
    }

    /// Whether a string matches.
    package func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    /// Whether a string, given as its UTF-8 bytes, matches.
    ///
    /// - Complexity: O(*n*) for `BEGINSWITH` and `ENDSWITH`, O(*n* × *m*) at worst for `CONTAINS` and `LIKE`.
    package func matches(utf8 text: UnsafeBufferPointer<UInt8>) -> Bool {
        if text.allSatisfy(Self.isSimple) {
            return matchesSimpleASCII(text)
        }
        let string = PredicateStringMatching.fold(String(decoding: text, as: UTF8.self), options)
        switch `operator` {
        case .beginsWith: return string.hasPrefix(folded)
        case .endsWith: return string.hasSuffix(folded)
        case .contains: return folded.isEmpty || string.contains(folded)
        case .like: return Self.like(Array(string), likeElements)
        }
    }

    /// True for bytes of ASCII characters other than carriage return: in a text made only of those, every byte
    /// is one `Character` (`"\r\n"` is a single one).
    static func isSimple(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x0D }

    private static func isSimple(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x80 && scalar.value != 0x0D }

    @inline(__always)
    private func fold(_ byte: UInt8) -> UInt8 {
        caseInsensitive && byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    /// The operator on a text of simple ASCII bytes: folding it is lowercasing its letters (diacritic folding
    /// changes nothing), and a pattern with other characters cannot match it.
    private func matchesSimpleASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if `operator` == .like {
            guard let elements = asciiLike else { return false }
            return asciiLikeMatches(text, elements)
        }
        guard let needle = asciiNeedle else { return false }
        let n = needle.count
        guard n <= text.count else { return false }
        switch `operator` {
        case .beginsWith:
            for i in 0..<n where fold(text[i]) != needle[i] { return false }
            return true
        case .endsWith:
            let start = text.count - n
            for i in 0..<n where fold(text[start + i]) != needle[i] { return false }
            return true
        default:
            if n == 0 { return true }
            var start = 0
            while start + n <= text.count {
                var i = 0
                while i < n, fold(text[start + i]) == needle[i] { i += 1 }
                if i == n { return true }
                start += 1
            }
            return false
        }
    }

    /// Greedy matching with backtracking to the last `*`: linear for most patterns, never exponential.
    private func asciiLikeMatches(_ text: UnsafeBufferPointer<UInt8>, _ elements: [ASCIILikeElement]) -> Bool {
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
                case .literal(let byte) where byte == fold(text[t]):
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

    /// `LIKE` on `Character`s, the same algorithm.
    package static func like(_ text: [Character], _ elements: [LikeElement]) -> Bool {
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
}
