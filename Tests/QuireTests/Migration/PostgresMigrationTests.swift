import Foundation
import QuireTestSupport
import Testing

import Quire
import QuirePostgres

/// The Journal's v1 store in a PostgreSQL schema of its own (written as SQLite, then moved there by Save As), with
/// what tests need to prove a migration left the schema as it was: a snapshot of the schema (its identity and
/// every row) and the list of schemas the store's name begins.
struct PostgresJournal {
    let journal: JournalFixture
    let url: URL
    let schema: String

    init(in folder: TemporaryFolder) throws {
        journal = try JournalFixture(in: folder)
        schema = PostgresTestServer.freshSchema()
        url = try #require(PostgresTestServer.storeURL(schema: schema))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[0])
        let store = try coordinator.addPersistentStore(type: .sqlite, at: journal.url)
        try coordinator.remove(try coordinator.migratePersistentStore(store, to: url, type: .postgres))
    }

    var versions: [ManagedObjectModel] { journal.versions }

    /// Opens the store with a version (0-based) and returns a context on it.
    func open(version: Int, options: StoreOptions = StoreOptions()) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[version])
        try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// Checks the schema holds the data as a version (2 or 3, 1-based) sees it, and closes it again.
    func expectVersion(_ version: Int) throws {
        let (coordinator, context) = try open(version: version - 1)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        #expect(versions[version - 1].isConfiguration(nil, compatibleWithStoreMetadata: try #require(coordinator.persistentStores.first).metadata))
        try context.performAndWait {
            if version == 2 { try journal.expectVersion2(context) } else { try journal.expectVersion3(context) }
        }
    }

    /// A connection to the server, outside any store's schema.
    static func admin() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(try #require(PostgresTestServer.storeURL(schema: "public"))))
    }

    /// The schemas whose names begin with the store's: the store's own, and any a migration made beside it.
    func schemas() throws -> [String] {
        let connection = try Self.admin()
        defer { connection.close() }
        let result = try connection.queryOnce(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1::TEXT) ORDER BY 1", [.text(schema)])
        return (0..<result.count).compactMap { result.string($0, 0) }
    }

    /// The schema as it is: its object identifier (a schema swapped in has another), its tables with their columns,
    /// every row of every table as text, and its sequences' positions.
    func snapshot() throws -> [String] {
        let connection = try Self.admin()
        defer { connection.close() }
        var lines: [String] = []
        let oid = try connection.queryOnce("SELECT oid::TEXT FROM pg_namespace WHERE nspname = $1::TEXT", [.text(schema)])
        lines.append("schema oid \(oid.count == 1 ? oid.string(0, 0) ?? "" : "none")")
        let columns = try connection.queryOnce(
            "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1::TEXT "
                + "ORDER BY table_name, ordinal_position", [.text(schema)])
        var tables: [String] = []
        for row in 0..<columns.count {
            let table = columns.string(row, 0) ?? ""
            if tables.last != table { tables.append(table) }
            lines.append("column \(table).\(columns.string(row, 1) ?? "") \(columns.string(row, 2) ?? "")")
        }
        for table in tables {
            let rows = try connection.queryOnce(
                "SELECT coalesce(string_agg(t::TEXT, E'\\n' ORDER BY t::TEXT), '') FROM \"\(schema)\".\"\(table)\" t")
            lines.append("rows of \(table):\n\(rows.string(0, 0) ?? "")")
        }
        let sequences = try connection.queryOnce(
            "SELECT sequencename, coalesce(last_value, 0) FROM pg_sequences WHERE schemaname = $1::TEXT ORDER BY 1", [.text(schema)])
        for row in 0..<sequences.count { lines.append("sequence \(sequences.string(row, 0) ?? "") at \(sequences.int64(row, 1))") }
        #expect(tables.contains("z_metadata"), "the snapshot found no store in \(schema)")
        return lines
    }

    /// Checks the store is byte for byte what `snapshot` recorded, opens with v1 with its data, and that no other
    /// schema is left beside it.
    func expectUnchanged(since before: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try snapshot() == before, sourceLocation: sourceLocation)
        #expect(try schemas() == [schema], "left over beside the store", sourceLocation: sourceLocation)
        let (coordinator, context) = try open(version: 0)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        try context.performAndWait {
            let entries = try JournalFixture.objects("Entry", by: "title", in: context)
            #expect(entries.count == JournalFixture.entryCount, sourceLocation: sourceLocation)
            for i in 0..<JournalFixture.entryCount {
                #expect(entries["Entry \(i)"]?.value(forKey: "mood") as? Int16 == JournalFixture.mood(i), sourceLocation: sourceLocation)
                #expect(entries["Entry \(i)"]?.value(forKey: "photo") as? Data == JournalFixture.photo(i), sourceLocation: sourceLocation)
            }
        }
    }
}

/// Migration of stores in PostgreSQL schemas, on the real server: every path a store file migrates by (inferred,
/// mapping model, progressive, staged, automatic through the store options, into or out of another store type)
/// builds the new version in a schema beside the store's and swaps it in with one transaction; a failure or a
/// cancellation leaves the store's schema as it was and no other schema behind, and a store open elsewhere is
/// refused.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresMigrationTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    // MARK: Each path

    /// What used to be refused ("is not a file"): adding a schema of an earlier version with the automatic
    /// options, or with a staged migration, migrates it.
    @Test(arguments: ["automatic", "staged"])
    func addingASchemaOfAnEarlierVersionMigratesIt(_ path: String) throws {
        let store = try PostgresJournal(in: folder)
        var options = StoreOptions()
        if path == "automatic" {
            options.migratesAutomatically = true
            options.infersMappingModel = true
        } else {
            let (v1, v2) = (store.versions[0], store.versions[1])
            options.stagedMigrationManager = StagedMigrationManager([LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])])
        }
        let (coordinator, context) = try store.open(version: 1, options: options)
        try context.performAndWait { try store.journal.expectVersion2(context) }
        for added in coordinator.persistentStores { try coordinator.remove(added) }
        #expect(try store.schemas() == [store.schema])
        try store.expectVersion(2)
    }

    @Test func aManagerMigratesASchemaInPlaceWithAnInferredMapping() throws {
        let store = try PostgresJournal(in: folder)
        let identity = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .postgres, at: store.url)[StoreMetadataKey.storeUUID]
        let progress = LockedBox<[MigrationProgress.Phase]>([])
        let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
        manager.batchSize = 5
        manager.progressHandler = { report in progress.mutate { $0.append(report.phase) } }
        try manager.migrateStore(at: store.url, type: .postgres)
        #expect(progress.value.last == .finished)
        #expect(try store.schemas() == [store.schema])
        try store.expectVersion(2)
        // In place, the store keeps its identity, as a store file does.
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .postgres, at: store.url)[StoreMetadataKey.storeUUID] == identity)
    }

    @Test func progressiveMigrationCrossesTwoVersions() throws {
        let store = try PostgresJournal(in: folder)
        let stages = LockedBox<Set<Int>>([])
        #expect(try MigrationManager.migrateStore(at: store.url, type: .postgres, versions: store.versions) { progress in
            stages.mutate { $0.insert(progress.stage) }
        })
        #expect(stages.value == [1, 2])
        #expect(try store.schemas() == [store.schema])
        try store.expectVersion(3)
        #expect(try !MigrationManager.migrateStore(at: store.url, type: .postgres, versions: store.versions))
    }

    /// Core Data's manager takes any store type on either side: into a schema from a file, and out of one into a file.
    @Test func aManagerMigratesBetweenAFileAndASchema() throws {
        let store = try PostgresJournal(in: folder)
        // PostgreSQL v1 → SQLite v2: the schema is left as it was.
        let before = try store.snapshot()
        let file = folder.file("FromPostgres.sqlite")
        try MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
            .migrateStore(from: store.url, type: .postgres, to: file, type: .sqlite)
        try store.expectUnchanged(since: before)
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: store.versions[1])
            try coordinator.addPersistentStore(type: .sqlite, at: file)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait { try store.journal.expectVersion2(context) }
            for added in coordinator.persistentStores { try coordinator.remove(added) }
        }
        // SQLite v1 (with external data files) → a new schema at v2, which did not exist.
        let schema = PostgresTestServer.freshSchema()
        let target = try #require(PostgresTestServer.storeURL(schema: schema))
        try MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
            .migrateStore(from: store.journal.url, type: .sqlite, to: target, type: .postgres)
        try store.journal.expectVersion1Intact()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: store.versions[1])
        try coordinator.addPersistentStore(type: .postgres, at: target)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try store.journal.expectVersion2(context) }
        for added in coordinator.persistentStores { try coordinator.remove(added) }
        // A second pass into the same schema adds to it, as Core Data's manager does with a destination that exists.
        try MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
            .migrateStore(from: store.url, type: .postgres, to: target, type: .postgres)
        let again = try PersistentStoreCoordinator(managedObjectModel: store.versions[1])
        try again.addPersistentStore(type: .postgres, at: target)
        let recount = ManagedObjectContext()
        recount.persistentStoreCoordinator = again
        #expect(try recount.performAndWait { try recount.count(for: FetchRequest<ManagedObject>(entityName: "Entry")) } == 2 * JournalFixture.entryCount)
        for added in again.persistentStores { try again.remove(added) }
        try store.expectUnchanged(since: before)
    }

    /// Staged migration with a lightweight and a custom stage, the handlers running with the container open on the
    /// copy of the schema being migrated.
    @Test func stagesWithHandlersRunOnACopyOfTheSchema() throws {
        let store = try PostgresJournal(in: folder)
        let seen = StagedMigrationTests.Seen()
        var options = StoreOptions()
        options.stagedMigrationManager = try StagedMigrationTests.manager(store.versions, seen: seen)
        let (coordinator, context) = try store.open(version: 2, options: options)
        #expect(seen.events == ["will: 24 entries at v2", "did: 24 entries at v3"])
        try context.performAndWait {
            let entries = try JournalFixture.objects("Entry", by: "title", in: context)
            #expect(entries.count == JournalFixture.entryCount)
            for i in 0..<JournalFixture.entryCount {
                let entry = try #require(entries["Entry \(i)"])
                let tags = Set(((entry.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String })
                #expect(tags == JournalFixture.tags(i).union(["mood \(JournalFixture.mood(i))"]), "tags of Entry \(i)")
                #expect((entry.value(forKey: "place") as? ManagedObject)?.value(forKey: "name") as? String == "Home")
                #expect(entry.value(forKey: "photo") as? Data == JournalFixture.photo(i))
            }
        }
        for added in coordinator.persistentStores { try coordinator.remove(added) }
        #expect(try store.schemas() == [store.schema])
    }

    @Test func aFailingStageHandlerLeavesTheSchemaAsItWas() throws {
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        let seen = StagedMigrationTests.Seen()
        var options = StoreOptions()
        options.stagedMigrationManager = try StagedMigrationTests.manager(store.versions, seen: seen, failing: true)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: store.versions[2])
        let error = expectError(.migration) { try coordinator.addPersistentStore(type: .postgres, at: store.url, options: options) }
        #expect(error?.message.contains("The did-migrate handler of the migration stage 'v2 to v3' failed") == true, "\(error?.message ?? "")")
        #expect(seen.events.count == 2)
        try store.expectUnchanged(since: before)
    }

    // MARK: Moody through its mapping models

    /// objc.io's Moody, version 1 in a schema, brought to version 6 through the app's four mapping models and its
    /// policy, as the file tests bring it (MoodyMigrationTests): by the manager, and by adding it with the options.
    @Test(arguments: ["manager", "automatic"])
    func moodyMigratesToVersion6InsideTheServer(_ path: String) throws {
        let moody = try MoodyMigrationTests()
        let versions = try MoodyMigrationTests.versions()
        let sqlite = try MappingModelFixtures.moodyStore(1, in: folder)
        let url = try #require(PostgresTestServer.storeURL())
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[0])
            let store = try coordinator.addPersistentStore(type: .sqlite, at: sqlite)
            try coordinator.remove(try coordinator.migratePersistentStore(store, to: url, type: .postgres))
        }
        #expect(try MigrationManager.storeNeedsMigration(at: url, type: .postgres, to: versions[5]))
        let mappings = folder.url.appendingPathComponent("Migrations")
        try MappingModelFixtures.install(["Moody 2-Moody 3", "Moody 3-Moody 4", "Moody 4-Moody 5", "Moody 5-Moody 6"], in: mappings)
        if path == "manager" {
            #expect(try MigrationManager.migrateStore(at: url, type: .postgres, versions: versions, mappingModelURLs: [mappings]))
        } else {
            var options = StoreOptions()
            options.migratesAutomatically = true
            options.infersMappingModel = true
            options.mappingModelURLs = [mappings]
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[5])
            let store = try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
            try coordinator.remove(store)
        }
        try moody.expectData(of: 6, at: url)
    }

    // MARK: Nothing damaged

    /// A policy that throws at Entry 17, in the middle of the objects.
    final class Refusing: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            if sInstance.value(forKey: "title") as? String == "Entry 17" { throw QuireError(.migration, "Entry 17 cannot be migrated.") }
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        }
    }

    /// A policy that cancels the migration at Entry 17, with its reason (`cancelMigrationWithError`).
    final class Cancelling: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            if sInstance.value(forKey: "title") as? String == "Entry 17" { manager.cancelMigration(with: QuireError(.migration, "Entry 17 stops it.")) }
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        }
    }

    /// The inferred mapping of two versions, with a policy on the Entry mapping.
    static func mapping(_ from: ManagedObjectModel, _ to: ManagedObjectModel, entryPolicy: String) throws -> MappingModel {
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: from, destinationModel: to)
        let index = try #require(mapping.entityMappings.firstIndex { $0.sourceEntityName == "Entry" })
        mapping.entityMappings[index].entityMigrationPolicyClassName = entryPolicy
        return mapping
    }

    @Test func aFailedPolicyLeavesTheSchemaByteForByteAndNoSchemaBehind() throws {
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        EntityMigrationPolicyRegistry.shared.register(Refusing.self, as: "PostgresMigrationTests.Refusing")
        let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
        manager.batchSize = 4
        let mapping = try Self.mapping(store.versions[0], store.versions[1], entryPolicy: "PostgresMigrationTests.Refusing")
        let error = expectError(.entityMigrationPolicy) { try manager.migrateStore(at: store.url, type: .postgres, mapping: mapping) }
        #expect(error?.message.contains("Entry 17 cannot be migrated.") == true, "\(error?.message ?? "")")
        try store.expectUnchanged(since: before)
        // Progressive: the first hop is built in a schema of its own, the second fails; neither is left.
        let second = try Self.mapping(store.versions[1], store.versions[2], entryPolicy: "PostgresMigrationTests.Refusing")
        expectError(.entityMigrationPolicy) {
            try MigrationManager.migrateStore(at: store.url, type: .postgres, versions: store.versions, mappingModels: [nil, second])
        }
        try store.expectUnchanged(since: before)
    }

    @Test func aCancelledMigrationLeavesTheSchemaByteForByteAndNoSchemaBehind() throws {
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        // Cancelled from outside, after some batches were written to the new schema.
        let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
        manager.batchSize = 4
        let written = LockedBox(0)
        manager.progressHandler = { progress in
            written.mutate { $0 = max($0, progress.unitsCompleted) }
            if progress.unitsCompleted >= 8 { manager.cancel() }
        }
        expectError(.migrationCancelled) { try manager.migrateStore(at: store.url, type: .postgres) }
        #expect(written.value >= 8)
        try store.expectUnchanged(since: before)
        // Progressive, cancelled by a policy of its second hop, with the policy's reason.
        EntityMigrationPolicyRegistry.shared.register(Cancelling.self, as: "PostgresMigrationTests.Cancelling")
        let second = try Self.mapping(store.versions[1], store.versions[2], entryPolicy: "PostgresMigrationTests.Cancelling")
        let error = expectError(.migrationCancelled) {
            try MigrationManager.migrateStore(at: store.url, type: .postgres, versions: store.versions, mappingModels: [nil, second])
        }
        #expect(error?.message.contains("Entry 17 stops it.") == true, "\(error?.message ?? "")")
        try store.expectUnchanged(since: before)
    }

    /// The server ends the migration's connections (to the store's schema and to the new one) in the middle of the
    /// objects, as a lost network would: the migration fails, the store's schema is as it was and the new one gone.
    @Test func aLostConnectionLeavesTheSchemaByteForByteAndNoSchemaBehind() throws {
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
        manager.batchSize = 4
        let ended = LockedBox(0)
        let schema = store.schema
        manager.progressHandler = { progress in
            guard progress.unitsCompleted >= 8, ended.value == 0, let admin = try? PostgresJournal.admin() else { return }
            defer { admin.close() }
            // Each open store holds the advisory lock named after its schema: end the connections that hold one for
            // the store's schema or a schema beside it.
            let result = try? admin.queryOnce(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid() "
                    + "AND objid::BIGINT IN (SELECT hashtext('quire-open:' || nspname)::BIGINT & 4294967295 FROM pg_namespace "
                    + "WHERE starts_with(nspname, $1::TEXT))", [.text(schema)])
            ended.mutate { $0 = Int(result?.int64(0, 0) ?? -1) }
        }
        #expect(throws: QuireError.self) { try manager.migrateStore(at: store.url, type: .postgres) }
        #expect(ended.value == 2, "connections ended: \(ended.value)")
        try store.expectUnchanged(since: before)
    }

    /// The swap drops the old schema with everything in it, so a schema that also holds a table of the application's
    /// own is refused rather than losing that table.
    @Test func aSchemaHoldingOtherTablesIsRefused() throws {
        let store = try PostgresJournal(in: folder)
        do {
            let admin = try PostgresJournal.admin()
            defer { admin.close() }
            try admin.execute("CREATE TABLE \"\(store.schema)\".notes_of_mine (line TEXT); INSERT INTO \"\(store.schema)\".notes_of_mine VALUES ('kept')")
        }
        let before = try store.snapshot()
        let error = expectError(.migrationManagerDestinationStore) {
            try MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1]).migrateStore(at: store.url, type: .postgres)
        }
        #expect(error?.message.contains("also holds tables or views that are not the store's (notes_of_mine)") == true, "\(error?.message ?? "")")
        try store.expectUnchanged(since: before)
    }

    /// Another coordinator (here in this process, as another process would) has the schema open: the migration is
    /// refused with an error that says so, and the store stays as it was, open and working, with no schema
    /// behind; once it is closed, the same migration runs.
    @Test func aSchemaOpenElsewhereIsRefusedUntilItIsClosed() throws {
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        let (other, context) = try store.open(version: 0)
        let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
        let error = expectError(.migrationManagerDestinationStore) { try manager.migrateStore(at: store.url, type: .postgres) }
        #expect(error?.message.contains("it is open in another coordinator or process; close it everywhere before migrating") == true,
            "\(error?.message ?? "")")
        #expect(error?.context.file?.absoluteString.contains("schema=\(store.schema)") == true)
        // The other coordinator still reads its v1 store.
        let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Entry")) }
        #expect(count == JournalFixture.entryCount)
        for added in other.persistentStores { try other.remove(added) }
        try store.expectUnchanged(since: before)
        try manager.migrateStore(at: store.url, type: .postgres)
        try store.expectVersion(2)
    }
}
