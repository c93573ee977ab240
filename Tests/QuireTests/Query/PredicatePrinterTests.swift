import Foundation
import Testing

import Quire

@Suite("Predicate printer")
struct PredicatePrinterTests {
    @Test("Prints canonical format strings")
    func canonicalForms() throws {
        let cases: [(String, String)] = [
            ("name = 'Ann'", #"name == "Ann""#),
            ("a<>1", "a != 1"),
            ("a =< 1 && b => 2", "a <= 1 AND b >= 2"),
            ("a == 1 || b == 2 && c == 3", "a == 1 OR (b == 2 AND c == 3)"),
            ("(a == 1 || b == 2) && c == 3", "(a == 1 OR b == 2) AND c == 3"),
            ("!(a == 1)", "NOT a == 1"),
            ("not (a == 1 and b == 2)", "NOT (a == 1 AND b == 2)"),
            ("some tags.name like[cd] 'x*'", #"ANY tags.name LIKE[cd] "x*""#),
            ("all a > 1", "ALL a > 1"),
            ("none a > 1", "NONE a > 1"),
            ("name ==[dc] 'x'", #"name ==[cd] "x""#),
            ("a between {1,2}", "a BETWEEN {1, 2}"),
            ("SELF in {1}", "SELF IN {1}"),
            ("SELF.name == nil", "name == nil"),
            ("a == NULL", "a == nil"),
            ("a == yes", "a == TRUE"),
            ("a == 0x10", "a == 16"),
            ("a == 1e3", "a == 1000.0"),
            ("a == 1e300", "a == 1e+300"),
            ("#size == 1", "#size == 1"),
            ("#date == 1", "date == 1"),
            ("%K == 1", "#\"first name\" == 1"),
            ("employees.@count > 2", "employees.@count > 2"),
            ("items.@sum.price > 2", "items.@sum.price > 2"),
            ("@count == 1", "@count == 1"),
            ("subquery(e, $x, $x.s > 1).@count > 0", "SUBQUERY(e, $x, $x.s > 1).@count > 0"),
            ("truepredicate", "TRUEPREDICATE"),
            ("CAST(0, 'NSDate') == d", #"CAST(0.0, "NSDate") == d"#),
            ("CAST(x, 'NSNumber') == 1", #"CAST(x, "NSNumber") == 1"#),
            (#"a == "tab\tquote\"back\\""#, #"a == "tab\tquote\"back\\""#),
            (#"a == 'bell\a'"#, #"a == "bell\u0007""#),
            (#"a == 'é😀'"#, #"a == "é😀""#),
        ]
        for (input, printed) in cases {
            let predicate = try QueryPredicate(format: input, "first name")
            #expect(predicate.predicateFormat == printed, "\(input)")
            #expect(predicate.description == printed)
            #expect(try QueryPredicate(format: printed) == predicate, "\(printed)")
        }
    }

    @Test("Round-trips constants of every kind")
    func constantRoundTrips() throws {
        let values: [AttributeValue] = [
            .null, .integer(0), .integer(.max), .integer(.min), .double(0.1), .double(-0.0),
            .double(.leastNonzeroMagnitude),
            .double(.greatestFiniteMagnitude), .double(.infinity), .double(-.infinity), .float(0.1), .float(3),
            .decimal(Decimal(string: "-123.456")!), .decimal(0), .string(""),
            .string("multi\nline \"q\" \\ \u{0} \u{7F}"),
            .string("\u{200B}zero width"), .string("😀 é e\u{301}"), .boolean(true), .boolean(false),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -1e9 + 0.123)),
            .date(Date(timeIntervalSince1970: 1_700_000_000.25)), .data(Data()),
            .data(Data((0...255).map { UInt8($0) })),
            .uuid(UUID()), .uri(URL(string: "https://example.com/a%20b?q=1#f")!),
            .uri(URL(fileURLWithPath: "/tmp/x y")),
        ]
        for value in values {
            let predicate = QueryPredicate.comparison(QueryComparison(.keyPath("k"), .equalTo, .constant(value)))
            let printed = predicate.predicateFormat
            #expect(try QueryPredicate(format: printed) == predicate, "\(printed)")
        }
    }

    @Test("Round-trips structures built in code")
    func structureRoundTrips() throws {
        let comparison = QueryComparison(
            .keyPath("a.b"), .like, .constant(.string("x")), modifier: .all, options: [.caseInsensitive, .normalized])
        let predicates: [QueryPredicate] = [
            .comparison(comparison),
            .and([.comparison(comparison), .or([.true, .false]), .not(.and([.true, .false]))]),
            .not(.not(.comparison(comparison))),
            .or([.and([.true, .false]), .and([.false, .true])]),
            .comparison(
                QueryComparison(
                    .member(.variable("v"), keyPath: "x.y"), .in, .array([.constant(.integer(1)), .keyPath("z")]))),
            .comparison(
                QueryComparison(
                    .aggregate(
                        .avg, .subquery(collection: .keyPath("a"), variable: "q", predicate: .true), keyPath: "p"),
                    .lessThan, .constant(.double(2)))),
            .comparison(QueryComparison(.keyPath("and.or.select"), .equalTo, .keyPath("weird key.@count.$x"))),
            .comparison(
                QueryComparison(
                    .cast(.keyPath("a"), type: "NSDate"), .greaterThan, .cast(.constant(.string("zz")), type: "NSDate"))
            ),
            .comparison(QueryComparison(.evaluatedObject, .equalTo, .variable("SELFISH"))),
        ]
        for predicate in predicates {
            let printed = predicate.predicateFormat
            #expect(try QueryPredicate(format: printed) == predicate, "\(printed)")
        }
    }

    @Test("Prints degenerate compounds as their equivalents")
    func degenerateCompounds() {
        #expect(QueryPredicate.and([]).predicateFormat == "TRUEPREDICATE")
        #expect(QueryPredicate.or([]).predicateFormat == "FALSEPREDICATE")
        #expect(QueryPredicate.and([.false]).predicateFormat == "FALSEPREDICATE")
        #expect(QueryPredicate.conjunction([]) == .true)
        #expect(QueryPredicate.conjunction([.false]) == .false)
        #expect(QueryPredicate.conjunction([.false, .true]) == .and([.false, .true]))
        #expect(QueryPredicate.disjunction([]) == .false)
    }

    @Test("Prints expressions")
    func expressions() throws {
        #expect(try QueryExpression(format: "a.@max.b").expressionFormat == "a.@max.b")
        #expect(QueryExpression.array([]).description == "{}")
        #expect(
            QueryExpression.constant(.date(Date(timeIntervalSinceReferenceDate: 1.5))).description
                == #"CAST(1.5, "NSDate")"#)
        #expect(
            QueryExpression.constant(.uuid(PredicateTestGraph.annUUID)).description
                == #"CAST("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "NSUUID")"#)
        #expect(QueryExpression.constant(.data(Data([1, 2, 3]))).description == #"CAST("AQID", "NSData")"#)
        #expect(
            QueryExpression.constant(.decimal(Decimal(string: "1.5")!)).description
                == #"CAST("1.5", "NSDecimalNumber")"#)
        #expect(QueryExpression.constant(.float(0.5)).description == #"CAST("0.5", "Float")"#)
        #expect(QueryExpression.constant(.double(.infinity)).description == #"CAST("inf", "NSNumber")"#)
    }
}
