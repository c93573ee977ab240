// Reaches the PostgreSQL store's backend (its fetch-plan statistics and connection) through QuireStores' package API.
import Foundation
import Testing

import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// Saves whose rows go in one libpq pipeline, and fetches whose SQL and prepared statements come from the
/// store's fetch-plan cache, against the test server.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresPipelineTests {
    private func stack(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext, PostgresStore) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let backend = try #require(coordinator.persistentStores.first?.backend as? PostgresStore)
        return (coordinator, context, backend)
    }

    private func admin() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(try #require(PostgresTestServer.storeURL(schema: "public"))))
    }

    private func names(_ url: URL) throws -> [String] {
        let (_, context, _) = try stack(url)
        return try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    /// A row the server refuses in the middle of a pipelined save (a CHECK constraint a database administrator
    /// added, far past the first window of statements) fails the whole save: the error names the object and the
    /// constraint, the database keeps what it held before, the context its changes, and the connection works on.
    @Test func aRowRefusedInThePipelineFailsTheSaveNamingItsObject() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let schema = try PostgresURL(url).schema
        let (_, context, _) = try stack(url)
        let employee = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Employee"])
        let ada = ManagedObject(entity: employee, insertInto: context)
        ada.setValue("Ada", forKey: "name")
        try context.save()
        try admin().execute("ALTER TABLE \"\(schema)\".zemployee ADD CONSTRAINT no_refused_names CHECK (zname <> 'refused')")

        ada.setValue("Ada Lovelace", forKey: "name")
        var refused: ManagedObject?
        for index in 0..<1_000 {
            let object = ManagedObject(entity: employee, insertInto: context)
            object.setValue(index == 700 ? "refused" : "e\(index)", forKey: "name")
            if index == 700 { refused = object }
        }
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .postgres)
        #expect(error.message.contains("inserting the Employee with z_pk"), "\(error.message)")
        // The 1,000 inserts go as one COPY: the row is named from the line the server reports, not as a range.
        #expect(!error.message.contains("rows in one statement"), "\(error.message)")
        #expect(error.message.contains("no_refused_names"), "\(error.message)")
        #expect(context.hasChanges)
        #expect(try names(url) == ["Ada"])

        // The same connection takes the corrected save.
        refused?.setValue("accepted", forKey: "name")
        try context.save()
        let saved = try names(url)
        #expect(saved.count == 1_001)
        #expect(saved.contains("accepted") && saved.contains("Ada Lovelace") && saved.contains("e999"))
    }

    /// Text holding U+0000 is refused, not cut short at the NUL (libpq reads a text parameter up to its first NUL,
    /// and PostgreSQL's text cannot hold one): the save fails naming the object, and nothing is written.
    @Test func textHoldingANulIsRefusedNotCutShort() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (_, context, _) = try stack(url)
        let employee = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Employee"])
        let plain = ManagedObject(entity: employee, insertInto: context)
        plain.setValue("plain", forKey: "name")
        let object = ManagedObject(entity: employee, insertInto: context)
        object.setValue("before\u{0}after", forKey: "name")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message.contains("NUL character"), "\(error.message)")
        #expect(error.message.contains("inserting the Employee with z_pk"), "\(error.message)")
        #expect(try names(url) == [])
        #expect(context.hasChanges)
    }

    /// Updates in the pipeline still check `Z_OPT`: a row another coordinator changed is a conflict, and
    /// nothing of the save is written.
    @Test func pipelinedUpdatesFindConflicts() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (_, context, _) = try stack(url)
        let employee = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Employee"])
        let objects = (0..<300).map { index -> ManagedObject in
            let object = ManagedObject(entity: employee, insertInto: context)
            object.setValue("e\(index)", forKey: "name")
            return object
        }
        try context.save()
        let (_, other, _) = try stack(url)
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "name == %@", "e299")
        let theirs = try #require(try other.fetch(request).first)
        theirs.setValue("changed elsewhere", forKey: "name")
        try other.save()

        for object in objects { object.setValue((object.value(forKey: "name") as? String ?? "") + "!", forKey: "name") }
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectMerge)
        let saved = try names(url)
        #expect(saved.contains("changed elsewhere") && saved.contains("e0") && !saved.contains("e0!"))
    }

    /// Fetches of one shape compile once and reuse their prepared statement; after the connection is lost, the
    /// plan's statement is prepared again on the new connection (another statement has the old name there).
    @Test func fetchPlansAreReusedAndNeverCrossAConnection() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (_, context, store) = try stack(url)
        let employee = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Employee"])
        for index in 0..<20 {
            let object = ManagedObject(entity: employee, insertInto: context)
            object.setValue("e\(index)", forKey: "name")
            object.setValue(Int64(index), forKey: "salary")
        }
        try context.save()
        func fetch(_ name: String) throws -> [Int64] {
            let request = FetchRequest<ManagedObject>(entityName: "Employee")
            request.predicate = try QueryPredicate(format: "name == %@", name)
            return try context.fetch(request).compactMap { $0.value(forKey: "salary") as? Int64 }
        }
        #expect(try fetch("e3") == [3])
        let compilations = store.fetchCompilations
        for index in 4..<10 { #expect(try fetch("e\(index)") == [Int64(index)]) }
        #expect(store.fetchCompilations == compilations)

        let old = try store.db()
        try admin().execute("SELECT pg_terminate_backend(\(old.backendPID))")
        // The request that finds the connection gone reports it; the next one reconnects.
        #expect(throws: QuireError.self) { _ = try fetch("e11") }
        let fresh = try store.db()
        #expect(fresh !== old)
        // Another statement takes the new connection's first names.
        _ = try fresh.query("SELECT z_pk FROM zemployee WHERE zsalary = $1::BIGINT", [.integer(2)])
        #expect(try fetch("e12") == [12])
        #expect(try fetch("e13") == [13])
        #expect(store.fetchCompilations == compilations)
    }
}
