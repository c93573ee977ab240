import Foundation
import Testing

import Quire

private func comparison(
    _ left: QueryExpression,
    _ op: QueryComparison.Operator,
    _ right: QueryExpression,
    modifier: QueryComparison.Modifier = .direct,
    options: QueryComparison.Options = []
) -> QueryPredicate {
    .comparison(QueryComparison(left, op, right, modifier: modifier, options: options))
}

private func key(_ path: String) -> QueryExpression { .keyPath(path) }
private func int(_ value: Int64) -> QueryExpression { .constant(.integer(value)) }
private func string(_ value: String) -> QueryExpression { .constant(.string(value)) }

@Suite("Predicate parser")
struct PredicateParserTests {
    @Test("Parses every comparison operator and its spellings")
    func operators() throws {
        let spellings: [(String, QueryComparison.Operator)] = [
            ("=", .equalTo), ("==", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo),
            ("<", .lessThan), ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo),
            (">", .greaterThan), (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo),
            ("MATCHES", .matches), ("LIKE", .like), ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith),
            ("IN", .in), ("CONTAINS", .contains), ("contains", .contains), ("BeginsWith", .beginsWith),
        ]
        for (spelling, op) in spellings {
            #expect(try QueryPredicate(format: "a \(spelling) 1") == comparison(key("a"), op, int(1)), "\(spelling)")
        }
        #expect(
            try QueryPredicate(format: "a BETWEEN {1, 2}")
                == comparison(key("a"), .between, .array([int(1), int(2)]))
        )
    }

    /// `key <operator> %@`, which apps parse once per record, is made without the parser from the format's tokens
    /// read once: it must be exactly what the parser makes (the parenthesized format takes the parser).
    @Test("A key compared with one argument parses as the parser reads it")
    func keyComparedWithOneArgument() throws {
        let spellings = [
            "=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "MATCHES", "LIKE", "BEGINSWITH", "ENDSWITH",
            "IN", "CONTAINS", "contains", "like",
        ]
        let arguments: [Any] = [
            "r-1", 42, Int64(7), 2.5, true, ["a", "b"], Optional<String>.none as Any, NSNull(), "Ångström",
            Optional("r-2") as Any, Substring("r-3"), NSString(string: "r-4"),
        ]
        for spelling in spellings {
            for argument in arguments {
                let fast = try QueryPredicate(format: "remoteID \(spelling) %@", argument)
                let parsed = try QueryPredicate(format: "(remoteID \(spelling) %@)", argument)
                #expect(fast == parsed, "\(spelling) \(argument)")
                #expect(fast.description == parsed.description)
            }
        }
        #expect(try QueryPredicate(format: "remoteID == %@", "r-1") == comparison(key("remoteID"), .equalTo, string("r-1")))
        // Extra arguments are ignored, as the parser ignores them.
        #expect(try QueryPredicate(format: "a == %@", "x", "y") == comparison(key("a"), .equalTo, string("x")))
        // Formats of other shapes still take the parser.
        #expect(try QueryPredicate(format: "a == %@ AND b == %@", 1, 2) == .and([
            comparison(key("a"), .equalTo, int(1)), comparison(key("b"), .equalTo, int(2)),
        ]))
        #expect(try QueryPredicate(format: "a ==[c] %@", "x") == comparison(key("a"), .equalTo, string("x"), options: .caseInsensitive))
        #expect(try QueryPredicate(format: "SELF == %@", 1) == comparison(.evaluatedObject, .equalTo, int(1)))
        #expect(throws: QuireError.self) { try QueryPredicate(format: "a BETWEEN %@", [1]) }
        // Comparisons made from the same format share its split key path.
        let first = try QueryPredicate(format: "remoteID == %@", "r-1")
        let second = try QueryPredicate(format: "remoteID == %@", "r-2")
        guard case .comparison(let one) = first, case .comparison(let two) = second else {
            Issue.record("not comparisons")
            return
        }
        #expect(one.leftKeyPath === two.leftKeyPath)
        #expect(one.leftKeyPath?.keys == ["remoteID"])
    }

    /// A format asked for before is known by its representation (the same string): one made at run time and then
    /// changed in place must parse as its new text, and an equal string made apart as the same format.
    @Test("A format changed after it was parsed parses as its new text")
    func formatChangedInPlace() throws {
        let long = String(repeating: "k", count: 24)
        var format = long + " == %@"
        #expect(try QueryPredicate(format: format, "x") == comparison(key(long), .equalTo, string("x")))
        format.removeFirst()
        format.insert("j", at: format.startIndex)
        #expect(try QueryPredicate(format: format, "x") == comparison(key("j" + String(long.dropFirst())), .equalTo, string("x")))
        format.append(" AND b == 1")
        #expect(try QueryPredicate(format: format, "x") == .and([
            comparison(key("j" + String(long.dropFirst())), .equalTo, string("x")), comparison(key("b"), .equalTo, int(1)),
        ]))
        var small = "a == %@"
        #expect(try QueryPredicate(format: small, 1) == comparison(key("a"), .equalTo, int(1)))
        small.removeFirst()
        small.insert("c", at: small.startIndex)
        #expect(try QueryPredicate(format: small, 1) == comparison(key("c"), .equalTo, int(1)))
        let apart = String(decoding: Array("c == %@".utf8), as: UTF8.self)
        #expect(try QueryPredicate(format: apart, 2) == comparison(key("c"), .equalTo, int(2)))
        // A format that does not parse still throws, every time.
        for _ in 0..<2 { #expect(throws: QuireError.self) { try QueryPredicate(format: "c == == %@", 1) } }
    }

    @Test("Parses comparison options")
    func options() throws {
        let cases: [(String, QueryComparison.Options)] = [
            ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive),
            ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[n]", .normalized), ("[l]", .localeSensitive),
            ("[dc]", [.caseInsensitive, .diacriticInsensitive]), ("[CD]", [.caseInsensitive, .diacriticInsensitive]),
            ("[cdn]", [.caseInsensitive, .diacriticInsensitive, .normalized]),
        ]
        for (written, options) in cases {
            #expect(
                try QueryPredicate(format: "name ==\(written) 'x'")
                    == comparison(key("name"), .equalTo, string("x"), options: options),
                "\(written)"
            )
        }
        #expect(
            try QueryPredicate(format: "name LIKE [c] 'x'")
                == comparison(key("name"), .like, string("x"), options: .caseInsensitive)
        )
    }

    @Test("Parses compound predicates with precedence NOT > AND > OR")
    func compounds() throws {
        let a = comparison(key("a"), .equalTo, int(1))
        let b = comparison(key("b"), .equalTo, int(2))
        let c = comparison(key("c"), .equalTo, int(3))
        #expect(try QueryPredicate(format: "a = 1 AND b = 2") == .and([a, b]))
        #expect(try QueryPredicate(format: "a = 1 && b = 2 && c = 3") == .and([a, b, c]))
        #expect(try QueryPredicate(format: "a = 1 OR b = 2 || c = 3") == .or([a, b, c]))
        #expect(try QueryPredicate(format: "a = 1 OR b = 2 AND c = 3") == .or([a, .and([b, c])]))
        #expect(try QueryPredicate(format: "(a = 1 OR b = 2) AND c = 3") == .and([.or([a, b]), c]))
        #expect(try QueryPredicate(format: "(a = 1 AND b = 2) AND c = 3") == .and([.and([a, b]), c]))
        #expect(try QueryPredicate(format: "NOT a = 1 AND b = 2") == .and([.not(a), b]))
        #expect(try QueryPredicate(format: "!a = 1") == .not(a))
        #expect(try QueryPredicate(format: "NOT NOT a = 1") == .not(.not(a)))
        #expect(try QueryPredicate(format: "NOT (a = 1 OR b = 2)") == .not(.or([a, b])))
        #expect(try QueryPredicate(format: "((a = 1))") == a)
        #expect(try QueryPredicate(format: "TRUEPREDICATE") == .true)
        #expect(try QueryPredicate(format: "falsepredicate") == .false)
        #expect(try QueryPredicate(format: "a = 1 and b = 2 or not c = 3") == .or([.and([a, b]), .not(c)]))
    }

    @Test("Parses modifiers")
    func modifiers() throws {
        let right = string("x")
        #expect(
            try QueryPredicate(format: "ANY tags.name == 'x'")
                == comparison(key("tags.name"), .equalTo, right, modifier: .any))
        #expect(
            try QueryPredicate(format: "SOME tags.name == 'x'")
                == comparison(key("tags.name"), .equalTo, right, modifier: .any))
        #expect(
            try QueryPredicate(format: "ALL tags.name == 'x'")
                == comparison(key("tags.name"), .equalTo, right, modifier: .all))
        #expect(
            try QueryPredicate(format: "NONE tags.name == 'x'")
                == comparison(key("tags.name"), .equalTo, right, modifier: .none))
        #expect(
            try QueryPredicate(format: "any tags.name == 'x'")
                == comparison(key("tags.name"), .equalTo, right, modifier: .any))
    }

    @Test("Parses key paths, SELF, variables and escaped keys")
    func keyPaths() throws {
        #expect(try QueryExpression(format: "mainAuthor.firstName") == key("mainAuthor.firstName"))
        #expect(try QueryExpression(format: "SELF") == .evaluatedObject)
        #expect(try QueryExpression(format: "self") == .evaluatedObject)
        #expect(try QueryExpression(format: "SELF.name") == key("name"))
        #expect(try QueryExpression(format: "$x") == .variable("x"))
        #expect(try QueryExpression(format: "$x.author.name") == .member(.variable("x"), keyPath: "author.name"))
        #expect(try QueryExpression(format: "#date") == key("date"))
        #expect(try QueryExpression(format: "#size") == key("size"))
        #expect(try QueryExpression(format: "#SELF.name") == key("SELF.name"))
        #expect(try QueryExpression(format: "a.#in") == key("a.in"))
        #expect(try QueryExpression(format: "a.first") == key("a.first"))
        #expect(try QueryExpression(format: #"#"first name".x"#) == key("first name.x"))
        #expect(try QueryExpression(format: "_private1") == key("_private1"))
        #expect(try QueryExpression(format: "名前") == key("名前"))
        #expect(try QueryExpression(format: "caf\u{65}\u{301}") == key("caf\u{65}\u{301}"))
        #expect(try QueryExpression(format: "ſelf") == key("ſelf"))
    }

    @Test("Parses collection operators")
    func aggregates() throws {
        #expect(try QueryExpression(format: "employees.@count") == .aggregate(.count, key("employees"), keyPath: nil))
        #expect(try QueryExpression(format: "items.@sum.price") == .aggregate(.sum, key("items"), keyPath: "price"))
        #expect(
            try QueryExpression(format: "a.items.@avg.b.price") == .aggregate(.avg, key("a.items"), keyPath: "b.price"))
        #expect(try QueryExpression(format: "items.@min.price") == .aggregate(.min, key("items"), keyPath: "price"))
        #expect(try QueryExpression(format: "items.@MAX.price") == .aggregate(.max, key("items"), keyPath: "price"))
        #expect(try QueryExpression(format: "@count") == .aggregate(.count, .evaluatedObject, keyPath: nil))
        #expect(try QueryExpression(format: "SELF.@count") == .aggregate(.count, .evaluatedObject, keyPath: nil))
        #expect(
            try QueryExpression(format: "$x.items.@count")
                == .aggregate(.count, .member(.variable("x"), keyPath: "items"), keyPath: nil))
        #expect(
            try QueryExpression(format: "{1, 2}.@count") == .aggregate(.count, .array([int(1), int(2)]), keyPath: nil))
        #expect(
            try QueryPredicate(format: "employees.@count > 2")
                == comparison(.aggregate(.count, key("employees"), keyPath: nil), .greaterThan, int(2))
        )
    }

    @Test("Parses subqueries")
    func subqueries() throws {
        let expected = QueryExpression.aggregate(
            .count,
            .subquery(
                collection: key("employees"),
                variable: "e",
                predicate: .and([
                    comparison(.member(.variable("e"), keyPath: "salary"), .greaterThan, int(100)),
                    comparison(key("name"), .beginsWith, string("A")),
                ])
            ),
            keyPath: nil
        )
        #expect(
            try QueryExpression(format: "SUBQUERY(employees, $e, $e.salary > 100 AND name BEGINSWITH 'A').@count")
                == expected)
        let nested = try QueryExpression(format: "SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0)")
        guard case .subquery(let collection, "x", .comparison(let inner)) = nested else {
            Issue.record("unexpected \(nested)")
            return
        }
        #expect(collection == key("a"))
        #expect(inner.right == int(0))
    }

    @Test("Parses literals")
    func literals() throws {
        let cases: [(String, QueryExpression)] = [
            ("'single'", string("single")),
            (#""double""#, string("double")),
            (#""it's""#, string("it's")),
            (#"'say \"hi\"'"#, string("say \"hi\"")),
            (#"'a\'b'"#, string("a'b")),
            (#"'tab\tnew\nline\\'"#, string("tab\tnew\nline\\")),
            (#"'\u00e9\x41\101'"#, string("éAA")),
            (#"'\ud83d\ude00'"#, string("😀")),
            ("''", string("")),
            ("42", int(42)),
            ("-42", int(-42)),
            ("0x1F", int(31)),
            ("-0x10", int(-16)),
            ("0o17", int(15)),
            ("0b101", int(5)),
            ("9223372036854775807", int(.max)),
            ("-9223372036854775808", int(.min)),
            ("9223372036854775808", .constant(.double(9_223_372_036_854_775_808))),
            ("3.25", .constant(.double(3.25))),
            ("-0.5", .constant(.double(-0.5))),
            ("1e3", .constant(.double(1000))),
            ("2.5E-2", .constant(.double(0.025))),
            ("TRUE", .constant(.boolean(true))),
            ("yes", .constant(.boolean(true))),
            ("FALSE", .constant(.boolean(false))),
            ("No", .constant(.boolean(false))),
            ("NIL", .constant(.null)),
            ("null", .constant(.null)),
            ("{}", .array([])),
            ("{1, 'a', {2}}", .array([int(1), string("a"), .array([int(2)])])),
        ]
        for (format, expected) in cases {
            #expect(try QueryExpression(format: format) == expected, "\(format)")
        }
    }

    @Test("Folds casts of constants and keeps the others")
    func casts() throws {
        #expect(
            try QueryExpression(format: "CAST(0, 'NSDate')")
                == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(
            try QueryExpression(format: "CAST('123.0', 'NSDate')")
                == .constant(.date(Date(timeIntervalSinceReferenceDate: 123))))
        #expect(try QueryExpression(format: #"CAST("12", "NSNumber")"#) == int(12))
        #expect(try QueryExpression(format: #"CAST("1.5", "NSNumber")"#) == .constant(.double(1.5)))
        #expect(try QueryExpression(format: #"CAST(12, "NSString")"#) == string("12"))
        #expect(
            try QueryExpression(format: #"CAST("1.25", "NSDecimalNumber")"#)
                == .constant(.decimal(Decimal(string: "1.25")!)))
        #expect(try QueryExpression(format: #"CAST("AQID", "NSData")"#) == .constant(.data(Data([1, 2, 3]))))
        #expect(try QueryExpression(format: #"CAST("0.5", "Float")"#) == .constant(.float(0.5)))
        #expect(try QueryExpression(format: #"CAST(nil, "NSDate")"#) == .constant(.null))
        #expect(try QueryExpression(format: #"CAST(x, "NSNumber")"#) == .cast(key("x"), type: "NSNumber"))
        #expect(try QueryExpression(format: #"CAST("abc", "NSNumber")"#) == .cast(string("abc"), type: "NSNumber"))
        #expect(try QueryExpression(format: #"CAST("abc", "NSWidget")"#) == .cast(string("abc"), type: "NSWidget"))
    }

    @Test("Substitutes format arguments as constants")
    func formatArguments() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        let uuid = UUID()
        let cases: [(String, Any, QueryExpression)] = [
            ("%@", "text", string("text")),
            ("%@", 7, int(7)),
            ("%@", Int8(-3), int(-3)),
            ("%@", UInt64(5), int(5)),
            ("%@", 2.5, .constant(.double(2.5))),
            ("%@", Float(0.25), .constant(.float(0.25))),
            ("%@", true, .constant(.boolean(true))),
            ("%@", date, .constant(.date(date))),
            ("%@", Data([9]), .constant(.data(Data([9])))),
            ("%@", uuid, .constant(.uuid(uuid))),
            ("%@", Decimal(3), .constant(.decimal(3))),
            ("%@", AttributeValue.string("v"), string("v")),
            ("%@", Optional<Any>.none as Any, .constant(.null)),
            ("%@", Optional<Int>.some(4) as Any, int(4)),
            // Strings and arrays of strings take a shorter path; optional ones still unwrap, nested or not.
            ("%@", Optional<String>.some("x") as Any, string("x")),
            ("%@", Optional<Optional<String>>.some("y") as Any, string("y")),
            ("%@", Optional<String>.none as Any, .constant(.null)),
            ("%@", ["b", "a"], .array([string("b"), string("a")])),
            ("%@", Optional<[String]>.some(["c"]) as Any, .array([string("c")])),
            ("%@", "text" as Substring, string("text")),
            ("%@", NSString(string: "bridged"), string("bridged")),
            ("%@", Int64(-9), int(-9)),
            ("%@", NSNull(), .constant(.null)),
            ("%@", [1, 2], .array([int(1), int(2)])),
            ("%@", Set(["b", "a"]), .array([string("a"), string("b")])),
            ("%@", [[1], [2]], .array([.array([int(1)]), .array([int(2)])])),
            ("%@", QueryValue.array([.attribute(.integer(1))]), .array([int(1)])),
            ("%K", "a.b", key("a.b")),
            ("%K", "a.@count", .aggregate(.count, key("a"), keyPath: nil)),
            ("%K", "a.@sum.b", .aggregate(.sum, key("a"), keyPath: "b")),
            ("%K", "size", key("size")),
            ("%K", "first name", key("first name")),
            ("%d", 5, int(5)),
            ("%i", true, int(1)),
            ("%ld", 5.0, int(5)),
            ("%lld", Int64.min, int(.min)),
            ("%u", UInt32(9), int(9)),
            ("%f", 1, .constant(.double(1))),
            ("%lf", Float(0.5), .constant(.double(0.5))),
            ("%s", "s", string("s")),
        ]
        for (format, argument, expected) in cases {
            #expect(try QueryExpression(format: format, argument) == expected, "\(format) \(argument)")
        }
        #expect(try QueryExpression(format: "'%@'") == string("%@"))
        #expect(
            try QueryPredicate(format: "%K == %@ AND %K > %d", "name", "x", "age", 3)
                == .and([
                    comparison(key("name"), .equalTo, string("x")),
                    comparison(key("age"), .greaterThan, int(3)),
                ])
        )
    }

    @Test("Skips whitespace of every kind")
    func whitespace() throws {
        #expect(try QueryPredicate(format: "\n\ta\u{00A0}==\r\n1 ") == comparison(key("a"), .equalTo, int(1)))
        #expect(
            try QueryPredicate(format: "a==1&&b!=2")
                == .and([comparison(key("a"), .equalTo, int(1)), comparison(key("b"), .notEqualTo, int(2))]))
    }

    @Test("Accepts nesting up to the maximum depth")
    func deepNesting() throws {
        let depth = 250
        let format = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try QueryPredicate(format: format) == comparison(key("a"), .equalTo, int(1)))
        let nots = String(repeating: "NOT ", count: 250) + "a == 1"
        let notPredicate = try QueryPredicate(format: nots)
        #expect(notPredicate.predicateFormat == nots)
        #expect(try notPredicate.evaluate(with: ["a": 1] as [String: Any]))
        #expect(Set([notPredicate]).contains(notPredicate))
        let arrays = "a IN " + String(repeating: "{", count: 250) + String(repeating: "}", count: 250)
        let arrayPredicate = try QueryPredicate(format: arrays)
        #expect(try QueryPredicate(format: arrayPredicate.predicateFormat) == arrayPredicate)
        #expect(try !arrayPredicate.evaluate(with: ["a": 1] as [String: Any]))
        let subqueries =
            String(repeating: "SUBQUERY(a, $x, ", count: 120) + "TRUEPREDICATE"
            + String(repeating: ").@count > 0", count: 120)
        let subqueryPredicate = try QueryPredicate(format: subqueries)
        #expect(try QueryPredicate(format: subqueryPredicate.predicateFormat) == subqueryPredicate)
        let chain = (0..<5000).map { "a == \($0)" }.joined(separator: " OR ")
        guard case .or(let operands) = try QueryPredicate(format: chain) else {
            Issue.record("expected an OR")
            return
        }
        #expect(operands.count == 5000)
    }
}
