import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// The PostgreSQL store against the test server: its errors, what it never reveals, a connection lost in the
/// middle of a save, and many processes writing the same objects.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresStoreTests {
    private func stack(_ url: URL, model: ManagedObjectModel = Fixtures.companyModel(), options: StoreOptions = StoreOptions()) throws
        -> (PersistentStoreCoordinator, ManagedObjectContext)
    {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// A connection of the test's own, as the `quire` superuser, to the test server.
    private func admin() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(try #require(PostgresTestServer.storeURL(schema: "public"))))
    }

    private func addError(_ url: URL, options: StoreOptions = StoreOptions(), model: ManagedObjectModel = Fixtures.companyModel()) throws -> QuireError {
        try #require(throws: QuireError.self) { _ = try stack(url, model: model, options: options) }
    }

    @Test func aServerThatIsDownIsReportedAsSuch() throws {
        let folder = try TemporaryFolder()
        let url = try #require(URL(string: "postgresql://quire@/postgres?host=\(folder.url.path)&port=1&schema=s"))
        let error = try addError(url)
        #expect(error.code == .postgresServerUnavailable)
        #expect(error.message.contains("cannot be reached"))
    }

    @Test func aWrongPasswordIsReportedAndNeverShown() throws {
        let role = "r_" + PostgresTestServer.freshSchema()
        try admin().execute("CREATE ROLE \(role) LOGIN PASSWORD 'right-secret'")
        let base = try #require(PostgresTestServer.baseURL)
        let url = try #require(URL(string: base.replacingOccurrences(of: "//quire@", with: "//\(role):wrong-secret@") + "&schema=s"))
        let error = try addError(url)
        #expect(error.code == .postgresAuthenticationFailed)
        #expect(!error.message.contains("wrong-secret"))
        #expect(!"\(error)".contains("wrong-secret"))
        // With the right password the store opens, and its metadata holds no trace of the password.
        try admin().execute("GRANT CREATE ON DATABASE postgres TO \(role)")
        let good = try #require(URL(string: base.replacingOccurrences(of: "//quire@", with: "//\(role):right-secret@") + "&schema=\(role)"))
        let (coordinator, _) = try stack(good)
        let store = try #require(coordinator.persistentStores.first)
        #expect(!"\(store.metadata)".contains("right-secret"))
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .postgres, at: good)
        #expect(!"\(metadata)".contains("right-secret"))
    }

    @Test func aMissingDatabaseIsReportedAsSuch() throws {
        let base = try #require(PostgresTestServer.baseURL)
        let url = try #require(URL(string: base.replacingOccurrences(of: "/postgres?", with: "/no_such_database?") + "&schema=s"))
        #expect(try addError(url).code == .postgresDatabaseMissing)
    }

    @Test func aMissingSchemaIsCreatedOrReportedWhenReadOnly() throws {
        let url = try #require(PostgresTestServer.storeURL())
        var options = StoreOptions()
        options.isReadOnly = true
        #expect(try addError(url, options: options).code == .postgresSchemaMissing)
        // Not read-only: the schema and the store are created, as a missing SQLite file is.
        _ = try stack(url)
        let (coordinator, _) = try stack(url, options: options)
        #expect(coordinator.persistentStores.first?.isReadOnly == true)
    }

    @Test func aSchemaWrittenByAnotherModelIsRefused() throws {
        let url = try #require(PostgresTestServer.storeURL())
        _ = try stack(url)
        let error = try addError(url, model: Fixtures.everyTypeModel())
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.contains("incompatible model"))
        // Named by the schema and database the URL gives, not by the URL's path.
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        #expect(error.message.contains("The store '\(schema)' in the PostgreSQL database 'postgres'"), "\(error.message)")
        #expect(!error.message.contains("'/postgres'"))
    }

    @Test func aConnectionKilledMidSaveLosesNothingAndReconnects() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let schema = try PostgresURL(url).schema
        let (_, context) = try stack(url)
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
        let ada = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
        ada.setValue("Ada", forKey: "name")
        try context.save()

        // Another session holds Ada's row, so the save below waits inside its transaction (after its insert)
        // until its connection is ended.
        let blocker = try admin()
        try blocker.execute("BEGIN")
        try blocker.execute("SELECT * FROM \"\(schema)\".zemployee FOR UPDATE")
        ada.setValue("Ada Lovelace", forKey: "name")
        let bob = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
        bob.setValue("Bob", forKey: "name")
        let killer = Thread {
            guard let admin = try? PostgresConnection(url: PostgresURL(PostgresTestServer.storeURL(schema: "public") ?? URL(fileURLWithPath: "/"))) else { return }
            for _ in 0..<500 {
                let waiting = try? admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE%zemployee%'")
                if let waiting, waiting.count > 0 { return }
                usleep(10_000)
            }
        }
        killer.start()
        let error = try #require(throws: QuireError.self) { try context.save() }
        try blocker.execute("ROLLBACK")
        #expect(error.code == .postgresConnectionLost)
        #expect(error.message.contains("was lost"))
        // The context keeps its changes; the database is as before the save.
        #expect(context.hasChanges)
        #expect(ada.value(forKey: "name") as? String == "Ada Lovelace")
        let check = try admin()
        #expect(try check.execute("SELECT zname FROM \"\(schema)\".zemployee ORDER BY z_pk").count == 1)
        #expect(try check.execute("SELECT zname FROM \"\(schema)\".zemployee").string(0, 0) == "Ada")
        // The next request reconnects, and the same changes save.
        try context.save()
        let (_, fresh) = try stack(url)
        let names = try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == ["Ada Lovelace", "Bob"])
    }
}
