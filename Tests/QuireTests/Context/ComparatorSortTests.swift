import Foundation
import Testing

import Quire

/// Sort keys with Swift comparators (`NSSortDescriptor(key:ascending:comparator:)`, `SortComparator`): stores
/// fetch unsorted, the context sorts in memory, then applies the offset and the limit.
@Suite struct ComparatorSortTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Orders names by length, then by their UTF-8 bytes; nil first.
    static let byLength = SortKey("firstName") { a, b in
        let x = a as? String
        let y = b as? String
        switch (x, y) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (let x?, let y?):
            if x.count != y.count { return x.count < y.count ? .orderedAscending : .orderedDescending }
            return x == y ? .orderedSame : (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? .orderedAscending : .orderedDescending)
        }
    }

    static func firstNames(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "firstName") as? String ?? "nil" }
    }

    @Test(arguments: types) func aClosureComparatorSortsThenLimits(_ type: StoreType) throws {
        let library = try LibraryFixture(type: type)
        let context = library.context
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Author")
            request.sortDescriptors = [Self.byLength, SortKey("age")]
            #expect(Self.firstNames(try context.fetch(request)) == ["ANN", "Ann", "Bob", "Zoë", "dan", "Chloé", "Émile"])
            request.fetchOffset = 1
            request.fetchLimit = 3
            #expect(Self.firstNames(try context.fetch(request)) == ["Ann", "Bob", "Zoë"])
            #expect(try context.count(for: request) == 3)
            request.sortDescriptors = [Self.byLength.reversed]
            request.fetchOffset = 0
            request.fetchLimit = 2
            #expect(Self.firstNames(try context.fetch(request)) == ["Émile", "Chloé"])
            // With a predicate the store evaluates, and with unsaved objects.
            request.predicate = try QueryPredicate(format: "age > 30")
            request.fetchLimit = 0
            let inserted = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Author"]), insertInto: context)
            inserted.setValue("Maximilian", forKey: "firstName")
            inserted.setValue(60, forKey: "age")
            #expect(Self.firstNames(try context.fetch(request)) == ["Maximilian", "Émile", "Chloé", "Ann", "ANN"])
            let ids = FetchRequest<ObjectID>(entityName: "Author")
            ids.sortDescriptors = [Self.byLength]
            ids.fetchLimit = 1
            #expect(try context.fetch(ids) == [try #require(library.authors["ANN"]).objectID])
        }
    }

    @Test(arguments: types) func sortComparatorsSortFetches(_ type: StoreType) throws {
        let library = try LibraryFixture(type: type)
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        var lexical = String.StandardComparator.lexical
        lexical.order = .reverse
        request.sortDescriptors = [SortKey("title", using: lexical)]
        request.fetchLimit = 3
        let titles = try library.context.fetch(request).map { $0.value(forKey: "title") as? String ?? "" }
        let all = ["Swift Patterns", "Data Stores", "The Art of SQL", "Über Datenbanken", "a*b?c\\d", "ÉCOLE des données", "zeta", "Orphan"]
        let expected = Array(all.sorted(using: lexical).prefix(3))
        #expect(titles == expected)
        #expect(request.sortDescriptors[0].ascending == false)

        let byKey = FetchRequest<ManagedObject>(entityName: "Publication")
        byKey.sortDescriptors = [SortKey(using: KeyPathComparator(\ManagedObject.objectID.primaryKey, order: .reverse))]
        let keys = try library.context.fetch(byKey).compactMap(\.objectID.primaryKey)
        #expect(keys.count == 8 && keys == keys.sorted(by: >))
    }

    @Test func dictionaryFetchesSortWithComparators() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<[String: Any]>(entityName: "Author")
        request.resultType = .dictionary
        request.propertiesToFetch = ["firstName"]
        request.sortDescriptors = [Self.byLength]
        request.fetchLimit = 2
        #expect(try library.context.fetch(request).map { $0["firstName"] as? String ?? "" } == ["ANN", "Ann"])
    }

    @Test func batchDeletesPickTheObjectsInMemory() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        request.sortDescriptors = [Self.byLength.reversed]
        request.fetchLimit = 2
        let delete = BatchDeleteRequest(fetchRequest: request)
        delete.resultType = .count
        #expect(try library.context.execute(delete).count == 2)
        let (_, reader) = try Fixtures.stack(library.coordinator.managedObjectModel, at: try #require(library.store.url))
        let left = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
        #expect(Set(Self.firstNames(left)) == ["ANN", "Ann", "Bob", "Zoë", "dan"])
    }

    @Test func customComparatorsAreNotEncodedAndCompareByIdentity() throws {
        let key = Self.byLength
        #expect(key == key && key.reversed.customComparator == key.customComparator)
        #expect(key != SortKey("firstName") { _, _ in .orderedSame })
        #expect(throws: EncodingError.self) { _ = try JSONEncoder().encode([key]) }
        let sorted = try [["n": "ccc"], ["n": "a"], ["n": "bb"]].sorted(by: [SortKey("n") { a, b in
            let x = (a as? String)?.count ?? 0
            let y = (b as? String)?.count ?? 0
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }])
        #expect(sorted.map { $0["n"] as? String } == ["a", "bb", "ccc"])
    }
}
