import Foundation
import Testing

import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// Every SQLite store of the Core Data corpus (with its app's model where it has one, else its model cache)
/// converted into a PostgreSQL database: the database opens alone, with the model it embeds, holds the same object
/// graph, and comes back into an SQLite store that holds it too (the conversions of issue 27, item 4, into the
/// last output kind).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCorpusTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test(arguments: CorpusStore.oncePerStore) func aMacStoreGoesIntoTheDatabaseAndBack(_ corpus: CorpusStore) throws {
        let url = try corpus.copy(into: folder)
        let modelFile = try corpus.modelFileURL()
        let original = try ObjectGraphDump(storeAt: url, type: .sqlite, modelFile: modelFile)
        let database = try #require(PostgresTestServer.storeURL())
        do {
            let model = try corpus.model(for: url)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            var options = StoreOptions()
            options.isReadOnly = true
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let target = try coordinator.migratePersistentStore(store, to: database, type: .postgres)
            try coordinator.remove(target)
        }
        // Opened without the application's model: the database carries the one it was converted with.
        let (_, found) = try ManagedObjectModel.forStore(at: database, type: .postgres)
        #expect(found == .embedded)
        let converted = try ObjectGraphDump(storeAt: database, type: .postgres)
        #expect(converted.counts == original.counts)
        #expect(converted.differences(from: original).isEmpty, "\(converted.differences(from: original).prefix(3))")

        let back = folder.file("back.sqlite")
        do {
            let (model, _) = try ManagedObjectModel.forStore(at: database, type: .postgres)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: .postgres, at: database)
            let target = try coordinator.migratePersistentStore(store, to: back, type: .sqlite)
            // The migration takes the database's place in the coordinator, as in Core Data.
            try coordinator.remove(target)
        }
        #expect(try ObjectGraphDump(storeAt: back, type: .sqlite).differences(from: original).isEmpty)
    }
}
