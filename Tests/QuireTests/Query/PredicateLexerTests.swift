// Unit tests of the predicate lexer, which has no public face: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

@Suite("Predicate lexer")
struct PredicateLexerTests {
    private func kinds(_ source: String) throws -> [PredicateToken.Kind] {
        var lexer = PredicateLexer(source)
        return try lexer.tokenize().map(\.kind)
    }

    @Test("Splits operators, keywords and names")
    func tokens() throws {
        #expect(
            try kinds("ANY a.b ==[cd] $x && !c<>%K || d=<%@")
                == [
                    .keyword(.any), .identifier("a"), .symbol(.dot), .identifier("b"), .symbol(.equal),
                    .symbol(.openBracket), .identifier("cd"), .symbol(.closeBracket), .variable("x"),
                    .symbol(.doubleAmpersand), .symbol(.exclamation), .identifier("c"), .symbol(.notEqual),
                    .format(.keyPath), .symbol(.doublePipe), .identifier("d"), .symbol(.lessOrEqual), .format(.object),
                    .end,
                ]
        )
        #expect(
            try kinds("between Between BETWEEN") == [.keyword(.between), .keyword(.between), .keyword(.between), .end])
        #expect(
            try kinds("#in #'two words' @count") == [
                .escapedKey("in"), .escapedKey("two words"), .collectionOperator("count"), .end,
            ])
        #expect(
            try kinds("= == => >= =< <= < > != <>") == [
                .symbol(.equal), .symbol(.equal), .symbol(.greaterOrEqual), .symbol(.greaterOrEqual),
                .symbol(.lessOrEqual), .symbol(.lessOrEqual), .symbol(.less), .symbol(.greater),
                .symbol(.notEqual), .symbol(.notEqual), .end,
            ])
    }

    @Test("Reads format specifiers with length modifiers")
    func formatSpecifiers() throws {
        #expect(
            try kinds("%@ %K %d %i %ld %lld %lu %hd %qd %f %lf %e %g %s %S")
                == [
                    .format(.object), .format(.keyPath), .format(.integer), .format(.integer), .format(.integer),
                    .format(.integer), .format(.integer), .format(.integer), .format(.integer), .format(.double),
                    .format(.double), .format(.double), .format(.double), .format(.string), .format(.string), .end,
                ]
        )
    }

    @Test("Records offsets in Unicode scalars and the text as written")
    func offsets() throws {
        var lexer = PredicateLexer("é  ==  'x'")
        let tokens = try lexer.tokenize()
        #expect(tokens.map(\.offset) == [0, 3, 7, 10])
        #expect(tokens.map(\.text) == ["é", "==", "'x'", ""])
    }

    @Test("Reads numbers")
    func numbers() throws {
        #expect(
            try kinds("1 -1 1.5 -1.5 1e2 1E-2 0x1f 0XFF 0o7 0b11 007")
                == [
                    .integer(1), .integer(-1), .double(1.5), .double(-1.5), .double(100), .double(0.01), .integer(31),
                    .integer(255), .integer(7), .integer(3), .integer(7), .end,
                ])
        #expect(try kinds("1.x") == [.integer(1), .symbol(.dot), .identifier("x"), .end])
    }
}
