// Unit tests of LIKE/MATCHES matching and string comparison, which have no public face: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

@Suite("Predicate string matching")
struct PredicateStringMatchingTests {
    @Test("Matches LIKE patterns")
    func like() {
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
                PredicateStringMatching.like(string, pattern: pattern, options) == expected, "\(string) LIKE \(pattern)"
            )
        }
    }

    @Test("Matches regular expressions as a whole")
    func matches() throws {
        #expect(try PredicateStringMatching.matches("abc", pattern: "a.c", []))
        #expect(try !PredicateStringMatching.matches("abcd", pattern: "a.c", []))
        #expect(try !PredicateStringMatching.matches("xabc", pattern: "abc", []))
        #expect(try !PredicateStringMatching.matches("abc\n", pattern: "abc", []))
        #expect(try PredicateStringMatching.matches("ABC", pattern: "abc", .caseInsensitive))
        #expect(try PredicateStringMatching.matches("café", pattern: "cafe", .diacriticInsensitive))
        #expect(try PredicateStringMatching.matches("a|b", pattern: #"a\|b"#, []))
        #expect(try PredicateStringMatching.matches("ab", pattern: "a|ab", []))
        #expect(throws: QuireError.self) { try PredicateStringMatching.matches("a", pattern: "[", []) }
    }

    @Test("Compares strings for BEGINSWITH, ENDSWITH, CONTAINS")
    func substrings() {
        #expect(PredicateStringMatching.begins("Éclair", with: "ec", [.caseInsensitive, .diacriticInsensitive]))
        #expect(!PredicateStringMatching.begins("Éclair", with: "ec", .caseInsensitive))
        #expect(PredicateStringMatching.ends("naïve", with: "IVE", [.caseInsensitive, .diacriticInsensitive]))
        #expect(PredicateStringMatching.contains("anything", "", []))
        #expect(PredicateStringMatching.contains("İstanbul", "istanbul", [.caseInsensitive, .diacriticInsensitive]))
    }

    @Test("Orders strings as localizedStandardCompare")
    func standardCompare() {
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
            #expect(QueryStringComparison.standardCompare(a, b) == expected, "\(a) vs \(b)")
            #expect(SortKey.Comparator.localizedStandardCompare.compare(.string(a), .string(b)) == expected)
        }
    }
}
