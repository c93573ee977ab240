import Foundation
import Testing

import Quire

/// Fetches with expression functions give the same objects on every store type: the function cases of the
/// SQLite agreement suite, fetched from XML, binary and in-memory stores (XML and binary reopened from their
/// files), against what the SQLite store's SQL answers.
@Suite struct ExpressionFunctionStoreTests {
    @Test(arguments: [StoreType.xml, .binary, .inMemory]) func functionFetchesAgreeWithSQLite(_ type: StoreType) throws {
        let sqlite = try LibraryFixture()
        let other = try LibraryFixture(type: type)
        var context = other.context
        if type != .inMemory, let url = other.store.url {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: other.coordinator.managedObjectModel)
            try coordinator.addPersistentStore(type: type, at: url)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
        }
        var nonEmpty = 0
        for item in SQLitePredicateAgreementTests.functionCases() where !item.format.contains("random") {
            let predicate = try QueryPredicate(format: item.format, argumentArray: item.arguments)
            let request = FetchRequest<ManagedObject>(entityName: item.entity)
            request.predicate = predicate
            let expected = LibraryFixture.names(try sqlite.context.fetch(request))
            let fetched = try context.performAndWait { LibraryFixture.names(try context.fetch(request)) }
            #expect(fetched == expected, "\(type) \(item.format): \(fetched), SQLite \(expected)")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty >= 60)
    }

    @Test(arguments: [StoreType.sqlite, .xml, .binary, .inMemory]) func refusedFunctionsThrowTypedErrors(_ type: StoreType) throws {
        let library = try LibraryFixture(type: type)
        for format in ["distanceToLocation:fromLocation:(age, rating) < 10", "abs:(firstName) > 1", "lowercase:(age) == 'a'"] {
            let request = FetchRequest<ManagedObject>(entityName: "Author")
            request.predicate = try QueryPredicate(format: format)
            do {
                _ = try library.context.fetch(request)
                Issue.record("\(type) \(format) fetched")
            } catch let error as QuireError {
                #expect(error.code == .predicateEvaluation, "\(type) \(format): \(error)")
            }
        }
    }

    @Test func functionFetchesFindTheRightObjects() throws {
        let library = try LibraryFixture()
        func names(_ format: String) throws -> [String] {
            let request = FetchRequest<ManagedObject>(entityName: "Author")
            request.predicate = try QueryPredicate(format: format)
            return LibraryFixture.names(try library.context.fetch(request))
        }
        #expect(try names("age * 2 > 80") == ["ANN", "Ann", "Émile"])
        #expect(try names("age / 2 == 17") == ["Chloé"])
        #expect(try names("lowercase:(firstName) == 'émile'") == ["Émile"])
        #expect(try names("uppercase:(lastName) == 'ÅNGSTRÖM'") == ["Chloé"])
        #expect(try names("modulus:by:(age, 2) == 1") == ["ANN", "Ann", "Bob", "Chloé"])
        #expect(try names("born > now() - 1300000000") == ["Bob", "Chloé"])
        #expect(try names("median:(publications.year) > 2018") == ["Ann", "Bob", "Zoë"])
        #expect(try names("abs:(balance) > 3") == ["Ann", "Émile"])
    }
}
