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

    /// What is kept of a format string: its tokens, and its shape when it is one key compared with one `%@`. A
    /// class, so that handing it out of the cache is one retain.
    final class Entry: Sendable {
        /// The tokens, ending with ``PredicateToken/Kind/end``.
        let tokens: [PredicateToken]
        /// The format's comparison prepared, when the format is `key <operator> %@`.
        let keyComparison: KeyComparisonFormat?

        init(tokens: [PredicateToken], keyComparison: KeyComparisonFormat?) {
            self.tokens = tokens
            self.keyComparison = keyComparison
        }
    }

    /// The formats kept, and the last few asked for (compared before the dictionary is hashed: a loop that parses
    /// the same two or three formats for every record finds them by `==`, which an app's format literals, being the
    /// very same strings, answer at once).
    fileprivate struct Cache {
        var entries: [String: Entry] = [:]
        var recent: [(format: String, entry: Entry)] = []
        /// The identities of the recent formats, in their order (compared without copying the entries).
        var recentIdentities: [FormatIdentity] = []
    }

    /// A string's representation (the two words of a `String`: its count and flags, and its storage's address or,
    /// for a small string, its bytes). Two strings with equal words are the same text, byte for byte: a small
    /// string's words are its bytes, and a large string's storage is never changed while another string shares it
    /// (a string is copied before it is changed unless it holds its storage alone). A recent format is kept in
    /// ``Cache/recent`` while its identity is in ``Cache/recentIdentities``, so its storage stays alive and no other
    /// string can be given its address while the identity is compared with.
    fileprivate struct FormatIdentity: Equatable {
        let first: UInt64
        let second: UInt64

        init(_ string: String) {
            // `String` is two words on the 64-bit platforms Quire builds for; the bytes are only read.
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeBytes(of: string) { bytes in
                if bytes.count == 16 {
                    words = (
                        bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                        bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    )
                }
            }
            (first, second) = words
        }
    }

    /// The most recent formats compared before the dictionary.
    static let recentLimit = 4

    private static let cache = LockedValue(Cache())

    /// The tokens of a format string, ending with ``PredicateToken/Kind/end``, and its prepared comparison when it
    /// is `key <operator> %@`.
    ///
    /// - Throws: ``QuireError/Code/predicateSyntax`` as ``PredicateLexer/tokenize()`` does.
    static func entry(for format: String) throws -> Entry {
        // The very string asked for before (an app's format literal, asked once per record), known by its
        // representation before its bytes are read: it was cacheable then, so it is now.
        let identity = FormatIdentity(format)
        let (found, cacheable) = cache.withLock { cached -> (Entry?, Bool) in
            if let entry = cached.entry(identicalTo: identity) { return (entry, true) }
            let cacheable = format.utf8.count <= longestFormat && format.utf8.allSatisfy { $0 < 0x80 }
            return (cacheable ? cached.entry(for: format) : nil, cacheable)
        }
        if let found { return found }
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
    /// The entry of a recent format whose representation is `identity`'s: the same string, byte for byte.
    func entry(identicalTo identity: PredicateTokenCache.FormatIdentity) -> PredicateTokenCache.Entry? {
        // A zero identity is a string whose words could not be read (another word size): never matched.
        guard identity.first != 0 || identity.second != 0 else { return nil }
        guard let index = recentIdentities.firstIndex(of: identity) else { return nil }
        return recent[index].entry
    }

    /// The entry of a format kept before: among the recent ones first, then by hash.
    mutating func entry(for format: String) -> PredicateTokenCache.Entry? {
        if let found = recent.firstIndex(where: { $0.format == format }) { return recent[found].entry }
        guard let entry = entries[format] else { return nil }
        remember(format, entry)
        return entry
    }

    /// Puts a format among the recent ones, in place of the oldest when they are full.
    mutating func remember(_ format: String, _ entry: PredicateTokenCache.Entry) {
        if recent.count >= PredicateTokenCache.recentLimit {
            recent.removeFirst()
            recentIdentities.removeFirst()
        }
        recent.append((format, entry))
        recentIdentities.append(PredicateTokenCache.FormatIdentity(format))
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
        guard let first = arguments.first else { return nil }
        let right: QueryExpression
        if type(of: first) == String.self, let string = first as? String {
            // A string, the usual key (told by its exact type): the constant the converter makes of it, without
            // its look for optionals and other types first.
            right = .constant(.string(string))
        } else if let converted = PredicateConstantConverter.expression(for: first) {
            // `expression(for:)` unwraps optionals itself, as the parser's `nextArgument` does before it.
            right = converted
        } else {
            return nil
        }
        return .comparison(QueryComparison(left, `operator`, right, leftKeyPath: leftKeyPath))
    }
}
