import QuireSupport
import Foundation

/// The tokens of format strings parsed before, so that an application that parses the same format for every
/// record (`QueryPredicate(format: "remoteID == %@", id)` in a sync loop) splits it into tokens once.
///
/// Tokens depend on the format string alone (format arguments are substituted by the parser, after), so a cached
/// list is exactly what splitting the string again would give. Only ASCII formats are kept (Swift compares strings
/// by canonical equivalence, so a cache keyed by other text would hand a decomposed literal the tokens of its
/// precomposed twin), only formats that tokenize, up to ``limit`` of them (the cache is emptied when full), and
/// none longer than ``longestFormat`` bytes.
enum PredicateTokenCache {
    /// The most formats kept.
    static let limit = 256
    /// The longest format kept, in UTF-8 bytes.
    static let longestFormat = 1_024

    /// What is kept of a format string: its tokens, and its shape when it is one key compared with one `%@`.
    struct Entry: Sendable {
        /// The tokens, ending with ``PredicateToken/Kind/end``.
        let tokens: [PredicateToken]
        /// The format's comparison prepared, when the format is `key <operator> %@`.
        let keyComparison: KeyComparisonFormat?
    }

    /// The formats kept, and the last few asked for (compared before the dictionary is hashed: a loop that parses
    /// the same two or three formats for every record finds them by `==`, which an app's format literals, being the
    /// very same strings, answer at once).
    fileprivate struct Cache {
        var entries: [String: Entry] = [:]
        var recent: [(format: String, entry: Entry)] = []
    }

    /// The most recent formats compared before the dictionary.
    static let recentLimit = 4

    private static let cache = LockedValue(Cache())

    /// The tokens of a format string, ending with ``PredicateToken/Kind/end``, and its prepared comparison when it
    /// is `key <operator> %@`.
    ///
    /// - Throws: ``QuireError/Code/predicateSyntax`` as ``PredicateLexer/tokenize()`` does.
    static func entry(for format: String) throws -> Entry {
        let cacheable = format.utf8.count <= longestFormat && format.utf8.allSatisfy { $0 < 0x80 }
        if cacheable, let entry = cache.withLock({ $0.entry(for: format) }) { return entry }
        var lexer = PredicateLexer(format)
        let tokens = try lexer.tokenize()
        let entry = Entry(tokens: tokens, keyComparison: KeyComparisonFormat(tokens: tokens))
        if cacheable {
            cache.withLock { cached in
                if cached.entries.count >= limit { cached.entries.removeAll(keepingCapacity: true) }
                cached.entries[format] = entry
                cached.remember(format, entry)
            }
        }
        return entry
    }
}

extension PredicateTokenCache.Cache {
    /// The entry of a format kept before: among the recent ones first, then by hash.
    mutating func entry(for format: String) -> PredicateTokenCache.Entry? {
        if let found = recent.firstIndex(where: { $0.format == format }) { return recent[found].entry }
        guard let entry = entries[format] else { return nil }
        remember(format, entry)
        return entry
    }

    /// Puts a format among the recent ones, in place of the oldest when they are full.
    mutating func remember(_ format: String, _ entry: PredicateTokenCache.Entry) {
        if recent.count >= PredicateTokenCache.recentLimit { recent.removeFirst() }
        recent.append((format, entry))
    }
}

/// A format string that is one key compared with one object argument (`remoteID == %@`, `name != %@`, `rank > %@`:
/// the format real apps parse once per record to look it up), read from its tokens once: the predicate it gives
/// for an argument is made without parsing (``QueryPredicate/init(format:argumentArray:)``), with the key path the
/// parser would make, split once and shared by every comparison made from the format.
struct KeyComparisonFormat: Sendable {
    /// The left side, `.keyPath(key)`.
    let left: QueryExpression
    /// `left` split (one key), with its words.
    let leftKeyPath: SplitKeyPath
    /// The operator.
    let `operator`: QueryComparison.Operator

    /// The shape of `key <operator> %@` followed by the end, or nil for any other token list. `BETWEEN` is left to
    /// the parser (it checks its argument's count), as is every operator with options (`==[c]`).
    init?(tokens: [PredicateToken]) {
        guard tokens.count == 4, case .identifier(let key) = tokens[0].kind, tokens[2].kind == .format(.object),
            tokens[3].kind == .end
        else { return nil }
        guard let op = PredicateParser.comparisonOperator(tokens[1].kind), op != .between else { return nil }
        let left = PredicateParser.keyPath(.evaluatedObject, [key])
        guard let split = SplitKeyPath(left) else { return nil }
        self.left = left
        self.leftKeyPath = split
        self.operator = op
    }

    /// The predicate for the format's arguments, as the parser makes it; nil when the parser must answer (no
    /// argument, or one with no constant form: the parser throws the error naming it).
    func predicate(arguments: [Any]) -> QueryPredicate? {
        // `expression(for:)` unwraps optionals itself, as the parser's `nextArgument` does before it.
        guard let first = arguments.first, let right = PredicateConstantConverter.expression(for: first) else { return nil }
        return .comparison(QueryComparison(left, `operator`, right, leftKeyPath: leftKeyPath))
    }
}
