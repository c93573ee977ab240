import Foundation
import Testing

import Quire

/// NSExpression's functions (``QueryExpression/Function``): parsed from format strings, printed back, and
/// evaluated in memory with Core Data's semantics.
@Suite("Expression functions")
struct ExpressionFunctionTests {
    /// Evaluates an expression against a dictionary.
    static func value(_ format: String, _ object: [String: Any] = [:]) throws -> PredicateValue {
        try QueryExpression(format: format).value(with: PredicateDictionary(object))
    }

    static func scalar(_ format: String, _ object: [String: Any] = [:]) throws -> AttributeValue? {
        if case .value(let value) = try value(format, object) { return value }
        return nil
    }

    @Test("Every function of NSExpression's list gives Core Data's value", arguments: [
        // Arithmetic: integers stay integers (7 / 2 is 3), doubles otherwise; nil and division by zero give nil.
        ("1 + 2", AttributeValue.integer(3)), ("7 - 10", .integer(-3)), ("6 * 7", .integer(42)), ("7 / 2", .integer(3)),
        ("-7 / 2", .integer(-3)), ("7.0 / 2", .double(3.5)), ("7 / 0", .null), ("7.5 / 0", .null), ("1 + nil", .null),
        ("1 + 2 * 3", .integer(7)), ("(1 + 2) * 3", .integer(9)), ("2 ** 3 ** 2", .double(512)), ("10 - 2 - 3", .integer(5)),
        ("4 + 5 - 2**3", .double(1)), ("-(2 + 3)", .integer(-5)), ("9223372036854775807 + 1", .double(9_223_372_036_854_775_808)),
        ("add:to:(1, 2)", .integer(3)), ("from:subtract:(3, 1)", .integer(2)), ("multiply:by:(2, 6)", .integer(12)),
        ("divide:by:(8, 2)", .integer(4)), ("modulus:by:(7, 2)", .integer(1)), ("modulus:by:(-7, 2)", .integer(-1)),
        ("modulus:by:(7.5, 2)", .double(1.5)), ("modulus:by:(7, 0)", .null), ("TRUE + 1", .integer(2)),
        // Math.
        ("sqrt:(9)", .double(3)), ("sqrt:(-1)", .null), ("log:(1000)", .double(3)), ("ln:(1)", .double(0)),
        ("raise:toPower:(4, 3)", .double(64)), ("exp:(0)", .double(1)), ("ceiling:(3.3)", .double(4)),
        ("floor:(3.7)", .double(3)), ("trunc:(-3.7)", .double(-3)), ("abs:(-7)", .integer(7)), ("abs:(-2.5)", .double(2.5)),
        ("abs:(-9223372036854775808)", .double(9_223_372_036_854_775_808)),
        // Bits.
        ("bitwiseAnd:with:(4, 12)", .integer(4)), ("bitwiseOr:with:(4, 3)", .integer(7)), ("bitwiseXor:with:(4, 6)", .integer(2)),
        ("leftshift:by:(2, 3)", .integer(16)), ("rightshift:by:(4096, 1)", .integer(2048)), ("onesComplement:(8)", .integer(-9)),
        // Collections.
        ("sum:({1, 2, 3})", .integer(6)), ("sum({1, 2.5})", .double(3.5)), ("count:({1, 2, nil})", .integer(3)),
        ("min:({3, 1, 2})", .integer(1)), ("max:({3, 1, 2})", .integer(3)), ("average:({1, 2, 3, 4})", .double(2.5)),
        ("median:({3, 1, 2})", .integer(2)), ("median:({4, 1, 3, 2})", .double(2.5)), ("median:({})", .null),
        ("stddev:({1, 2, 3})", .double((2.0 / 3).squareRoot())), ("stddev:({})", .null),
        // Strings: Unicode's full case mappings, lengths in UTF-16 units.
        ("lowercase:('ÉCOLE')", .string("école")), ("uppercase:('straße')", .string("STRASSE")), ("lowercase(nil)", .null),
        ("length:('🙂a')", .integer(3)), ("noindex:(5)", .integer(5)), ("castObject:toType:('41', 'NSNumber')", .integer(41)),
    ])
    func functionValues(_ format: String, _ expected: AttributeValue) throws {
        let value = try #require(try Self.scalar(format), "\(format) is not a single value")
        if case .double(let x) = value, case .double(let y) = expected {
            #expect(abs(x - y) < 1e-12, "\(format): \(value)")
        } else {
            #expect(value == expected, "\(format): \(value)")
        }
    }

    @Test func modeListsTheMostFrequentValuesInOrder() throws {
        guard case .collection(let modes) = try Self.value("mode:({1, 3, 2, 3, 1})") else {
            Issue.record("mode: is not a collection")
            return
        }
        let values: [AttributeValue] = modes.compactMap { if case .value(let v) = $0 { return v } else { return nil } }
        #expect(values == [AttributeValue.integer(1), .integer(3)])
    }

    @Test func functionsReadKeyPathsAndCollections() throws {
        let object: [String: Any] = ["salary": 9000, "name": "ÅSA", "items": [["price": 2], ["price": 5], ["price": 11]]]
        #expect(try Self.scalar("salary * 12", object) == .integer(108_000))
        #expect(try Self.scalar("lowercase:(name)", object) == .string("åsa"))
        #expect(try Self.scalar("median:(items.price)", object) == .integer(5))
        #expect(try Self.scalar("sum:(items.price) / count:(items)", object) == .integer(6))
        #expect(try QueryPredicate(format: "salary * 12 > 100000 AND lowercase:(name) == 'åsa'").evaluate(with: PredicateDictionary(object)))
        #expect(try QueryPredicate(format: "(salary + 1000) * 12 == 120000").evaluate(with: PredicateDictionary(object)))
    }

    @Test func unionOperatorsCollectTheValues() throws {
        let object: [String: Any] = ["items": [["tag": "a"], ["tag": "b"], ["tag": "a"], ["tag": NSNull()]]]
        func strings(_ format: String) throws -> [String] {
            guard case .collection(let values) = try Self.value(format, object) else { return [] }
            return values.compactMap { if case .value(.string(let s)) = $0 { return s } else { return nil } }
        }
        #expect(try strings("items.@distinctUnionOfObjects.tag") == ["a", "b"])
        #expect(try strings("items.@unionOfObjects.tag") == ["a", "b", "a"])
        #expect(try strings("items.@DISTINCTUNIONOFARRAYS.tag") == ["a", "b"])
        #expect(try Self.scalar("items.@distinctUnionOfSets.tag.@count", object) == .integer(2))
        #expect(try QueryExpression(format: "items.@distinctUnionOfObjects.tag").expressionFormat == "items.@distinctUnionOfObjects.tag")
    }

    @Test func randomAndNowAreFresh() throws {
        let before = Date()
        guard case .date(let now) = try Self.scalar("now()") else {
            Issue.record("now() is not a date")
            return
        }
        #expect(now >= before && now <= Date())
        guard case .double(let random) = try Self.scalar("random()") else {
            Issue.record("random() is not a double")
            return
        }
        #expect(random >= 0 && random < 1)
        for _ in 0..<20 {
            guard case .integer(let n) = try Self.scalar("randomn:(3)") else { return }
            #expect((0..<3).contains(n))
        }
    }

    @Test func functionsThatCannotApplyThrowTypedErrors() {
        for format in [
            "'a' + 1", "abs:('x')", "lowercase:(1)", "sqrt:({1, 2})", "randomn:(0)",
            "distanceToLocation:fromLocation:(1, 2)", "median:({'a', 1})",
        ] {
            #expect(throws: QuireError.self, "\(format)") { _ = try Self.value(format) }
            do {
                _ = try Self.value(format)
            } catch let error as QuireError {
                #expect(error.code == .predicateEvaluation, "\(format)")
            } catch {
                Issue.record("\(format): \(error)")
            }
        }
    }

    @Test func parsesCallsAndOperatorsIntoFunctions() throws {
        #expect(try QueryExpression(format: "salary * 12") == .function(.multiply, [.keyPath("salary"), .constant(.integer(12))]))
        #expect(try QueryExpression(format: "age-1") == .function(.subtract, [.keyPath("age"), .constant(.integer(1))]))
        #expect(try QueryExpression(format: "lowercase(name)") == .function(.lowercase, [.keyPath("name")]))
        #expect(try QueryExpression(format: "random:(10)") == .function(.randomn, [.constant(.integer(10))]))
        #expect(try QueryExpression(format: "now()") == .function(.now, []))
        #expect(try QueryExpression(format: "castObject:toType:(1, 'NSString')") == .constant(.string("1")))
        #expect(try QueryExpression(format: "uppercase:(%K)", "title") == .function(.uppercase, [.keyPath("title")]))
    }

    @Test("Prints functions so that they parse back", arguments: [
        "salary * 12 > 100000", "(a + b) * c == 2", "a - (b - c) == 1", "lowercase:(name) == \"x\"", "now() > born",
        "add:to:(1, 2) == 3", "bitwiseAnd:with:(flags, 4) != 0", "2 ** 3 ** 2 == 512", "-age < -40",
        "SUBQUERY(items, $i, $i.price * 2 > 10).@count > 0", "median:(items.price) == 5", "random() < 1",
    ])
    func printsBack(_ format: String) throws {
        let predicate = try QueryPredicate(format: format)
        #expect(try QueryPredicate(format: predicate.predicateFormat) == predicate, "\(predicate.predicateFormat)")
    }

    @Test func printsArithmeticInfixAndCallsAsCoreData() throws {
        #expect(try QueryPredicate(format: "salary*12>100000").predicateFormat == "salary * 12 > 100000")
        #expect(try QueryPredicate(format: "lowercase(name) == 'x'").predicateFormat == #"lowercase:(name) == "x""#)
        #expect(try QueryPredicate(format: "(a + b) * 2 == 4").predicateFormat == "(a + b) * 2 == 4")
        #expect(try QueryPredicate(format: "now() > born").predicateFormat == "now() > born")
    }

    @Test("Refuses malformed calls with the offset", arguments: [
        ("frobnicate:(1) == 1", "Unknown function 'frobnicate:'"), ("abs:(1, 2) == 1", "takes 1 argument(s), not 2"),
        ("now(1) == 1", "takes 0 argument(s), not 1"), ("abs:(1 == 1", "Expected ',' or ')'"), ("1 + == 2", "Expected an expression"),
        ("FUNCTION(SELF, 'foo') == 1", "calls an Objective-C method"),
    ])
    func refusesMalformedCalls(_ format: String, _ message: String) {
        do {
            _ = try QueryPredicate(format: format)
            Issue.record("\(format) parsed")
        } catch let error as QuireError {
            #expect(error.code == .predicateSyntax)
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func substitutionReachesFunctionArguments() throws {
        let template = try QueryPredicate(format: "salary * $FACTOR > $LIMIT")
        let bound = try template.withSubstitutionVariables(["FACTOR": 12, "LIMIT": 100_000])
        #expect(bound == (try QueryPredicate(format: "salary * 12 > 100000")))
    }
}
