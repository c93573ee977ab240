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

    private static let cache = LockedValue<[String: [PredicateToken]]>([:])

    /// The tokens of a format string, ending with ``PredicateToken/Kind/end``.
    ///
    /// - Throws: ``QuireError/Code/predicateSyntax`` as ``PredicateLexer/tokenize()`` does.
    static func tokens(of format: String) throws -> [PredicateToken] {
        let cacheable = format.utf8.count <= longestFormat && format.utf8.allSatisfy { $0 < 0x80 }
        if cacheable, let tokens = cache.withLock({ $0[format] }) { return tokens }
        var lexer = PredicateLexer(format)
        let tokens = try lexer.tokenize()
        if cacheable {
            cache.withLock { cached in
                if cached.count >= limit { cached.removeAll(keepingCapacity: true) }
                cached[format] = tokens
            }
        }
        return tokens
    }
}
