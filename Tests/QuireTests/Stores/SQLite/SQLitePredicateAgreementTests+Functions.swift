import Foundation

extension SQLitePredicateAgreementTests {
    /// Cases with expression functions (`salary * 12`, `lowercase:(name)`, `now()`, `median:(…)`): those that
    /// compile run in SQL (SQLite computes the functions its own operators do not compute the same way with the
    /// evaluator's Swift code), the others (median, mode, stddev, random) are left to memory.
    static func functionCases() -> [Case] {
        func a(_ format: String, _ arguments: Any..., compiles: Bool = true) -> Case {
            Case(entity: "Author", format: format, arguments: arguments, compiles: compiles)
        }
        func p(_ format: String, _ arguments: Any..., compiles: Bool = true) -> Case {
            Case(entity: "Publication", format: format, arguments: arguments, compiles: compiles)
        }
        return [
            // Arithmetic: integers stay integers, anything else is a double; division by zero is nil.
            a("age * 2 > 80"), a("age + 1 == 42"), a("age - 1 == 40"), a("age-1 == 40"), a("age / 2 == 20"),
            a("age / 2 == 20.5"), a("age / 0 == nil"), a("rating / 0 == nil"), a("rating * 2 > 8"),
            a("rating / 2 == 2.25"), a("-age < -40"), a("(age + 1) * 2 > 80"), a("age + rating > 44"),
            a("age * rating > 100"), a("score * 2 > 3"), a("balance * 2 > 100"), a("balance + age > 100"),
            a("age * 2 IN {82, 60}"), a("age * 2 BETWEEN {60, 90}"), a("age + %d == 42", 1), a("2 ** 10 == 1024"),
            a("age ** 2 > 1000"), a("age - age == 0"), a("age * 1.5 == 61.5"), a("active + 1 == 2"),
            a("NOT age * 2 > 80"), a("age + nil == nil", compiles: false),
            // Numeric functions.
            a("modulus:by:(age, 2) == 1"), a("modulus:by:(rating, 2) == 0.5"), a("modulus:by:(age, 0) == nil"),
            a("abs:(balance) > 3"), a("abs:(score) == 1"), a("abs:(age - 40) <= 1"), a("sqrt:(age) > 6"),
            a("ceiling:(rating) == 5"), a("floor:(rating) == 4"), a("trunc:(score) == -1"), a("ln:(age) > 3.5"),
            a("log:(age) > 1.6"), a("exp:(rating) > 50"), a("raise:toPower:(age, 2) == 1681"),
            a("bitwiseAnd:with:(age, 1) == 1"), a("bitwiseOr:with:(age, 2) == 43"), a("bitwiseXor:with:(age, 1) == 40"),
            a("leftshift:by:(age, 1) == 82"), a("rightshift:by:(age, 1) == 20"), a("onesComplement:(age) == -42"),
            a("noindex:(age) == 41"), a("sqrt:(score) == nil"), a("sum:({1, 2, 3}) == age - 35"),
            // Strings: Unicode case mappings, lengths in UTF-16 units.
            a("lowercase:(firstName) == 'ann'"), a("uppercase:(lastName) == 'LEE'"), a("lowercase:(firstName) == 'émile'"),
            a("uppercase:(lastName) == 'ÅNGSTRÖM'"), a("uppercase:(firstName) == 'ZOË'"), a("lowercase(firstName) == 'bob'"),
            a("length:(nickname) > 5"), a("length:(avatar) == 3"), a("lowercase:(firstName) BEGINSWITH 'a'"),
            a("lowercase:(firstName) ==[c] 'ANN'"), a("lowercase:('ABC') == 'abc'"), a("uppercase:(firstName) == firstName"),
            a("castObject:toType:(age, 'NSString') == '41'", compiles: false),
            // Dates: now(), dates plus seconds, differences of dates.
            a("born < now()"), a("born > now() - 1300000000"), a("now() - born > 1300000000"),
            a("born + 100000000 > CAST(-400000000, 'NSDate')"), a("now() > CAST(0, 'NSDate')"),
            // Functions of collections.
            a("sum:(publications.pages) > 500"), a("count:(publications) > 1"), a("max:(publications.year) >= 2022"),
            a("min:(publications.year) < 2016"), a("average:(publications.price) > 20"),
            a("median:(publications.year) > 2018", compiles: false), a("stddev:(publications.year) > 2", compiles: false),
            a("count:(mode:(publications.reviews.stars)) > 1", compiles: false),
            a("random() < 2", compiles: false), a("randomn:(5) < 5", compiles: false),
            a("SUBQUERY(publications, $p, $p.year - 2000 > 15).@count > 0"),
            // Union operators in key paths, evaluated in memory.
            a("publications.reviews.@distinctUnionOfObjects.stars.@count > 1", compiles: false),
            a("publications.reviews.@unionOfObjects.stars.@count > 2", compiles: false),
            a("tags.@distinctUnionOfSets.name CONTAINS 'Swift'", compiles: false),
            a("ANY publications.@unionOfArrays.year > 2020", compiles: false),
            // Other entities and key paths through to-one relationships.
            p("price * 2 > 50"), p("year - 2000 > 20"), p("mainAuthor.age * 2 > 80"), p("pages / 100 == 2"),
            p("lowercase:(mainAuthor.firstName) == 'ann'"), p("publicationDate < now() - 86400"),
        ]
    }
}
