// Counts the SQL statements prefetching runs on the SQLite store's connection, which has no public face: uses QuireCore's and QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

extension BatchedFetchTests {
    /// A second, cold stack on the library's store, and its store's statement counter.
    static func coldStack(_ library: LibraryFixture) throws -> (ManagedObjectContext, () -> Int) {
        let (coordinator, context) = try Fixtures.stack(LibraryFixture.model(), at: library.folder.file("Library.sqlite"))
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        return (context, { store.connection?.statementCount ?? 0 })
    }

    @Test func prefetchedRelationshipsReadNoStore() throws {
        let library = try LibraryFixture()
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        request.sortDescriptors = [SortKey("title")]

        // Without prefetching, following the relationships reads the store object by object.
        let (plainContext, plainCount) = try Self.coldStack(library)
        let plain = try plainContext.fetch(request)
        let plainBefore = plainCount()
        let expected = Self.walk(plain)
        #expect(plainCount() - plainBefore > 10)

        request.relationshipKeyPathsForPrefetching = ["mainAuthor", "reviews", "mainAuthor.address", "mainAuthor.tags"]
        let (context, count) = try Self.coldStack(library)
        let start = count()
        let publications = try context.fetch(request)
        // The fetch, then one batched request per relationship level.
        #expect(count() - start <= 7)
        let before = count()
        #expect(Self.walk(publications) == expected)
        #expect(count() == before)

        // Batched results prefetch each batch.
        let (batchedContext, batchedCount) = try Self.coldStack(library)
        request.fetchBatchSize = 3
        let batched = try batchedContext.fetchBatched(request)
        var walked: [String] = []
        for index in batched.indices {
            let item = batched[index]
            let beforeItem = batchedCount()
            walked += Self.walk([item])
            #expect(batchedCount() == beforeItem)
        }
        #expect(walked == expected)
    }
}
