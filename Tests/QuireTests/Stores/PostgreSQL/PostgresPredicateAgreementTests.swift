// Runs the shared predicate compiler's PostgreSQL dialect over the SQLite agreement cases: uses QuireCore's and
// QuireStores' package API.
import Foundation
import Testing

import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// The SQLite agreement cases (``SQLitePredicateAgreementTests``) over the same library in a PostgreSQL store:
/// every fetch answers what the in-memory evaluator answers, but for one known difference: Swift compares text
/// by grapheme clusters, so "\r\n" is one character in memory and two in PostgreSQL's SQL (the SQLite store
/// calls Swift's own code and has no such difference).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresPredicateAgreementTests {
    /// The cases on ANN's nickname "line1\r\nline2" that differ for that reason.
    static let graphemeCases: Set<String> = ["nickname BEGINSWITH %@", "nickname LIKE 'line1?line2'", "nickname LIKE 'line1??line2'"]

    @Test func everyCaseAgrees() throws {
        let library = try LibraryFixture(postgres: PostgresTestServer.storeURL())
        let cases = SQLitePredicateAgreementTests.cases(library)
        var all: [String: [ManagedObject]] = [:]
        for entity in ["Author", "Publication", "Address", "Tag"] {
            all[entity] = try library.context.fetch(FetchRequest<ManagedObject>(entityName: entity))
        }
        let model = library.coordinator.managedObjectModel
        var compiled = 0
        for item in cases {
            guard let predicate = try? QueryPredicate(format: item.format, argumentArray: item.arguments),
                let entity = model.entitiesByName[item.entity]
            else { continue }
            if library.store.backend.canEvaluate(predicate, for: entity) { compiled += 1 }
            guard let memory = try? LibraryFixture.names((all[item.entity] ?? []).filter({ try predicate.evaluate(with: $0) })) else {
                continue
            }
            let request = FetchRequest<ManagedObject>(entityName: item.entity)
            request.predicate = predicate
            do {
                let fetched = LibraryFixture.names(try library.context.fetch(request))
                if Self.graphemeCases.contains(item.format) {
                    #expect(fetched != memory, "\(item.format) agrees now: remove it from graphemeCases")
                    continue
                }
                #expect(fetched == memory, "\(item.format): PostgreSQL \(fetched), memory \(memory)")
                #expect(try library.context.count(for: request) == memory.count, "\(item.format): count")
            } catch {
                Issue.record("\(item.format) fails in PostgreSQL: \(error)")
            }
        }
        #expect(compiled >= 150)
    }
}
