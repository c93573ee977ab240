import Foundation
import Testing

import Quire

@Suite("Predicate string matching")
struct PredicateStringMatchingTests {
    /// Evaluates `SELF <operator>[<options>] pattern` on a string, as an application would.
    static func evaluate(_ string: String, _ operation: String, _ pattern: String, _ options: QueryComparison.Options) throws -> Bool {
        let modifier = (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
        let format = "SELF \(operation)\(modifier.isEmpty ? "" : "[\(modifier)]") %@"
        return try QueryPredicate(format: format, pattern).evaluate(with: AttributeValue.string(string))
    }

    @Test("Matches LIKE patterns")
    func like() throws {
        let cases: [(String, String, QueryComparison.Options, Bool)] = [
            ("", "", [], true),
            ("", "*", [], true),
            ("", "?", [], false),
            ("abc", "abc", [], true),
            ("abc", "ab", [], false),
            ("abc", "a*", [], true),
            ("abc", "*c", [], true),
            ("abc", "*b*", [], true),
            ("abc", "a?c", [], true),
            ("abc", "a??c", [], false),
            ("abc", "***", [], true),
            ("abcbc", "a*bc", [], true),
            ("abcbd", "a*bc", [], false),
            ("a*c", #"a\*c"#, [], true),
            ("abc", #"a\*c"#, [], false),
            ("a?c", #"a\?c"#, [], true),
            (#"a\c"#, #"a\\c"#, [], true),
            (#"a\"#, #"a\"#, [], true),
            ("ABC", "a*", [], false),
            ("ABC", "a*", .caseInsensitive, true),
            ("Ärger", "Arg*", .diacriticInsensitive, true),
            ("Ärger", "arg*", [.caseInsensitive, .diacriticInsensitive], true),
            ("🇨🇭 flag", "? flag", [], true),
            (String(repeating: "a", count: 2000), String(repeating: "*a", count: 50) + "b", [], false),
        ]
        for (string, pattern, options, expected) in cases {
            #expect(
                try Self.evaluate(string, "LIKE", pattern, options) == expected, "\(string) LIKE \(pattern)"
            )
        }
    }

    @Test("Matches regular expressions as a whole")
    func matches() throws {
        #expect(try Self.evaluate("abc", "MATCHES", "a.c", []))
        #expect(try !Self.evaluate("abcd", "MATCHES", "a.c", []))
        #expect(try !Self.evaluate("xabc", "MATCHES", "abc", []))
        #expect(try !Self.evaluate("abc\n", "MATCHES", "abc", []))
        #expect(try Self.evaluate("ABC", "MATCHES", "abc", .caseInsensitive))
        #expect(try Self.evaluate("café", "MATCHES", "cafe", .diacriticInsensitive))
        #expect(try Self.evaluate("a|b", "MATCHES", #"a\|b"#, []))
        #expect(try Self.evaluate("ab", "MATCHES", "a|ab", []))
        #expect(throws: QuireError.self) { try Self.evaluate("a", "MATCHES", "[", []) }
    }

    @Test("Compares strings for BEGINSWITH, ENDSWITH, CONTAINS")
    func substrings() throws {
        #expect(try Self.evaluate("Éclair", "BEGINSWITH", "ec", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try !Self.evaluate("Éclair", "BEGINSWITH", "ec", .caseInsensitive))
        #expect(try Self.evaluate("naïve", "ENDSWITH", "IVE", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try Self.evaluate("anything", "CONTAINS", "", []))
        #expect(try Self.evaluate("İstanbul", "CONTAINS", "istanbul", [.caseInsensitive, .diacriticInsensitive]))
    }

    @Test("Orders strings as localizedStandardCompare")
    func standardCompare() throws {
        let cases: [(String, String, ComparisonResult)] = [
            ("file2", "file10", .orderedAscending),
            ("File2", "file10", .orderedAscending),
            ("file2", "File2", .orderedAscending),
            ("a", "A", .orderedAscending),
            ("e", "é", .orderedAscending),
            ("é", "f", .orderedAscending),
            ("x", "x", .orderedSame),
            ("v1.10", "v1.9", .orderedDescending),
            ("", "a", .orderedAscending),
        ]
        for (a, b, expected) in cases {
            let key = [SortKey("name", comparator: .localizedStandardCompare)]
            #expect(try SortKey.compare(["name": a], ["name": b], by: key) == expected, "\(a) vs \(b)")
            #expect(SortKey.Comparator.localizedStandardCompare.compare(.string(a), .string(b)) == expected)
        }
    }
}
