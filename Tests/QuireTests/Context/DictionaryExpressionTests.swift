// Compares the SQL path of dictionary fetches with expressions against the context's in-memory path (through
// DictionaryFetchTests' internal helper): uses Quire's internals.
import Foundation
import Testing

@testable import Quire
import QuireCore

/// Dictionary fetches of expressions (`NSExpressionDescription` with any expression): values of each object,
/// aggregates of expressions, grouping by an expression, and `median:`, `mode:`, `stddev:` computed in memory.
@Suite struct DictionaryExpressionTests {
    /// Whether the SQLite store computes the request in SQL (rather than leaving it to memory).
    static func runsInSQL(_ library: LibraryFixture, _ request: FetchRequest<[String: Any]>) throws -> Bool {
        let fetch = StoreFetch(
            entity: try #require(library.coordinator.managedObjectModel.entitiesByName[request.entityName]),
            predicate: request.predicate, sortKeys: request.sortDescriptors, limit: request.fetchLimit,
            offset: request.fetchOffset, includesSubentities: true, kind: .rows)
        return try library.store.backend.fetchDictionaries(try DictionaryFetch(request: request, fetch: fetch)) != nil
    }

    static func yearly() throws -> FetchedProperty {
        .expression(try ExpressionDescription(name: "months", format: "age * 12", resultType: .integer64))
    }

    @Test func expressionsOfEachObject() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            "firstName", try Self.yearly(),
            .expression(try ExpressionDescription(name: "shout", format: "uppercase:(firstName)", resultType: .string)),
        ]
        request.sortDescriptors = [SortKey("firstName")]
        let result = try library.context.fetch(request)
        #expect(result.map { $0["months"] as? Int64 } == [492, 492, 348, 420, nil, 360, 624])
        #expect(result.map { $0["shout"] as? String } == ["ANN", "ANN", "BOB", "CHLOÉ", "ZOË", "DAN", "ÉMILE"])
        _ = try DictionaryFetchTests.both(library, request)
        #expect(try Self.runsInSQL(library, request))
    }

    @Test func groupingByAnExpressionAndAggregatesOfExpressions() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            .expression(try ExpressionDescription(name: "lower", format: "lowercase:(firstName)", resultType: .string)),
            .expression(.init(name: "count", function: .count, of: "SELF", resultType: .integer64)),
            .expression(try ExpressionDescription(name: "doubled", format: "sum:(age * 2)", resultType: .integer64)),
        ]
        request.propertiesToGroupBy = ["lower"]
        request.sortDescriptors = [SortKey("lower")]
        let result = try library.context.fetch(request)
        #expect(result.first?["lower"] as? String == "ann")
        #expect(result.first?["count"] as? Int64 == 2)
        #expect(result.first?["doubled"] as? Int64 == 164)
        #expect(result.count == 6)
        #expect(DictionaryFetchTests.text(result) == (try DictionaryFetchTests.both(library, request)))
        #expect(try Self.runsInSQL(library, request))
    }

    @Test func statisticsAreComputedInMemory() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            .expression(.init(name: "median", function: .median, of: "age", resultType: .double)),
            .expression(try ExpressionDescription(name: "mode", format: "mode:(age)", resultType: .integer64)),
            .expression(.init(name: "spread", function: .stddev, of: "rating", resultType: .double)),
            .expression(try ExpressionDescription(name: "total", format: "sum:(age * 2)", resultType: .integer64)),
        ]
        let row = try #require(try library.context.fetch(request).first)
        #expect(row["median"] as? Double == 38)
        #expect(row["mode"] as? [Any] != nil && (row["mode"] as? [Int64]) == [41])
        let ratings = [4.5, 3.0, 5.0, 2.5, 4.5, 1.0]
        let mean = ratings.reduce(0, +) / 6
        let spread = (ratings.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 6).squareRoot()
        #expect(abs((row["spread"] as? Double ?? 0) - spread) < 1e-12)
        #expect(row["total"] as? Int64 == 456)
        #expect(try !Self.runsInSQL(library, request))
    }

    @Test(arguments: [StoreType.xml, .binary, .inMemory]) func everyStoreGivesTheSameDictionaries(_ type: StoreType) throws {
        let sqlite = try LibraryFixture()
        let other = try LibraryFixture(type: type)
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            .expression(try ExpressionDescription(name: "lower", format: "lowercase:(firstName)", resultType: .string)),
            .expression(try ExpressionDescription(name: "months", format: "sum:(age * 12)", resultType: .integer64)),
            .expression(.init(name: "median", function: .median, of: "rating", resultType: .double)),
        ]
        request.propertiesToGroupBy = ["lower"]
        request.sortDescriptors = [SortKey("lower")]
        #expect(DictionaryFetchTests.text(try other.context.fetch(request)) == DictionaryFetchTests.text(try sqlite.context.fetch(request)))
    }

    @Test func expressionDescriptionsRoundTripThroughCodable() throws {
        let properties: [FetchedProperty] = [try Self.yearly(), "firstName"]
        let decoded = try JSONDecoder().decode([FetchedProperty].self, from: try JSONEncoder().encode(properties))
        #expect(decoded == properties)
        #expect(try Self.yearly().description == "months = age * 12")
    }

    @Test func unknownKeysInExpressionsAreRefused() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [.expression(try ExpressionDescription(name: "x", format: "agee * 2", resultType: .integer64))]
        #expect(throws: QuireError.self) { try library.context.fetch(request) }
    }
}
