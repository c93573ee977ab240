import Foundation
import Testing

import Quire

/// A malformed format string, the offset the error names, and the message.
struct PredicateSyntaxErrorCase: Sendable, CustomTestStringConvertible {
    let format: String
    let offset: Int
    let message: String

    init(_ format: String, _ offset: Int, _ message: String) {
        self.format = format
        self.offset = offset
        self.message = message
    }

    var testDescription: String { format }
}

let predicateSyntaxErrorCases: [PredicateSyntaxErrorCase] = [
    .init("name 'x'", 5, #"Expected a comparison operator after 'name' at offset 5 in "name 'x'"."#),
    .init("", 0, #"Expected a predicate at offset 0 in ""."#),
    .init("   ", 3, #"Expected a predicate at offset 3 in "   "."#),
    .init("name ==", 7, #"Expected an expression after '==' at offset 7 in "name =="."#),
    .init("a == 1 AND", 10, #"Expected a predicate after 'AND' at offset 10 in "a == 1 AND"."#),
    .init(
        "a == 1 b == 2", 7, #"Expected AND, OR or the end of the predicate after '1' at offset 7 in "a == 1 b == 2"."#),
    .init("(a == 1", 7, #"Expected ')' after '1' at offset 7 in "(a == 1"."#),
    .init("a == 1)", 6, #"Expected AND, OR or the end of the predicate after '1' at offset 6 in "a == 1)"."#),
    .init("a == 'abc", 5, #"Unterminated string starting at offset 5 in "a == 'abc"."#),
    .init("a == \"abc'", 5, #"Unterminated string starting at offset 5 in "a == "abc'"."#),
    .init(#"a == 'x\q'"#, 7, #"Invalid escape sequence '\q' at offset 7 in "a == 'x\q'"."#),
    .init(#"a == '\u12'"#, 6, #"Invalid escape sequence '\u12' at offset 6 in "a == '\u12'"."#),
    .init(#"a == '\ud800'"#, 6, #"Unpaired surrogate in escape sequence '\ud800' at offset 6 in "a == '\ud800'"."#),
    .init("a ~ 1", 2, #"Unexpected character '~' at offset 2 in "a ~ 1"."#),
    .init("a & b", 2, #"Unexpected character '&' at offset 2 in "a & b"."#),
    .init("a == 12abc", 5, #"Malformed number '12abc' at offset 5 in "a == 12abc"."#),
    .init("a == 0x", 5, #"Malformed number '0x' at offset 5 in "a == 0x"."#),
    .init("a == 0b102", 5, #"Malformed number '0b102' at offset 5 in "a == 0b102"."#),
    .init("a == 1e", 6, #"Malformed exponent in number '1e' at offset 6 in "a == 1e"."#),
    .init(
        "a == 0xFFFFFFFFFFFFFFFFF", 5,
        #"Malformed number '0xFFFFFFFFFFFFFFFFF' at offset 5 in "a == 0xFFFFFFFFFFFFFFFFF"."#),
    .init(
        "a == 0x8000000000000000", 5,
        #"Number '0x8000000000000000' is too large at offset 5 in "a == 0x8000000000000000"."#),
    .init("a == %y", 5, #"Unknown format specifier '%y' at offset 5 in "a == %y"."#),
    .init("a == %@", 5, #"Missing format argument for '%@' at offset 5 in "a == %@"."#),
    .init("%K == 1", 0, #"Missing format argument for '%K' at offset 0 in "%K == 1"."#),
    .init("a == $", 5, #"Expected a variable name after '$' at offset 5 in "a == $"."#),
    .init("a.@ == 1", 2, #"Expected a collection operator such as @count after '@' at offset 2 in "a.@ == 1"."#),
    .init(
        "a.@foo == 1", 2,
        "Unknown collection operator '@foo'; expected @count, @sum, @avg, @min or @max"
            + #" at offset 2 in "a.@foo == 1"."#),
    .init("a. == 1", 3, #"Expected a key or a collection operator such as @count after '.' at offset 3 in "a. == 1"."#),
    .init("# == 1", 0, ##"Expected a key name after '#' at offset 0 in "# == 1"."##),
    .init("#'' == 1", 0, ##"Expected a non-empty key name after '#' at offset 0 in "#'' == 1"."##),
    .init("size == 1", 0, #"'size' is a reserved word; write #size to use it as a key at offset 0 in "size == 1"."#),
    .init("a == in", 5, #"'in' is a reserved word; write #in to use it as a key at offset 5 in "a == in"."#),
    .init("ANY == 1", 4, #"Expected an expression after 'ANY' at offset 4 in "ANY == 1"."#),
    .init("a ==[x] 1", 5, #"Unknown comparison option 'x'; expected c, d, n or l at offset 5 in "a ==[x] 1"."#),
    .init("a ==[c 1", 7, #"Expected ']' after 'c' at offset 7 in "a ==[c 1"."#),
    .init("a ==[] 1", 5, #"Expected comparison options such as c, d or cd after '[' at offset 5 in "a ==[] 1"."#),
    .init("a IN {1, 2", 10, #"Expected ',' or '}' after '2' at offset 10 in "a IN {1, 2"."#),
    .init("a IN {1,}", 8, #"Expected an expression after ',' at offset 8 in "a IN {1,}"."#),
    .init(
        "a BETWEEN {1}", 10, #"BETWEEN needs an array of two values such as {1, 10} at offset 10 in "a BETWEEN {1}"."#),
    .init(
        "SUBQUERY(a, x, TRUEPREDICATE).@count > 0", 12,
        #"Expected a variable such as $x after ',' at offset 12 in "SUBQUERY(a, x, TRUEPREDICATE).@count > 0"."#),
    .init("SUBQUERY(a, $x).@count > 0", 14, #"Expected ',' after '$x' at offset 14 in "SUBQUERY(a, $x).@count > 0"."#),
    .init("SUBQUERY(a, $x, ) > 0", 16, #"Expected a predicate after ',' at offset 16 in "SUBQUERY(a, $x, ) > 0"."#),
    .init("SUBQUERY a", 9, #"Expected '(' after 'SUBQUERY' at offset 9 in "SUBQUERY a"."#),
    .init("CAST(1, 2) == a", 8, #"Expected a type name such as "NSDate" in CAST at offset 8 in "CAST(1, 2) == a"."#),
    .init("CAST(1) == a", 6, #"Expected ',' after '1' at offset 6 in "CAST(1) == a"."#),
    .init("a == 1 OR", 9, #"Expected a predicate after 'OR' at offset 9 in "a == 1 OR"."#),
    .init("NOT", 3, #"Expected a predicate after 'NOT' at offset 3 in "NOT"."#),
    .init("()", 1, #"Expected a predicate after '(' at offset 1 in "()"."#),
    .init("é ~", 2, #"Unexpected character '~' at offset 2 in "é ~"."#),
]

@Suite("Predicate syntax errors")
struct PredicateSyntaxErrorTests {
    @Test("Names the offset and what was expected", arguments: predicateSyntaxErrorCases)
    func reportsPosition(_ testCase: PredicateSyntaxErrorCase) {
        let error = #expect(throws: QuireError.self) {
            try QueryPredicate(format: testCase.format)
        }
        #expect(error?.code == .predicateSyntax)
        #expect(error?.context.position == testCase.offset)
        #expect(error?.message == testCase.message)
    }

    @Test("Rejects format arguments of the wrong kind")
    func wrongArguments() {
        struct Opaque {}
        let cases: [(String, Any, String)] = [
            (
                "a == %@", Opaque(),
                #"Format argument 1 of type 'Opaque' for '%@' is not a supported value at offset 5 in "a == %@"."#
            ),
            (
                "%K == 1", 5,
                #"Format argument 1 of type 'Int' for '%K' is not a key path string at offset 0 in "%K == 1"."#
            ),
            ("%K == 1", "a..b", #"The key path 'a..b' for '%K' has an empty key at offset 0 in "%K == 1"."#),
            (
                "%K == 1", "a.@bad",
                #"Unknown collection operator '@bad' in the key path 'a.@bad' at offset 0 in "%K == 1"."#
            ),
            (
                "a == %d", "x",
                #"Format argument 1 of type 'String' for '%d' is not an integer at offset 5 in "a == %d"."#
            ),
            (
                "a == %d", 1.5,
                #"Format argument 1 of type 'Double' for '%d' is not an integer at offset 5 in "a == %d"."#
            ),
            ("a == %f", "x", #"Format argument 1 of type 'String' for '%f' is not a number at offset 5 in "a == %f"."#),
            ("a == %s", 1, #"Format argument 1 of type 'Int' for '%s' is not a string at offset 5 in "a == %s"."#),
            (
                "a == %@", [Opaque()],
                "Format argument 1 of type 'Array<Opaque>' for '%@' is not a supported value"
                    + #" at offset 5 in "a == %@"."#
            ),
        ]
        for (format, argument, message) in cases {
            let error = #expect(throws: QuireError.self, "\(format)") {
                try QueryPredicate(format: format, argument)
            }
            #expect(error?.code == .predicateSyntax)
            #expect(error?.message == message)
        }
    }

    @Test("Caps nesting instead of exhausting the stack")
    func nestingCap() {
        let cases = [
            String(repeating: "(", count: 300) + "a == 1" + String(repeating: ")", count: 300),
            String(repeating: "(", count: 100_000),
            String(repeating: "NOT ", count: 10_000) + "a == 1",
            "a IN " + String(repeating: "{", count: 10_000),
            String(repeating: "SUBQUERY(a, $x, ", count: 1_000),
            "a == " + String(repeating: "CAST(", count: 1_000),
        ]
        for format in cases {
            let error = #expect(throws: QuireError.self) { try QueryPredicate(format: format) }
            #expect(error?.message.hasPrefix("Nesting deeper than 256 levels at offset") == true)
        }
    }

    /// Parentheses are read as a predicate first and as an expression when that fails, and subqueries nest
    /// predicates inside expressions: before each reading was remembered, this input (found by the predicate fuzz
    /// target) read the same tokens twice more per level and ran for minutes; the deeper one would not end.
    @Test("Nested parentheses and subqueries that fail are read once, not once per path")
    func backtrackingIsBounded() {
        let fuzzed = "(((((((((((((EQ(SUBQUERY(i/tOemsn, $x,(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((EQ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((EQ(SUBQUERY(i/tOemsn, $x,(((((((((((((((((((((((((((((((((((SUBQUERY(i/tOemsn, $x,(((((((((((((((((((((((((((((((((((((("
        let deeper = String(repeating: "(SUBQUERY(items, $x, ((", count: 60)
        for format in [fuzzed, deeper] {
            let error = #expect(throws: QuireError.self) { try QueryPredicate(format: format) }
            #expect(error?.code == .predicateSyntax)
        }
    }

    @Test("A parenthesis read again as an expression reuses the predicates read inside it")
    func rereadParenthesesGiveTheSamePredicate() throws {
        let pairs = [
            ("(SUBQUERY(items, $x, ($x.a == 1)).@count) > 0", "SUBQUERY(items, $x, $x.a == 1).@count > 0"),
            ("((SUBQUERY(items, $x, ($x.a == %@ OR ($x.b + 1) * 2 > %@)).@count) + 1) * 2 > %@",
             "(SUBQUERY(items, $x, $x.a == %@ OR ($x.b + 1) * 2 > %@).@count + 1) * 2 > %@"),
            ("((a + b) * 2 > c) AND (SUBQUERY(items, $x, ($x.a == 1)).@count > 0)",
             "(a + b) * 2 > c AND SUBQUERY(items, $x, $x.a == 1).@count > 0"),
        ]
        for (format, plain) in pairs {
            let arguments: [Any] = ["one", 2, 3]
            let parsed = try QueryPredicate(format: format, argumentArray: arguments)
            #expect(parsed == (try QueryPredicate(format: plain, argumentArray: arguments)), "\(format)")
        }
    }

    @Test("Shortens long inputs in messages")
    func longInput() {
        let format = "a == 1 " + String(repeating: "x", count: 500)
        let error = #expect(throws: QuireError.self) { try QueryPredicate(format: format) }
        #expect(error?.message.hasSuffix("xxx…\".") == true)
        #expect((error?.message.count ?? 0) < 300)
    }

    @Test("Never traps on arbitrary input")
    func fuzz() {
        let alphabet = Array("aZ_9 .,()[]{}'\"\\$#@%&|!=<>-+*?~xuNOTANDORINSELF0123456789\n\té😀")
        let fragments = [
            "ANY ", "ALL ", "NONE ", "SUBQUERY(", "CAST(", "@count", "@sum.", "%@", "%K", "%d", "$x", "==", "IN ",
            "BETWEEN ", "{", "}", "(", ")", "'", "\"", "\\u", "\\x", "0x", "1e", "-", ".", "#", "[cd]", "TRUEPREDICATE",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var format = ""
            for _ in 0..<Int.random(in: 0..<24, using: &generator) {
                if Bool.random(using: &generator) {
                    format.append(alphabet.randomElement(using: &generator) ?? "a")
                } else {
                    format += fragments.randomElement(using: &generator) ?? ""
                }
            }
            do {
                let predicate = try QueryPredicate(format: format, "k", 1, 2.5, "s")
                let reparsed = try QueryPredicate(format: predicate.predicateFormat)
                #expect(reparsed == predicate, "\(format) printed as \(predicate.predicateFormat)")
                _ = try? predicate.evaluate(with: ["k": 1, "a": [1, 2]] as [String: Any])
            } catch let error as QuireError {
                #expect(error.code == .predicateSyntax, "\(format)")
                #expect(error.context.position != nil)
            } catch {
                Issue.record("unexpected error \(error) for \(format)")
            }
        }
    }
}
