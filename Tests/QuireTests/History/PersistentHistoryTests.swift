import Foundation
import Testing

import Quire

/// Persistent history in SQLite stores, in Core Data's own tables: what the file holds after saves and batch
/// requests, what history requests read back (also from a store Core Data wrote), deleting history, and
/// merging other contexts', coordinators' and processes' saves.
@Suite struct PersistentHistoryTests {
    static func trackingOptions() -> StoreOptions {
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        return options
    }

    struct Stack {
        let folder: TemporaryFolder
        let url: URL
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(tracking: Bool = true) throws {
            folder = try TemporaryFolder()
            url = folder.file("Staff.sqlite")
            coordinator = try PersistentStoreCoordinator(managedObjectModel: BatchRequestTests.model(employeesRule: .nullify))
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: tracking ? trackingOptions() : StoreOptions())
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            context.name = "editor"
            context.transactionAuthor = "writer"
        }

        func insertEmployee(_ name: String, salary: Int64) throws -> ManagedObject {
            let entity = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
            let employee = ManagedObject(entity: entity, insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(salary, forKey: "salary")
            return employee
        }
    }

    @Test func savesAreRecordedInCoreDatasHistoryTables() throws {
        let stack = try Stack()
        let ada = try stack.insertEmployee("Ada", salary: 10)
        let bob = try stack.insertEmployee("Bob", salary: 20)
        try stack.context.save()
        ada.setValue(Int64(11), forKey: "salary")
        try stack.context.save()
        stack.context.delete(bob)
        try stack.context.save()

        let raw = try RawSQLite(stack.url)
        // The tables and indexes exactly as Core Data creates them (compared with a store Core Data wrote).
        let corpus = try RawSQLite(try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"))
        let historySQL = "SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name"
        func text(_ rows: [[RawSQLite.Column]]) -> [String] { rows.map { String(decoding: $0[0].data, as: UTF8.self) } }
        #expect(text(try raw.rows(historySQL)) == text(try corpus.rows(historySQL)))
        #expect(text(try raw.rows("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")) == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        #expect(try raw.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT").map(\.[0].int64).prefix(2) == [4, 3])
        #expect(try raw.rows("SELECT ZCHANGETYPE, ZTRANSACTIONID, ZENTITYPK FROM ACHANGE ORDER BY Z_PK").map { $0.map(\.int64) }
            == [[0, 1, 1], [0, 1, 2], [1, 2, 1], [2, 3, 2]])
        #expect(text(try raw.rows(
            "SELECT s.ZNAME FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS")) == ["writer", "writer", "writer"])
        #expect(try raw.rows("SELECT COUNT(*) FROM ATRANSACTION WHERE Z_ENT = 16002 AND Z_OPT IS NULL AND ZTIMESTAMP > 0")[0][0].int64 == 3)

        // Read back through a history request.
        let result = try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
        let transactions = try #require(result.transactions)
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "writer" && $0.contextName == "editor" && $0.processID != nil })
        #expect(transactions.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.delete]])
        #expect(transactions[1].changes?.first?.updatedProperties == ["salary"])
        #expect(transactions[1].changes?.first?.changedObjectID == ada.objectID)

        // After a token; the token survives JSON; deleting up to it.
        let token = transactions[0].token
        let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: try JSONEncoder().encode(token))
        #expect(try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: decoded)).transactions?.count == 2)
        #expect(stack.coordinator.currentPersistentHistoryToken() == transactions[2].token)
        let deletion = PersistentHistoryChangeRequest.deleteHistory(before: transactions[1].token)
        deletion.resultType = .count
        #expect(try stack.context.execute(deletion).count == 2)
        #expect(try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.map(\.transactionNumber) == [3])
        #expect(try raw.rows("SELECT COUNT(*) FROM ACHANGE")[0][0].int64 == 1)
    }

    @Test func batchRequestsAreRecorded() throws {
        let stack = try Stack()
        // 20 inserts: consecutive keys, recorded by one statement over the run.
        for salary in 1...20 { _ = try stack.insertEmployee("e\(salary)", salary: Int64(salary)) }
        try stack.context.save()
        let update = BatchUpdateRequest(entityName: "Employee")
        update.propertiesToUpdate = ["bonus": 1]
        update.predicate = try QueryPredicate(format: "salary > 18")
        try stack.context.execute(update)
        let delete = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Employee"))
        try stack.context.execute(delete)
        let history = try #require(try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions)
        #expect(history.map { $0.changes?.count ?? 0 } == [20, 2, 20])
        #expect(Set(history[0].changes?.map(\.changedObjectID.primaryKey) ?? []) == Set((1...20).map { Int64?($0) }))
        #expect(history[0].changes?.allSatisfy { $0.changeType == .insert && $0.changedObjectID.entity.name == "Employee" } == true)
        #expect(history[1].changes?.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["bonus"] } == true)
        #expect(history[2].changes?.allSatisfy { $0.changeType == .delete } == true)
        let raw = try RawSQLite(stack.url)
        #expect(try raw.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001")[0][0].int64 == 42)
        #expect(try raw.rows("SELECT COUNT(DISTINCT Z_PK), MIN(Z_PK), MAX(Z_PK) FROM ACHANGE")[0].map(\.int64) == [42, 1, 42])
        #expect(try raw.rows("SELECT COUNT(*) FROM ACHANGE WHERE Z_ENT = 16001 AND Z_OPT IS NULL AND ZTRANSACTIONID = 1")[0][0].int64 == 20)
    }

    @Test func historyOfAStoreCoreDataWroteIsRead() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"), to: url)
        let model = try ManagedObjectModel.forStore(at: url, type: .sqlite).model
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let transactions = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions)
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
        #expect(transaction.processID == "xctest")
        #expect(transaction.author == nil)
        #expect(transaction.changes?.count == 5468)
        #expect(transaction.changes?.allSatisfy { $0.changeType == .insert } == true)
        // The objects by entity, as sqlite3 counts the ACHANGE rows by ZENTITY (Book 51, GraphicNovel 1, …).
        var byEntity: [String: Int] = [:]
        for change in transaction.changes ?? [] { byEntity[change.changedObjectID.entity.name, default: 0] += 1 }
        #expect(byEntity == ["Book": 51, "GraphicNovel": 1, "Feedback": 444, "Page": 4970, "Author": 2])
        // The changes name objects that are in the store.
        let page = try #require(transaction.changes?.first { $0.changedObjectID.entity.name == "Page" })
        #expect(try context.existingObject(with: page.changedObjectID).entity.name == "Page")
    }

    @Test func storesWithoutTrackingRefuseHistoryRequests() throws {
        let stack = try Stack(tracking: false)
        _ = try stack.insertEmployee("Ada", salary: 1)
        try stack.context.save()
        #expect(throws: QuireError.self) {
            try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
        }
        #expect(try RawSQLite(stack.url).rows("SELECT COUNT(*) FROM sqlite_master WHERE name = 'ATRANSACTION'")[0][0].int64 == 0)
    }

    @Test func contextsMergeSiblingSavesAutomatically() throws {
        let stack = try Stack(tracking: false)
        let ada = try stack.insertEmployee("Ada", salary: 1)
        try stack.context.save()
        let viewer = ManagedObjectContext()
        viewer.persistentStoreCoordinator = stack.coordinator
        viewer.automaticallyMergesChangesFromParent = true
        let seen = try viewer.performAndWait { try viewer.existingObject(with: ada.objectID) }
        #expect(viewer.performAndWait { seen.value(forKey: "salary") as? Int64 } == 1)
        ada.setValue(Int64(2), forKey: "salary")
        try stack.context.save()
        #expect(viewer.performAndWait { seen.value(forKey: "salary") as? Int64 } == 2)

        // A child context merges its parent's saves.
        let child = ManagedObjectContext()
        child.parent = viewer
        child.automaticallyMergesChangesFromParent = true
        let inChild = try child.performAndWait { try child.existingObject(with: ada.objectID) }
        #expect(child.performAndWait { inChild.value(forKey: "salary") as? Int64 } == 2)
        ada.setValue(Int64(3), forKey: "salary")
        try stack.context.save()
        viewer.performAndWait { seen.setValue("Ada L.", forKey: "name") }
        try viewer.performAndWait { try viewer.save() }
        #expect(child.performAndWait { inChild.value(forKey: "name") as? String } == "Ada L.")
    }

    @Test func anotherCoordinatorsSavesAreMergedFromHistory() throws {
        let stack = try Stack()
        let ada = try stack.insertEmployee("Ada", salary: 1)
        let bob = try stack.insertEmployee("Bob", salary: 2)
        try stack.context.save()

        let other = try PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        try other.addPersistentStore(type: .sqlite, at: stack.url, options: Self.trackingOptions())
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = other
        reader.transactionAuthor = "reader"
        let merger = PersistentHistoryMerger(context: reader, excludingAuthor: "reader")
        let fetch = FetchRequest<ManagedObject>(entityName: "Employee")
        fetch.sortDescriptors = [SortKey("salary")]
        let seen = try reader.fetch(fetch)
        #expect(seen.map { $0.value(forKey: "salary") as? Int64 } == [1, 2])

        ada.setValue(Int64(10), forKey: "salary")
        stack.context.delete(bob)
        try stack.context.save()
        #expect(try merger.mergeNewTransactions() == 1)
        #expect(seen[0].value(forKey: "salary") as? Int64 == 10)
        #expect(seen[1].managedObjectContext == nil)
        #expect(try merger.mergeNewTransactions() == 0)
    }
}
