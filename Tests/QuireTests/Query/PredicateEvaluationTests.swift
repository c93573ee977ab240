import Foundation
import Testing

import Quire

/// One row of the evaluation table: a format string, the subject it is evaluated against, the expected result.
struct PredicateEvaluationCase: Sendable, CustomTestStringConvertible {
    let format: String
    let subject: String
    let expected: Bool

    init(_ format: String, _ expected: Bool, on subject: String = "ann") {
        self.format = format
        self.subject = subject
        self.expected = expected
    }

    var testDescription: String { "\(subject): \(format) → \(expected)" }
}

/// The evaluation table, against the graph of ``PredicateTestGraph``.
let predicateEvaluationCases: [PredicateEvaluationCase] = [
    // Equality and ordering of strings, numbers across cases, Booleans and nil.
    .init(#"firstName == "Ann""#, true),
    .init(#"firstName = 'Ann'"#, true),
    .init(#"firstName == "ann""#, false),
    .init(#"firstName ==[c] "ann""#, true),
    .init(#"firstName != "Bob""#, true),
    .init(#"firstName <> "Ann""#, false),
    .init("age == 41", true),
    .init("age == 41.0", true),
    .init("age > 40", true),
    .init("age >= 41", true),
    .init("age => 41", true),
    .init("age < 41", false),
    .init("age <= 41", true),
    .init("age =< 40", false),
    .init("rating > 4", true),
    .init("rating == 4.5", true),
    .init("age > rating", true),
    .init("score == 1.5", true),
    .init("balance == 100.25", true),
    .init("balance > 100", true),
    .init("balance < 1e3", true),
    .init("active == TRUE", true),
    .init("active == YES", true),
    .init("active == 1", true),
    .init("active == FALSE", false),
    .init("active == NO", false),
    .init("nickname == nil", true),
    .init("nickname == NULL", true),
    .init("nickname != nil", false),
    .init("firstName == nil", false),
    .init(#"nickname < "z""#, false),
    .init(#"nickname > "a""#, false),
    .init("nickname <= nil", false),
    .init("nil == nil", true),
    .init("age == 0x29", true),
    .init("age == 0o51", true),
    .init("age == 0b101001", true),
    .init("age > -5", true),
    .init("age != nil", true),
    .init(#"age == "41""#, false),
    .init(#"age < "50""#, false),
    .init("age >= 41 AND age <= 41", true),
    // BETWEEN and IN.
    .init("age BETWEEN {40, 42}", true),
    .init("age BETWEEN {41, 41}", true),
    .init("age BETWEEN {42, 50}", false),
    .init("nickname BETWEEN {1, 2}", false),
    .init("age IN {29, 35, 41}", true),
    .init("age IN {1, 2}", false),
    .init("age IN {}", false),
    .init(#"firstName IN {"Ann", "Bob"}"#, true),
    .init(#"firstName IN[c] {"ANN"}"#, true),
    .init(#""nn" IN firstName"#, true),
    .init("2 IN {1, 2, 3}", true),
    .init("{1, 2, 3} CONTAINS 2", true),
    // String operators.
    .init(#"lastName BEGINSWITH "L""#, true),
    .init(#"lastName BEGINSWITH "l""#, false),
    .init(#"lastName BEGINSWITH[c] "l""#, true),
    .init(#"email ENDSWITH "example.com""#, true),
    .init(#"email ENDSWITH ".org""#, false),
    .init(#"firstName ENDSWITH[c] "NN""#, true),
    .init(#"firstName ENDSWITH """#, true),
    .init(#"bio CONTAINS "Swift""#, true),
    .init(#"bio CONTAINS[c] "sql""#, true),
    .init(#"bio CONTAINS "sql""#, false),
    .init(#"bio CONTAINS "\u0053wift""#, true),
    .init(#"email LIKE "*@example.com""#, true),
    .init(#"email LIKE "ann@*""#, true),
    .init(#"email LIKE "a?n@*""#, true),
    .init(#"email LIKE "b*""#, false),
    .init(#"email LIKE[c] "ANN@*""#, true),
    .init(#"firstName LIKE "A*n""#, true),
    .init(#"firstName LIKE "A*x""#, false),
    .init(#"firstName LIKE "*""#, true),
    .init(#"firstName LIKE "???""#, true),
    .init(#"firstName LIKE "??""#, false),
    .init(#"email MATCHES "[a-z]+@example\\.com""#, true),
    .init(#"email MATCHES "ann""#, false),
    .init(#"firstName MATCHES "A.*""#, true),
    .init(#"firstName MATCHES[c] "a.N""#, true),
    .init(#"firstName MATCHES "A|An""#, false),
    .init(#"firstName MATCHES "An|Ann""#, true),
    // To-one key paths, diacritics, nil through a key path.
    .init(#"address.city == "Zürich""#, true),
    .init(#"address.city ==[d] "Zurich""#, true),
    .init(#"address.city ==[cd] "zurich""#, true),
    .init(#"address.city == "Zurich""#, false),
    .init(#"address.zip == "8001""#, true),
    .init(#"address.country IN {"CH", "DE"}"#, true),
    .init("address != nil", true),
    .init("address.city == nil", true, on: "bob"),
    .init("address == nil", true, on: "bob"),
    // Dates, UUIDs, URLs, data, casts.
    .init(#"born < CAST(-500000000, "NSDate")"#, true),
    .init("born > CAST(-700000000, 'NSDate')", true),
    .init(#"born == CAST("-600000000", "NSDate")"#, true),
    .init(#"born BETWEEN {CAST(-700000000, "NSDate"), CAST(-500000000, "NSDate")}"#, true),
    .init(#"born > CAST(-500000000, "NSDate")"#, true, on: "bob"),
    .init(#"uuid == CAST("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "NSUUID")"#, true),
    .init(#"website == CAST("https://ann.example.com", "NSURL")"#, true),
    .init(#"avatar == CAST("AQID", "NSData")"#, true),
    .init(#"age == CAST("41", "NSNumber")"#, true),
    .init(#"CAST(age, "NSString") == "41""#, true),
    .init(#"balance == CAST("100.25", "NSDecimalNumber")"#, true),
    // Compound predicates and precedence.
    .init(#"firstName == "Ann" AND age > 40"#, true),
    .init(#"firstName == "Ann" && age > 50"#, false),
    .init(#"firstName == "Bob" OR age > 40"#, true),
    .init(#"firstName == "Bob" || age > 50"#, false),
    .init(#"NOT firstName == "Bob""#, true),
    .init(#"!(firstName == "Ann")"#, false),
    .init("NOT (age > 50 OR active == NO)", true),
    .init(#"(age > 50 OR active == YES) AND firstName BEGINSWITH "A""#, true),
    .init(#"age > 50 OR active == YES AND firstName BEGINSWITH "B""#, false),
    .init("TRUEPREDICATE", true),
    .init("FALSEPREDICATE", false),
    .init("NOT FALSEPREDICATE", true),
    .init("TRUEPREDICATE AND FALSEPREDICATE", false),
    .init("truepredicate or falsepredicate", true),
    .init(#"firstName == "Ann" and age > 40"#, true),
    .init("age between {40, 42}", true),
    .init(#"firstName beginswith[c] "a""#, true),
    .init(#"not firstName == "Ann""#, false),
    // SELF and escaped keys.
    .init(#"SELF.firstName == "Ann""#, true),
    .init("SELF != nil", true),
    .init("#size == 7", true),
    .init(#"#firstName == "Ann""#, true),
    .init(#"#"firstName" == "Ann""#, true),
    // To-many relationships: aggregates, modifiers, implicit ANY.
    .init("publications.@count == 3", true),
    .init("publications.@count > 2", true),
    .init("tags.@count == 2", true),
    .init(#"ANY tags.name == "Swift""#, true),
    .init(#"SOME tags.name == "Swift""#, true),
    .init(#"ALL tags.name == "Swift""#, false),
    .init(#"NONE tags.name == "Cooking""#, true),
    .init(#"NONE tags.name == "Swift""#, false),
    .init(#"tags.name == "Swift""#, true),
    .init(#"tags.name != "Swift""#, true),
    .init("ANY publications.year > 2020", true),
    .init("ALL publications.year > 2010", true),
    .init("ALL publications.year > 2016", false),
    .init(#"ANY publications.title BEGINSWITH[c] "the""#, true),
    .init(#"ANY publications.tags.name == "Databases""#, true),
    .init("publications.@sum.pages == 1010", true),
    .init("publications.@avg.pages > 336", true),
    .init("publications.@avg.pages < 337", true),
    .init("publications.@min.year == 2015", true),
    .init("publications.@max.year == 2021", true),
    .init("publications.@sum.price > 114", true),
    .init("publications.@sum.price < 115", true),
    .init(#"publications.@max.title == "The Art of SQL""#, true),
    .init(#"publications.@min.title == "Data Stores""#, true),
    .init("ANY publications.price < 30", true),
    .init("ANY publications.price == 25.0", true),
    .init(#"publications.title CONTAINS "Data Stores""#, true),
    .init(#"publications.title CONTAINS "Data""#, false),
    .init(#"ANY publications.title CONTAINS "Data""#, true),
    .init("ANY publications.reviews.stars == 2", true),
    .init("publications.reviews.@count == 3", true),
    .init("ANY publications.author.age == 41", true),
    .init(#"aliases CONTAINS "annie""#, true),
    .init(#"aliases CONTAINS "bobby""#, false),
    .init(#"aliases CONTAINS[c] "ANNIE""#, true),
    .init(#""annie" IN aliases"#, true),
    .init(#"ANY aliases BEGINSWITH "A.""#, true),
    .init(#"ALL aliases LIKE "*""#, true),
    .init("scores.@sum == 16", true),
    .init("scores.@avg > 5", true),
    .init("scores.@max == 8", true),
    .init("scores.@count == 3", true),
    .init("ANY scores > 7", true),
    .init("ALL scores > 2", true),
    .init("NONE scores > 8", true),
    .init("scores > 7", true),
    // Subqueries.
    .init("SUBQUERY(publications, $p, $p.year > 2016).@count == 2", true),
    .init("SUBQUERY(publications, $p, $p.year > 2016 AND $p.pages > 300).@count == 1", true),
    .init("SUBQUERY(publications, $p, year > 2016).@count == 2", true),
    .init("SUBQUERY(publications, $p, ANY $p.reviews.stars == 5).@count == 1", true),
    .init("SUBQUERY(publications, $p, SUBQUERY($p.reviews, $r, $r.stars >= 4).@count > 0).@count == 1", true),
    .init(#"SUBQUERY(tags, $t, $t.name BEGINSWITH "S").@count == 1"#, true),
    .init("subquery(publications, $p, $p.pages < 100).@count == 0", true),
    .init(#"ANY SUBQUERY(publications, $p, $p.year > 2020).title == "Data Stores""#, true),
    .init("SUBQUERY(publications, $p, $p.year > 0).@count == 0", true, on: "chloe"),
    // Empty collections and nil values.
    .init("ALL publications.year > 3000", true, on: "chloe"),
    .init("ANY publications.year > 0", false, on: "chloe"),
    .init("NONE publications.year > 0", true, on: "chloe"),
    .init("publications.@count == 0", true, on: "chloe"),
    .init("publications.@sum.pages == 0", true, on: "chloe"),
    .init("publications.@avg.pages == nil", true, on: "chloe"),
    .init("publications.@max.year == nil", true, on: "chloe"),
    .init("rating == nil", true, on: "chloe"),
    .init("rating > 0", false, on: "chloe"),
    .init("rating < 0", false, on: "chloe"),
    .init(#"firstName == "Chloe""#, false, on: "chloe"),
    .init(#"firstName ==[d] "Chloe""#, true, on: "chloe"),
    .init(#"lastName BEGINSWITH[cd] "ang""#, true, on: "chloe"),
    .init(#"lastName LIKE[d] "Angstrom""#, true, on: "chloe"),
    .init(#"lastName ==[n] "Ångström""#, true, on: "chloe"),
    .init(#"lastName ==[cdn] "angstrom""#, true, on: "chloe"),
    .init(#"lastName ==[d] "Muller""#, true, on: "bob"),
    .init(#"lastName CONTAINS[cd] "MULL""#, true, on: "bob"),
    .init(#"ANY publications.title BEGINSWITH[d] "Uber""#, true, on: "bob"),
    .init(#"ANY publications.title BEGINSWITH "Uber""#, false, on: "bob"),
    .init("tags.@count == 0", true, on: "bob"),
    .init("age < 30 AND active == NO", true, on: "bob"),
    .init(#"nickname == "bobby""#, true, on: "bob"),
    .init("score > 2", true, on: "bob"),
    .init("scores.@sum == 0", true, on: "bob"),
    .init("scores.@avg == nil", true, on: "bob"),
    // Dictionaries.
    .init(#"name == "Dana""#, true, on: "dana"),
    .init("age == 30", true, on: "dana"),
    .init("pets.@count == 2", true, on: "dana"),
    .init(#"ANY pets.kind == "dog""#, true, on: "dana"),
    .init(#"ALL pets.kind == "dog""#, false, on: "dana"),
    .init("pets.@sum.age == 8", true, on: "dana"),
    .init(#"address.city == "Oslo""#, true, on: "dana"),
    .init("unknownKey == nil", true, on: "dana"),
    .init("SUBQUERY(pets, $p, $p.age > 4).@count == 1", true, on: "dana"),
    // Plain values, as validation predicates see them.
    .init("SELF > 0", true, on: "int5"),
    .init("SELF BETWEEN {1, 10}", true, on: "int5"),
    .init("SELF == 5.0", true, on: "int5"),
    .init("SELF IN {1, 3, 5}", true, on: "int5"),
    .init("SELF < 5", false, on: "int5"),
    .init(#"SELF MATCHES "h.*o""#, true, on: "hello"),
    .init(#"SELF LIKE[c] "HEL*""#, true, on: "hello"),
    .init(#"SELF BEGINSWITH "he" AND SELF ENDSWITH "lo""#, true, on: "hello"),
    .init("SELF == nil", true, on: "nil"),
    .init("SELF > 0", false, on: "nil"),
]

@Suite("Predicate evaluation")
struct PredicateEvaluationTests {
    @Test("The table has enough cases")
    func tableSize() {
        #expect(predicateEvaluationCases.count >= 150)
    }

    @Test("Evaluates", arguments: predicateEvaluationCases)
    func evaluates(_ testCase: PredicateEvaluationCase) throws {
        let graph = PredicateTestGraph()
        let predicate = try QueryPredicate(format: testCase.format)
        #expect(try predicate.evaluate(with: graph.subject(testCase.subject)) == testCase.expected)
    }

    @Test("Round-trips through its printed form", arguments: predicateEvaluationCases)
    func roundTrips(_ testCase: PredicateEvaluationCase) throws {
        let predicate = try QueryPredicate(format: testCase.format)
        let printed = predicate.predicateFormat
        let reparsed = try QueryPredicate(format: printed)
        #expect(reparsed == predicate, "printed as \(printed)")
        #expect(reparsed.predicateFormat == printed)
        let graph = PredicateTestGraph()
        #expect(try reparsed.evaluate(with: graph.subject(testCase.subject)) == testCase.expected)
    }

    @Test("Evaluates with format arguments")
    func formatArguments() throws {
        let graph = PredicateTestGraph()
        let ann = graph.subject("ann")
        let cases: [(String, [Any], Bool)] = [
            ("firstName == %@", ["Ann"], true),
            ("%K == %@", ["firstName", "Ann"], true),
            ("%K.%K == %@", ["address", "city", "Zürich"], true),
            ("%K == %@", ["publications.@count", 3], true),
            ("%K > %d", ["publications.@sum.pages", 1000], true),
            ("age == %d", [41], true),
            ("age == %i", [Int32(41)], true),
            ("age == %ld", [Int64(41)], true),
            ("age == %lld", [UInt8(41)], true),
            ("rating == %f", [4.5], true),
            ("rating == %lf", [Float(4.5)], true),
            ("firstName == %s", ["Ann"], true),
            ("age IN %@", [[29, 41]], true),
            ("age IN %@", [Set([1, 2])], false),
            ("age BETWEEN %@", [[40, 42]], true),
            ("nickname == %@", [Optional<Any>.none as Any], true),
            ("born == %@", [Date(timeIntervalSinceReferenceDate: -600_000_000)], true),
            ("uuid == %@", [PredicateTestGraph.annUUID], true),
            ("avatar == %@", [Data([1, 2, 3])], true),
            ("website == %@", [URL(string: "https://ann.example.com") as Any], true),
            ("balance == %@", [Decimal(string: "100.25") as Any], true),
            ("active == %@", [true], true),
            ("age == %@", [AttributeValue.integer(41)], true),
            ("score == %@", [Float(1.5)], true),
            ("ANY tags.name IN %@", [["Databases"]], true),
            ("firstName == %@ AND age > %d", ["Ann", 40], true),
            ("firstName == '%@'", [], false),
        ]
        for (format, arguments, expected) in cases {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            #expect(try predicate.evaluate(with: ann) == expected, "\(format)")
            #expect(try QueryPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
        }
    }

    @Test("Evaluates a variadic argument list")
    func variadicArguments() throws {
        let predicate = try QueryPredicate(format: "firstName BEGINSWITH %@ AND age < %d", "A", 50)
        #expect(try predicate.evaluate(with: PredicateTestGraph().subject("ann")))
    }

    @Test("Compares managed-object-like values through QueryValueConvertible")
    func queryValueConvertible() throws {
        struct Tag: QueryValueConvertible {
            var name: String
            var queryValue: QueryValue { .attribute(.string(name)) }
        }
        let predicate = try QueryPredicate(format: "ANY tags.name IN %@", [Tag(name: "Swift")])
        #expect(predicate.predicateFormat == #"ANY tags.name IN {"Swift"}"#)
        #expect(try predicate.evaluate(with: PredicateTestGraph().subject("chloe")))
    }

    @Test("Compares objects without object IDs by identity")
    func objectIdentity() throws {
        let graph = PredicateTestGraph()
        let predicate = try QueryPredicate(format: "ANY publications.author == SELF")
        #expect(try predicate.evaluate(with: graph.ann))
        let other = try QueryPredicate(format: "ANY publications.author == address")
        #expect(try !other.evaluate(with: graph.ann))
    }

    @Test("Compares object ID literals that cannot be read back by their text")
    func objectIDLiterals() throws {
        let same = try QueryPredicate(
            format: #"CAST("x-test://1", "NSManagedObjectID") == CAST('x-test://1', 'NSManagedObjectID')"#)
        #expect(try same.evaluate(with: AttributeValue.null))
        let different = try QueryPredicate(
            format: #"CAST("x-test://1", "NSManagedObjectID") IN {CAST("x-test://2", "NSManagedObjectID")}"#)
        #expect(try !different.evaluate(with: AttributeValue.null))
        #expect(
            try !QueryPredicate(format: #"SELF == CAST("x-test://1", "NSManagedObjectID")"#).evaluate(
                with: PredicateTestGraph().ann))
    }

    @Test("Evaluates expressions")
    func expressionValues() throws {
        let graph = PredicateTestGraph()
        let count = try QueryExpression(format: "publications.@count").value(with: graph.ann)
        guard case .value(.integer(3)) = count else {
            Issue.record("expected 3, got \(count)")
            return
        }
        let sum = try QueryExpression(format: "publications.@sum.price").value(with: graph.ann)
        guard case .value(.double(let total)) = sum else {
            Issue.record("expected a double, got \(sum)")
            return
        }
        #expect(abs(total - 114.49) < 1e-9)
        let titles = try QueryExpression(format: "publications.title").value(with: graph.ann)
        guard case .collection(let elements) = titles else {
            Issue.record("expected a collection, got \(titles)")
            return
        }
        #expect(elements.count == 3)
    }

    @Test("Sums integers exactly and decimals as decimals")
    func sums() throws {
        let big: [String: Any] = ["values": [Int64.max - 1, 1]]
        let sum = try QueryExpression(format: "values.@sum").value(with: big)
        guard case .value(.integer(Int64.max)) = sum else {
            Issue.record("expected Int64.max, got \(sum)")
            return
        }
        let overflow: [String: Any] = ["values": [Int64.max, 1]]
        guard case .value(.double) = try QueryExpression(format: "values.@sum").value(with: overflow) else {
            Issue.record("expected an overflowing sum to become a double")
            return
        }
        let decimals: [String: Any] = ["values": [Decimal(string: "0.1")!, Decimal(string: "0.2")!, 1]]
        let decimalSum = try QueryExpression(format: "values.@sum").value(with: decimals)
        guard case .value(.decimal(let total)) = decimalSum else {
            Issue.record("expected a decimal, got \(decimalSum)")
            return
        }
        #expect(total == Decimal(string: "1.3"))
    }

    @Test("Reports what cannot be evaluated")
    func evaluationErrors() throws {
        let graph = PredicateTestGraph()
        let cases: [(String, String)] = [
            ("unknownKey == 1", "Author has no key 'unknownKey'."),
            (#"firstName MATCHES "(""#, #"The MATCHES pattern "(" is not a valid regular expression."#),
            ("firstName.size == 3", #"The value "Ann" has no key 'size'."#),
            ("publications.@sum.title == 1", #"@sum needs numbers, not "Swift Patterns"."#),
            ("tags.@max == 1", "@max needs values, not objects or collections."),
            (#"CAST(firstName, "NSNumber") == 1"#, #"The value "Ann" cannot be cast to NSNumber."#),
            ("age BETWEEN $RANGE", "BETWEEN needs a collection of two values on its right side."),
        ]
        for (format, message) in cases {
            let predicate = try QueryPredicate(format: format)
            let error = #expect(throws: QuireError.self, "\(format)") {
                try predicate.evaluate(with: graph.ann, substitutionVariables: ["RANGE": 5])
            }
            #expect(error?.code == .predicateEvaluation)
            #expect(error?.message == message)
        }
        // A string's `length` is NSString's (UTF-16 units), as validation predicates such as `length >= 3` use it.
        #expect(try QueryPredicate(format: "firstName.length == 3").evaluate(with: graph.ann))
    }
}
