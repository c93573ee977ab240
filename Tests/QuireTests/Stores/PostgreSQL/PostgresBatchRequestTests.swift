import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores

/// Batch requests on a PostgreSQL store: the same requests and outcomes as on the other stores
/// (``BatchRequestTests``), run as one statement where one statement is right, with the chunked external values
/// of deleted rows removed and the changed records announced to other coordinators.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBatchRequestTests {
    private let shared = BatchRequestTests()

    @Test func theRequestsOfEveryStoreType() throws {
        try shared.batchDeleteByPredicateDeletesInTheStore(type: .postgres)
        try shared.batchDeleteOfASubEntityLeavesTheOthers(type: .postgres)
        try shared.batchDeleteByObjectIDsAndMergeRemovesObjectsFromContexts(type: .postgres)
        try shared.batchDeleteNullifiesTheInverseOfSurvivors(type: .postgres)
        try shared.batchDeleteRefusesADenyRuleAndAMandatoryInverse(type: .postgres)
        try shared.batchUpdateSetsConstantsAndCopiesAttributes(type: .postgres)
        try shared.batchUpdateRefusesRelationshipsAndMismatchedValues(type: .postgres)
        try shared.batchInsertFromDictionariesAndAHandler(type: .postgres)
    }

    /// The chunk rows a store holds, read by a connection of the test's own.
    private func chunkCount(_ url: URL) throws -> Int64 {
        let connection = try PostgresConnection(url: PostgresURL(url))
        defer { connection.close() }
        return try connection.query("SELECT COUNT(*) FROM z_externaldata").int64(0, 0)
    }

    @Test func aDeleteOfOneTableRemovesTheChunksOfItsRows() throws {
        let stack = try BatchRequestTests.Stack(.postgres)
        try stack.seed()
        let url = try #require(stack.url)
        #expect(try chunkCount(url) >= 1)
        // Employees have no relationship a delete rule must follow: one DELETE … RETURNING removes them.
        let fetch = FetchRequest<ManagedObject>(entityName: "Employee")
        fetch.predicate = try QueryPredicate(format: "salary <= 4")
        let request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(try #require(result.objectIDs).count == 4)
        #expect(try stack.storedSalaries() == [5, 6, 7, 8, 9, 10])
        #expect(try chunkCount(url) == 0)
    }

    @Test func anUpdateIsAnnouncedToAnotherCoordinator() throws {
        let stack = try BatchRequestTests.Stack(.postgres)
        try stack.seed()
        let url = try #require(stack.url)
        let other = try PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        try other.addPersistentStore(type: .postgres, at: url)
        let received = PostgresNotificationTests.Received()
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStore.remoteChangeNotification, object: other, queue: nil
        ) { notification in
            if let changes = ContextDidSave.remoteChange(notification) { received.add(changes) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let request = BatchUpdateRequest(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "salary >= 9")
        request.propertiesToUpdate = ["bonus": Int64(5)]
        request.resultType = .objectIDs
        let ids = try #require(try stack.context.execute(request).objectIDs)
        #expect(ids.count == 2)
        let deadline = Date().addingTimeInterval(10)
        while received.all.isEmpty && Date() < deadline { usleep(10_000) }
        let changes = try #require(received.all.first, "no notification within 10 s")
        #expect(Set(changes.updatedObjectIDs.map { $0.uriRepresentation() }) == Set(ids.map { $0.uriRepresentation() }))
        #expect(changes.insertedObjectIDs.isEmpty && changes.deletedObjectIDs.isEmpty)
    }
}
