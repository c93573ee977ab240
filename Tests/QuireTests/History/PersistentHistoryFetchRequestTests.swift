import Foundation
import Testing

import Quire

/// History narrowed by fetch requests, as Apple's samples read it: `PersistentHistoryTransaction.fetchRequest` with
/// an author predicate set on a change request after a token, `fetchHistory(withFetchRequest:)`, and
/// `PersistentHistoryChange.fetchRequest` keeping some changes of each transaction.
@Suite struct PersistentHistoryFetchRequestTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Quake", properties: [AttributeDescription(name: "code", type: .string)]),
            EntityDescription(name: "Region", properties: [AttributeDescription(name: "name", type: .string)]),
        ])
    }

    /// Three saves: the app's (a quake and a region), an importer's (a quake), the app's again (the first quake
    /// changed, the region deleted).
    static func stack(_ type: StoreType, _ folder: TemporaryFolder) throws -> (ManagedObjectContext, ManagedObject) {
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(
            type: type, at: type == .inMemory ? nil : folder.file("History.\(type.rawValue.lowercased())"), options: options)
        let app = ManagedObjectContext()
        app.persistentStoreCoordinator = coordinator
        app.transactionAuthor = "app"
        let importer = ManagedObjectContext()
        importer.persistentStoreCoordinator = coordinator
        importer.transactionAuthor = "importer"
        let quake = EntityDescription.insertNewObject(forEntityName: "Quake", into: app)
        quake.setValue("q1", forKey: "code")
        let region = EntityDescription.insertNewObject(forEntityName: "Region", into: app)
        region.setValue("Pacific", forKey: "name")
        try app.save()
        EntityDescription.insertNewObject(forEntityName: "Quake", into: importer).setValue("q2", forKey: "code")
        try importer.save()
        quake.setValue("q1b", forKey: "code")
        app.delete(region)
        try app.save()
        return (app, quake)
    }

    @Test(arguments: types)
    func aTransactionFetchRequestKeepsTheTransactionsItsPredicateMatches(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let (context, _) = try Self.stack(type, folder)
        let others = try #require(PersistentHistoryTransaction.fetchRequest)
        others.predicate = try QueryPredicate(format: "author != %@", "app")
        let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: others))
        #expect(result.transactions?.map(\.author) == ["importer"])
        #expect(result.transactions?.first?.changes?.count == 1)

        // As Apple's sample does it: after a token, with the fetch request set on the change request.
        let all = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions)
        #expect(all.count == 3)
        let request = PersistentHistoryChangeRequest.fetchHistory(after: all[0].token)
        let mine = try #require(PersistentHistoryTransaction.fetchRequest)
        mine.predicate = try QueryPredicate(format: "author == %@ AND transactionNumber > %d", "app", 0)
        request.fetchRequest = mine
        request.resultType = .transactionsOnly
        let after = try #require(try context.execute(request).transactions)
        #expect(after.map(\.transactionNumber) == [all[2].transactionNumber])
        #expect(after.first?.changes == nil)

        // Limits and offsets apply to what the predicate kept; counts count it.
        let limited = try #require(PersistentHistoryTransaction.fetchRequest)
        limited.fetchOffset = 1
        limited.fetchLimit = 1
        #expect(try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: limited)).transactions?.map(\.author) == ["importer"])
        let counting = PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: others)
        counting.resultType = .count
        #expect(try context.execute(counting).count == 1)
    }

    @Test(arguments: types)
    func aChangeFetchRequestKeepsTheChangesItsPredicateMatches(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let (context, quake) = try Self.stack(type, folder)
        let inserts = try #require(PersistentHistoryChange.fetchRequest)
        inserts.predicate = try QueryPredicate(format: "changedEntity == %@ AND changeType == %d", "Quake", PersistentHistoryChangeType.insert.rawValue)
        let result = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: inserts)).transactions)
        // The third save inserted nothing: its transaction is left out; the others hold only their quake inserts.
        #expect(result.map(\.author) == ["app", "importer"])
        #expect(result.map { $0.changes?.count } == [1, 1])
        #expect(result[0].changes?.first?.changedObjectID == quake.objectID)

        let ofTheQuake = try #require(PersistentHistoryChange.fetchRequest)
        ofTheQuake.predicate = try QueryPredicate(format: "changedObjectID == %@", quake.objectID)
        let history = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: ofTheQuake)).transactions)
        #expect(history.flatMap { $0.changes ?? [] }.map(\.changeType) == [.insert, .update])

        // A key neither records has is an error, not an empty answer.
        let wrong = try #require(PersistentHistoryTransaction.fetchRequest)
        wrong.predicate = try QueryPredicate(format: "colour == 'red'")
        #expect(throws: QuireError.self) { try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: wrong)) }
    }
}
