// Checks the SQL path of dictionary fetches against the context's in-memory path, which has no public face: uses Quire's internals and QuireCore's package API.
import Foundation
import Testing

@testable import Quire
import QuirePostgres
import QuireCore

@Suite("Dictionary results, grouping, having, distinct")
struct DictionaryFetchTests {
    /// A dictionary as sorted `key=value` text, for comparing results.
    static func text(_ dictionaries: [[String: Any]]) -> [String] {
        dictionaries.map { dictionary in
            dictionary.keys.sorted().map { key -> String in
                let value = dictionary[key]
                if let id = value as? ObjectID { return "\(key)=\(id.uriRepresentation().lastPathComponent)" }
                if let date = value as? Date { return "\(key)=\(date.timeIntervalSinceReferenceDate)" }
                return "\(key)=\(value.map { "\($0)" } ?? "nil")"
            }.joined(separator: ",")
        }
    }

    /// The store types the tests run on: SQLite, and PostgreSQL when a test server is there.
    static let types: [StoreType] = PostgresTestServer.isAvailable ? [.sqlite, .postgres] : [.sqlite]

    /// The library in a store of a type.
    static func library(_ type: StoreType) throws -> LibraryFixture {
        type == .postgres ? try LibraryFixture(postgres: PostgresTestServer.storeURL()) : try LibraryFixture()
    }

    /// The request's dictionaries from SQL and from memory, which must be equal; `inSQL`: the store answers it
    /// itself, in one statement.
    static func both(_ library: LibraryFixture, _ request: FetchRequest<[String: Any]>, inSQL: Bool = true) throws -> [String] {
        let fromStore = text(try library.context.fetch(request))
        let model = library.coordinator.managedObjectModel
        let fetch = StoreFetch(
            entity: try #require(model.entitiesByName[request.entityName]), predicate: request.predicate,
            sortKeys: request.sortDescriptors, limit: request.fetchLimit, offset: request.fetchOffset,
            includesSubentities: true, kind: .rows)
        let spec = try DictionaryFetch(request: request, fetch: fetch)
        let inMemory = text(spec.publicDictionaries(try library.context.dictionaryRowsInMemory(spec, stores: nil)))
        #expect(fromStore == inMemory)
        let store = try #require(library.coordinator.persistentStores.first)
        #expect(try (store.backend.fetchDictionaries(spec) != nil) == inSQL, "\(store.type) answered in SQL: \(!inSQL)")
        return fromStore
    }

    @Test(arguments: types)
    func keyPathsThroughToOneAndRelationships(type: StoreType) throws {
        let library = try Self.library(type)
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = ["firstName", "address.city", "address"]
        request.sortDescriptors = [SortKey("firstName")]
        request.predicate = try QueryPredicate(format: "age > 30")
        let result = try library.context.fetch(request)
        #expect(result.map { $0["firstName"] as? String } == ["ANN", "Ann", "Chloé", "Émile"])
        #expect(result[1]["address.city"] as? String == "Zürich")
        #expect(result[1]["address"] as? ObjectID == library.addresses["Zürich"]?.objectID)
        #expect(result[0]["address"] == nil)
        _ = try Self.both(library, request)
        // Every attribute when propertiesToFetch is nil.
        let all = FetchRequest<[String: Any]>(entityName: "Author")
        all.predicate = try QueryPredicate(format: "firstName == 'Ann'")
        let ann = try #require(try library.context.fetch(all).first)
        #expect(ann["age"] as? Int64 == 41)
        #expect(ann["balance"] as? Decimal == Decimal(string: "100.25"))
        #expect(ann["notes"] == nil)
    }

    static func groupedByAuthor() -> FetchRequest<[String: Any]> {
        let request = FetchRequest<[String: Any]>(entityName: "Publication")
        request.propertiesToFetch = [
            "mainAuthor.lastName",
            .expression(.init(name: "count", function: .count, of: "SELF", resultType: .integer64)),
            .expression(.init(name: "pages", function: .sum, of: "pages", resultType: .integer64)),
            .expression(.init(name: "averagePrice", function: .average, of: "price", resultType: .double)),
            .expression(.init(name: "first", function: .min, of: "year", resultType: .integer64)),
            .expression(.init(name: "latest", function: .max, of: "publicationDate", resultType: .date)),
            .expression(.init(name: "priced", function: .count, of: "price", resultType: .integer64)),
        ]
        request.propertiesToGroupBy = ["mainAuthor.lastName"]
        request.sortDescriptors = [SortKey("mainAuthor.lastName")]
        return request
    }

    @Test(arguments: types)
    func groupByWithAggregates(type: StoreType) throws {
        let library = try Self.library(type)
        let request = Self.groupedByAuthor()
        let result = try library.context.fetch(request)
        #expect(result.map { $0["mainAuthor.lastName"] as? String } == [nil, "Lee", "Müller", "O'Brien", "Ünal"])
        let lee = result[1]
        #expect(lee["count"] as? Int64 == 3)
        #expect(lee["pages"] as? Int64 == 1010)
        #expect(abs((lee["averagePrice"] as? Double ?? 0) - (39.5 + 25 + 49.99) / 3) < 1e-9)
        #expect(lee["first"] as? Int64 == 2015)
        #expect(lee["latest"] is Date)
        // The group of publications without an author's last name: dan's (no year, no price) and Orphan.
        #expect(result[0]["count"] as? Int64 == 2)
        #expect(result[0]["priced"] as? Int64 == 1)
        _ = try Self.both(library, request)
    }

    @Test(arguments: types)
    func havingFiltersGroups(type: StoreType) throws {
        let library = try Self.library(type)
        let request = Self.groupedByAuthor()
        request.havingPredicate = try QueryPredicate(format: "count > 1 AND pages > 100")
        #expect(try Self.both(library, request).count == 1)
        request.havingPredicate = try QueryPredicate(format: "averagePrice == nil OR #first < 2011")
        let rows = try Self.both(library, request)
        #expect(rows.count == 2)
        request.sortDescriptors = [SortKey("pages", ascending: false)]
        request.havingPredicate = nil
        request.fetchLimit = 2
        #expect(try library.context.fetch(request).map { $0["pages"] as? Int64 } == [1010, 150])
        _ = try Self.both(library, request)
    }

    @Test(arguments: types)
    func distinctResults(type: StoreType) throws {
        let library = try Self.library(type)
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = ["age"]
        request.returnsDistinctResults = true
        request.sortDescriptors = [SortKey("age")]
        #expect(try Self.both(library, request) == ["", "age=29", "age=30", "age=35", "age=41", "age=52"])
        request.returnsDistinctResults = false
        #expect(try library.context.fetch(request).count == 7)
        let ratings = FetchRequest<[String: Any]>(entityName: "Author")
        ratings.propertiesToFetch = ["rating", "active"]
        ratings.returnsDistinctResults = true
        ratings.sortDescriptors = [SortKey("rating"), SortKey("active")]
        _ = try Self.both(library, ratings)
    }

    @Test(arguments: types)
    func aggregatesOverEverything(type: StoreType) throws {
        let library = try Self.library(type)
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            .expression(.init(name: "n", function: .count, of: "SELF", resultType: .integer64)),
            .expression(.init(name: "ages", function: .sum, of: "age", resultType: .integer64)),
            .expression(.init(name: "oldest", function: .max, of: "age", resultType: .integer64)),
            .expression(.init(name: "firstName", function: .min, of: "firstName", resultType: .string)),
        ]
        #expect(try Self.both(library, request) == ["ages=228,firstName=ANN,n=7,oldest=52"])
        request.predicate = try QueryPredicate(format: "age > 100")
        #expect(try Self.both(library, request) == ["ages=0,n=0"])
    }

    @Test(arguments: types)
    func relationshipsDecimalsAndFoldedSorts(type: StoreType) throws {
        let library = try Self.library(type)
        // Grouped by a related object, with sums and averages of decimals and the earliest date.
        let byAuthor = FetchRequest<[String: Any]>(entityName: "Publication")
        byAuthor.propertiesToFetch = [
            "mainAuthor", .expression(.init(name: "n", function: .count, of: "SELF", resultType: .integer64)),
            .expression(.init(name: "earliest", function: .min, of: "publicationDate", resultType: .date)),
            .expression(.init(name: "total", function: .sum, of: "price", resultType: .double)),
        ]
        byAuthor.propertiesToGroupBy = ["mainAuthor"]
        byAuthor.sortDescriptors = [SortKey("mainAuthor")]
        #expect(try Self.both(library, byAuthor).count > 1)
        let balances = FetchRequest<[String: Any]>(entityName: "Author")
        balances.propertiesToFetch = [
            "active", .expression(.init(name: "sum", function: .sum, of: "balance", resultType: .double)),
            .expression(.init(name: "max", function: .max, of: "balance", resultType: .decimal)),
            .expression(.init(name: "mean", function: .average, of: "age", resultType: .double)),
        ]
        balances.propertiesToGroupBy = ["active"]
        balances.sortDescriptors = [SortKey("active", ascending: false)]
        balances.havingPredicate = try QueryPredicate(format: "mean > 0")
        #expect(try Self.both(library, balances).count > 1)
        // Case-insensitive sorts of fetched names; PostgreSQL's SELECT DISTINCT sorts only by what it selects,
        // so that one is left to memory there.
        let names = FetchRequest<[String: Any]>(entityName: "Author")
        names.propertiesToFetch = ["firstName", "age"]
        names.sortDescriptors = [SortKey("firstName", comparator: .caseInsensitiveCompare), SortKey("age", ascending: false)]
        names.fetchOffset = 1
        names.fetchLimit = 4
        #expect(try Self.both(library, names).count == 4)
        names.returnsDistinctResults = true
        _ = try Self.both(library, names, inSQL: type == .sqlite)
    }

    @Test(arguments: types)
    func predicatesLeftToMemoryStillGroup(type: StoreType) throws {
        let library = try Self.library(type)
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            "active", .expression(.init(name: "n", function: .count, of: "SELF", resultType: .integer64)),
        ]
        request.propertiesToGroupBy = ["active"]
        request.sortDescriptors = [SortKey("active")]
        request.predicate = try QueryPredicate(format: "notes == nil")
        // Booleans come back as NSNumbers, as in Core Data, and print as 0 and 1.
        #expect(try Self.both(library, request, inSQL: false) == ["n=1", "active=0,n=2", "active=1,n=3"])
    }

    @Test(arguments: types)
    func invalidRequestsThrow(type: StoreType) throws {
        let library = try Self.library(type)
        let ungrouped = Self.groupedByAuthor()
        ungrouped.propertiesToFetch = ["title"]
        #expect { try library.context.fetch(ungrouped) } throws: { ($0 as? QuireError)?.code == .invalidFetchRequest }
        let mixed = FetchRequest<[String: Any]>(entityName: "Author")
        mixed.propertiesToFetch = ["age", .expression(.init(name: "n", function: .count, of: "SELF", resultType: .integer64))]
        #expect(throws: QuireError.self) { try library.context.fetch(mixed) }
        let having = FetchRequest<[String: Any]>(entityName: "Author")
        having.havingPredicate = .true
        #expect(throws: QuireError.self) { try library.context.fetch(having) }
        let toMany = FetchRequest<[String: Any]>(entityName: "Author")
        toMany.propertiesToFetch = ["publications.title"]
        #expect(throws: QuireError.self) { try library.context.fetch(toMany) }
        let sumOfStrings = FetchRequest<[String: Any]>(entityName: "Author")
        sumOfStrings.propertiesToFetch = [.expression(.init(name: "s", function: .sum, of: "firstName", resultType: .double))]
        #expect(throws: QuireError.self) { try library.context.fetch(sumOfStrings) }
    }
}
