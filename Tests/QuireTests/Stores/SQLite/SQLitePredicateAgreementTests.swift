// Runs the SQLite predicate compiler and the coordinator's predicate split directly, which have no public face: uses Quire's internals and QuireCore's and QuireStores' package API.
import Foundation
import Testing

@testable import Quire
import QuireCore
import QuireStores

/// Every case is evaluated twice over the same saved data: in memory by the evaluator (the reference) and
/// by the SQLite store's SQL, and the two result sets must be equal. Each case also states whether it
/// compiles to SQL, so the SQL path is known to have run (and the memory fallback for those that do not).
@Suite("SQL and memory agree on predicates")
struct SQLitePredicateAgreementTests {
    struct Case {
        var entity: String
        var format: String
        var arguments: [Any]
        var compiles: Bool
    }

    @Test func everyCaseAgrees() throws {
        let library = try LibraryFixture()
        let cases = Self.cases(library)
        #expect(cases.count >= 150)
        var all: [String: [ManagedObject]] = [:]
        for entity in ["Author", "Publication", "Address", "Tag"] {
            all[entity] = try library.context.fetch(FetchRequest<ManagedObject>(entityName: entity))
        }
        let model = library.coordinator.managedObjectModel
        var compiled = 0
        for item in cases {
            let predicate: QueryPredicate
            do {
                predicate = try QueryPredicate(format: item.format, argumentArray: item.arguments)
            } catch {
                Issue.record("\(item.format) does not parse: \(error)")
                continue
            }
            let entity = try #require(model.entitiesByName[item.entity])
            let compiles = library.store.backend.canEvaluate(predicate, for: entity)
            #expect(compiles == item.compiles, "\(item.format): compiles \(compiles), expected \(item.compiles)")
            if compiles { compiled += 1 }
            let memory: [String]
            do {
                memory = LibraryFixture.names(try (all[item.entity] ?? []).filter { try predicate.evaluate(with: $0) })
            } catch {
                Issue.record("\(item.format) fails in memory: \(error)")
                continue
            }
            let request = FetchRequest<ManagedObject>(entityName: item.entity)
            request.predicate = predicate
            do {
                let fetched = LibraryFixture.names(try library.context.fetch(request))
                #expect(fetched == memory, "\(item.format): SQL \(fetched), memory \(memory)")
                #expect(try library.context.count(for: request) == memory.count, "\(item.format): count")
            } catch {
                Issue.record("\(item.format) fails in SQL: \(error)")
            }
        }
        #expect(compiled >= 150)
    }

    @Test func sqlTextBindsEveryValue() throws {
        let library = try LibraryFixture()
        guard let store = library.store.backend as? SQLiteStore,
            let entity = library.coordinator.managedObjectModel.entitiesByName["Author"]
        else { throw QuireError(.persistentStoreOpen, "no SQLite store") }
        let predicate = try QueryPredicate(
            format: "firstName == %@ OR lastName LIKE[cd] %@ OR age IN %@", "x'; DROP TABLE ZAUTHOR; --", "a*", [1, 2])
        let counter = SQLAliasCounter()
        var compiler = SQLPredicateCompiler(schema: store.schema, store: library.store, counter: counter, dialect: .sqlite)
        let sql = try compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: .init(counter: counter, dialect: .sqlite)))
        #expect(!sql.contains("DROP") && !sql.contains("'"))
        #expect(compiler.bindings.count == 4)
    }

    @Test func invalidPatternThrowsOnBothPaths() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        request.predicate = try QueryPredicate(format: "firstName MATCHES '('")
        #expect(throws: QuireError.self) { try library.context.fetch(request) }
    }

    @Test func partlyCompiledPredicatesFilterTheRestInMemory() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        // `notes` is transient: that conjunct is evaluated in memory, the other in SQL.
        request.predicate = try QueryPredicate(format: "age > 30 AND notes == 'likes tea'")
        let model = library.coordinator.managedObjectModel
        let fetch = StoreFetch(
            entity: try #require(model.entitiesByName["Author"]), predicate: request.predicate, sortKeys: [], limit: 0,
            offset: 0, includesSubentities: true, kind: .rows)
        let split = library.coordinator.split(try #require(request.predicate), for: fetch, in: nil)
        #expect(split.store == (try QueryPredicate(format: "age > 30")))
        #expect(split.memory == (try QueryPredicate(format: "notes == 'likes tea'")))
        #expect(LibraryFixture.names(try library.context.fetch(request)) == ["Ann"])
    }

    @Test func sortOrdersAgreeWithMemory() throws {
        let library = try LibraryFixture()
        for comparator in SortKey.Comparator.allCases {
            for ascending in [true, false] {
                let keys = [SortKey("firstName", ascending: ascending, comparator: comparator)]
                let request = FetchRequest<ManagedObject>(entityName: "Author")
                request.sortDescriptors = keys
                let fromSQL = try library.context.fetch(request).map { $0.value(forKey: "firstName") as? String }
                let all = try library.context.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
                let inMemory = try ObjectSorter.sort(all, by: keys).map { $0.value(forKey: "firstName") as? String }
                #expect(fromSQL == inMemory, "\(comparator) \(ascending)")
            }
        }
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        request.sortDescriptors = [SortKey("mainAuthor.lastName", comparator: .caseInsensitiveCompare), SortKey("title")]
        let fromSQL = try library.context.fetch(request).map { $0.value(forKey: "title") as? String }
        let all = try library.context.fetch(FetchRequest<ManagedObject>(entityName: "Publication"))
        #expect(fromSQL == (try ObjectSorter.sort(all, by: request.sortDescriptors)).map { $0.value(forKey: "title") as? String })
    }

    @Test func pendingChangesToRelatedObjectsCount() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        request.predicate = try QueryPredicate(format: "address.city == 'Lyon'")
        #expect(try library.context.fetch(request).isEmpty)
        library.addresses["Paris"]?.setValue("Lyon", forKey: "city")
        #expect(LibraryFixture.names(try library.context.fetch(request)) == ["Chloé"])
        request.includesPendingChanges = false
        #expect(try library.context.fetch(request).isEmpty)
    }

    // MARK: - The cases

    static func cases(_ library: LibraryFixture) -> [Case] {
        func a(_ format: String, _ arguments: Any..., compiles: Bool = true) -> Case {
            Case(entity: "Author", format: format, arguments: arguments, compiles: compiles)
        }
        func p(_ format: String, _ arguments: Any..., compiles: Bool = true) -> Case {
            Case(entity: "Publication", format: format, arguments: arguments, compiles: compiles)
        }
        func other(_ entity: String, _ format: String, _ arguments: Any..., compiles: Bool = true) -> Case {
            Case(entity: entity, format: format, arguments: arguments, compiles: compiles)
        }
        let ann = library.authors["Ann"]!
        let bob = library.authors["Bob"]!
        let paris = library.addresses["Paris"]!
        let zurich = library.addresses["Zürich"]!
        let swift = library.tags["Swift"]!
        let patterns = library.publications["Swift Patterns"]!
        let ueber = library.publications["Über Datenbanken"]!
        let d1 = Date(timeIntervalSinceReferenceDate: -500_000_000)
        let d2 = Date(timeIntervalSinceReferenceDate: -350_000_000)
        return [
            // Numbers, Booleans, nil.
            a("age == 41"), a("age != 41"), a("age > 30"), a("age >= 35"), a("age < 35"), a("age <= 29"),
            a("age == nil"), a("age != nil"), a("rating > 3"), a("rating == 4.5"), a("rating < 4"),
            a("rating == nil"), a("rating != nil"), a("age > 30.5"), a("age BETWEEN {29, 41}"),
            a("age BETWEEN {30, 30}"), a("age IN {29, 35, 99}"), a("age IN {}"), a("age IN {nil, 41}"),
            a("NOT age IN {29, 35}"), a("NOT (age > 30)"), a("NOT rating > 3"), a("age BETWEEN {nil, 40}"),
            a("rating BETWEEN {2.5, 4.5}"), a("score > 1.5"), a("score == 2.25"), a("score < 0"),
            a("balance > 50"), a("balance == 100.25"), a("balance < 0"), a("active == YES"), a("active == NO"),
            a("active == nil"), a("active != YES"), a("active == 1"), a("age == '41'"), a("firstName == 5"),
            a("age > 'a'"), a("age != 'x'"), a("age == %d", 41), a("age IN %@", [29, 30]),
            a("rating >= age"), a("ANY publications.mainAuthor.publications.year > 2020", compiles: false),
            // Strings.
            a("firstName == 'Ann'"), a("firstName ==[c] 'ann'"), a("firstName ==[cd] 'chloe'"),
            a("firstName ==[d] 'Chloe'"), a("lastName ==[cd] 'angstrom'"), a("firstName != 'Ann'"),
            a("firstName !=[c] 'ann'"), a("lastName == nil"), a("lastName != nil"), a("firstName < 'C'"),
            a("firstName >[c] 'b'"), a("firstName <=[cd] 'emile'"), a("firstName BETWEEN {'B', 'D'}"),
            a("firstName BETWEEN[c] {'b', 'd'}"), a("firstName IN {'Ann', 'Bob'}"), a("firstName IN[c] {'ann', 'BOB'}"),
            a("firstName IN[cd] {'chloe', 'emile'}"), a("firstName IN {'Ann', 5, nil}"),
            a("firstName BEGINSWITH 'A'"), a("firstName BEGINSWITH[c] 'a'"), a("lastName BEGINSWITH[cd] 'a'"),
            a("firstName BEGINSWITH ''"), a("firstName BEGINSWITH[d] 'E'"), a("nickname BEGINSWITH %@", "line1\r"),
            a("lastName ENDSWITH 'er'"), a("lastName ENDSWITH[c] 'LER'"), a("firstName ENDSWITH[cd] 'e'"),
            a("lastName CONTAINS 'll'"), a("lastName CONTAINS[c] 'L'"), a("lastName CONTAINS[cd] 'o'"),
            a("nickname CONTAINS '%'"), a("nickname CONTAINS '_'"), a("nickname CONTAINS '*'"),
            a("nickname CONTAINS %@", "\r"), a("nickname CONTAINS %@", "\n"), a("lastName CONTAINS ''"),
            a("firstName LIKE 'A*'"), a("firstName LIKE 'a*'"), a("firstName LIKE[c] 'a*'"),
            a("firstName LIKE[cd] 'e*'"), a("firstName LIKE '?nn'"), a("firstName LIKE[c] '?NN'"),
            a(#"nickname LIKE 'Dan\\*\\?'"#), a("nickname LIKE 'Dan*'"), a("nickname LIKE '100% *'"),
            a("nickname LIKE '*_*'"), a("lastName LIKE '*'"), a("lastName LIKE ''"),
            a("nickname LIKE 'line1?line2'"), a("nickname LIKE 'line1??line2'"), a("firstName LIKE[c] '*O*'"),
            a("lastName LIKE[cd] '*u*'"), a("firstName LIKE 'Zo?'"), a("firstName MATCHES 'A.*'"),
            a("firstName MATCHES[c] 'a.*'"), a("lastName MATCHES '[A-Z].*'"), a("firstName MATCHES 'An'"),
            a("firstName MATCHES[cd] 'chloe'"), a("nickname MATCHES '.*\\\\d.*'"), a("'nn' IN firstName"),
            a("%@ IN lastName", "ll"), a("firstName == lastName"), a("firstName ==[c] lastName"),
            a("firstName < lastName"), a("firstName == nickname"), a("firstName CONTAINS[c] nickname"),
            a("website == %@", URL(string: "https://ann.example.com")!), a("website BEGINSWITH 'https'"),
            a("website != nil"),
            // Dates, UUIDs, data.
            a("born > %@", d1), a("born < CAST(-400000000, 'NSDate')"), a("born BETWEEN %@", [d1, d2]),
            a("born == %@", Date(timeIntervalSinceReferenceDate: -600_000_000)), a("born == nil"),
            a("uuid == %@", LibraryFixture.uuidAnn), a("uuid != %@", LibraryFixture.uuidAnn), a("uuid == nil"),
            a("uuid > %@", LibraryFixture.uuidBob), a("avatar == %@", Data([1, 2, 3])), a("avatar != nil"),
            a("avatar > %@", Data([2])), a("photo == nil"), a("photo != nil"),
            a("photo == %@", Data(repeating: 7, count: 10), compiles: false), a("notes == 'likes tea'", compiles: false),
            a("CAST(age, 'NSString') == '41'", compiles: false),
            // To-one key paths and objects.
            a("address.city == 'Paris'"), a("address.city ==[cd] 'zurich'"), a("address == nil"),
            a("address != nil"), a("address.country == nil"), a("address.city BEGINSWITH 'S'"),
            a("address == %@", paris), a("address != %@", paris), a("address IN %@", [paris, zurich]),
            a("address.resident.firstName == 'Ann'"), a("NOT address.city == 'Paris'"), a("address.zip > '5'"),
            a("address.city != 'Paris'"), a("address == %@", swift), a("SELF == %@", ann), a("SELF != %@", ann),
            a("SELF IN %@", [ann, bob]), a("NOT SELF IN %@", [ann, bob]), a("address.resident == SELF"),
            // To-many key paths.
            a("ANY publications.year > 2020"), a("publications.year > 2020"), a("ALL publications.year > 2018"),
            a("NONE publications.year > 2020"), a("ANY publications.title BEGINSWITH[c] 'the'"),
            a("ANY publications.reviews.stars == 5"), a("ALL publications.reviews.stars >= 4"),
            a("NONE publications.reviews.stars < 3"), a("ANY publications.year == nil"),
            a("ANY publications.reviews.stars == nil"), a("ANY tags.name == 'Swift'"), a("ANY tags.name ==[c] 'swift'"),
            a("ALL tags.name != 'Databases'"), a("NONE tags.name == 'Swift'"), a("tags.name CONTAINS[c] 'lang'"),
            a("ANY tags.name CONTAINS 'Data'"), a("publications CONTAINS %@", patterns), a("%@ IN publications", patterns),
            a("tags CONTAINS %@", swift), a("ANY publications == %@", ueber), a("NONE publications == %@", ueber),
            a("ANY tags.authors.firstName == 'Bob'"), a("ANY tags.authors.firstName == 'Zoë'"),
            a("ANY favorites.title == 'Swift Patterns'"), a("favorites CONTAINS %@", ueber),
            a("ANY publications.mainAuthor.firstName == 'Ann'"), a("ANY publications.mainAuthor == %@", bob),
            a("address.resident.publications.year == nil"), a("address.resident.publications.year > 2000"),
            a("ALL address.resident.publications.year > 2000"), a("publications.title IN {'zeta', 'Orphan'}"),
            a("ANY publications.price BETWEEN {20, 40}"), a("ANY publications.title LIKE[cd] '*donnees*'"),
            a("ANY tags.name IN {'Databases', 'nothing'}"),
            // Aggregates.
            a("publications.@count == 0"), a("publications.@count > 1"), a("publications.@count == 3"),
            a("tags.@count >= 2"), a("publications.@sum.pages > 500"), a("publications.@sum.pages == 0"),
            a("publications.@avg.price > 20"), a("publications.@avg.price == nil"), a("publications.@min.year < 2016"),
            a("publications.@max.year >= 2022"), a("publications.@max.title == 'The Art of SQL'"),
            a("publications.reviews.@count > 1"), a("publications.@sum.price < 50"),
            a("publications.reviews.@avg.stars > 3"), a("address.resident.publications.@count == 0"),
            a("favorites.@count > 0"), a("tags.authors.@count > 2"), a("publications.@count == tags.@count"),
            a("publications.@min.publicationDate < %@", Date(timeIntervalSinceReferenceDate: 500_000_000)),
            a("address.@count == 1"), a("publications.reviews.@max.stars == 5"), a("NOT publications.@count > 0"),
            // Subqueries.
            a("SUBQUERY(publications, $p, $p.year > 2018).@count > 1"),
            a("SUBQUERY(publications, $p, $p.year > 2018 AND $p.pages > 200).@count == 1"),
            a("SUBQUERY(publications, $p, ANY $p.reviews.stars == 5).@count > 0"),
            a("SUBQUERY(tags, $t, $t.name BEGINSWITH 'S').@count == 1"),
            a("SUBQUERY(publications, $p, SUBQUERY($p.reviews, $r, $r.stars >= 4).@count >= 1).@count >= 1"),
            a("SUBQUERY(publications, $p, $p.mainAuthor.firstName == 'Ann').@count == 3"),
            a("SUBQUERY(publications, $p, pages > 200).@count > 0"),
            a("SUBQUERY(publications, $p, $p.reviews.@count == 0).@count > 0"),
            // Compounds, constants and modifiers on single values.
            a("age > 30 AND active == YES"), a("age < 30 OR rating > 4"), a("NOT (age > 30 AND active == YES)"),
            a("(age > 30 OR lastName == nil) AND NOT active == NO"), a("TRUEPREDICATE"), a("FALSEPREDICATE"),
            a("NOT TRUEPREDICATE"), a("age > 30 AND ANY publications.year > 2020"), a("NOT ANY publications.year > 2020"),
            a("NOT firstName LIKE 'A*'"), a("NOT nickname CONTAINS 'b'"), a("NOT (rating > 2 OR age < 40)"),
            a("1 == 1"), a("'a' > 'b'"), a("41 == age"), a("30 < age"), a("'Ann' == firstName"),
            a("ANY age > 30"), a("ALL address.city == 'Paris'"), a("NONE address.city == 'Paris'"),
            a("ANY address == nil"), a("ALL address == nil"),
            // Other entities.
            p("mainAuthor.firstName == 'Ann'"), p("mainAuthor.address.city == 'Paris'"), p("ANY reviews.stars > 4"),
            p("reviews.@count == 0"), p("mainAuthor == nil"), p("title LIKE[cd] '*donnees*'"),
            p("price > 20 AND year < 2020"), p("ALL reviews.stars == 1"), p("mainAuthor.publications.@count > 1"),
            p("ANY mainAuthor.tags.name == 'Swift'"), p("mainAuthor.tags.name == 'Swift'"),
            p("mainAuthor.tags.name != 'Swift'"), p("mainAuthor.tags.name == nil"),
            p("(mainAuthor.firstName like[cd] 'ann') AND (publicationDate > %@)", Date(timeIntervalSinceReferenceDate: 0)),
            p("title ENDSWITH[c] 'SQL'"), p("year BETWEEN {2015, 2021}"), p("pages IN {0, 1, 10}"),
            other("Address", "resident.age > 40"), other("Address", "country == nil"),
            other("Address", "resident.publications.@count > 0"), other("Tag", "authors.@count == 2"),
            other("Tag", "ANY authors.address.city == 'Paris'"), other("Tag", "name LIKE 'swift*'"),
        ] + functionCases()
    }
}
