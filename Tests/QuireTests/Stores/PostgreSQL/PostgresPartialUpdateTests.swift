import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// A PostgreSQL save's UPDATE writes only the attributes and to-ones that changed, and `z_opt`, as the SQLite
/// store's does (`SQLitePartialUpdateTests`): `AFTER UPDATE OF column` triggers on the real server record which
/// columns each save named, and a column another connection wrote meanwhile (without advancing `z_opt`) is left as
/// it wrote it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresPartialUpdateTests {
    private func stack(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        try PostgresCompanyStore.stack(url, model: SQLitePartialUpdateTests.model())
    }

    /// A store with one record in region "north" (and a region "south"), and triggers logging the columns of
    /// `zrecord` each UPDATE names into a table of a schema of the test's own.
    private func makeStore() throws -> (url: URL, schema: String, log: String, admin: PostgresConnection) {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url)
        try SQLitePartialUpdateTests.seed(context)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        let schema = try PostgresURL(url).schema
        let log = PostgresTestServer.freshSchema()
        let admin = try PostgresConnection(url: PostgresURL(url))
        _ = try admin.execute("CREATE SCHEMA \"\(log)\"")
        _ = try admin.execute("CREATE TABLE \"\(log)\".written (col text)")
        _ = try admin.execute("""
            CREATE FUNCTION "\(log)".note_column() RETURNS trigger AS $$
            BEGIN INSERT INTO "\(log)".written VALUES (TG_ARGV[0]); RETURN NULL; END $$ LANGUAGE plpgsql
            """)
        for column in ["zremoteid", "zvalue", "znote", "zregion", "z_opt"] {
            _ = try admin.execute("""
                CREATE TRIGGER log_\(column) AFTER UPDATE OF \(column) ON "\(schema)".zrecord
                FOR EACH ROW EXECUTE FUNCTION "\(log)".note_column('\(column)')
                """)
        }
        return (url, schema, log, admin)
    }

    /// The columns the UPDATEs since the last call named (sorted), emptying the log.
    private func written(_ store: (url: URL, schema: String, log: String, admin: PostgresConnection)) throws -> [String] {
        let rows = try store.admin.execute("SELECT col FROM \"\(store.log)\".written ORDER BY col")
        let columns = (0..<rows.count).compactMap { rows.string($0, 0) }
        _ = try store.admin.execute("DELETE FROM \"\(store.log)\".written")
        return columns
    }

    private func row(_ store: (url: URL, schema: String, log: String, admin: PostgresConnection)) throws
        -> (value: Int64, note: String?, region: Int64, version: Int64)
    {
        let rows = try store.admin.execute("SELECT zvalue, znote, zregion, z_opt FROM \"\(store.schema)\".zrecord")
        #expect(rows.count == 1)
        return (rows.int64(0, 0), rows.string(0, 1), rows.int64(0, 2), rows.int64(0, 3))
    }

    private func region(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Region")
        request.predicate = try QueryPredicate(format: "name == %@", name)
        return try #require(context.fetch(request).first)
    }

    @Test func anUpdateNamesOnlyTheChangedColumns() throws {
        let store = try makeStore()
        let (_, context) = try stack(store.url)
        let record = try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Record")).first)
        let before = try row(store)

        record.setValue(Int64(2), forKey: "value")
        try context.save()
        #expect(try written(store) == ["z_opt", "zvalue"])
        #expect(try row(store).value == 2)

        // A to-one changed alone carries no committed attributes: the whole row is written.
        record.setValue(try region("south", context), forKey: "region")
        try context.save()
        #expect(try written(store) == ["z_opt", "znote", "zregion", "zremoteid", "zvalue"])

        // An attribute and the to-one at once, back to the first region.
        record.setValue("changed", forKey: "note")
        record.setValue(try region("north", context), forKey: "region")
        try context.save()
        #expect(try written(store) == ["z_opt", "znote", "zregion"])
        let now = try row(store)
        #expect(now.region == before.region && now.note == "changed" && now.version == before.version + 3)

        // What the saves wrote is what a new stack reads.
        let (_, fresh) = try stack(store.url)
        let reread = try #require(fresh.fetch(FetchRequest<ManagedObject>(entityName: "Record")).first)
        #expect(reread.value(forKey: "remoteID") as? String == "r-1")
        #expect(reread.value(forKey: "value") as? Int64 == 2)
        #expect(reread.value(forKey: "note") as? String == "changed")
        #expect((reread.value(forKey: "region") as? ManagedObject)?.value(forKey: "name") as? String == "north")
    }

    @Test func aColumnAnotherConnectionWroteMeanwhileIsLeftAsItWroteIt() throws {
        let store = try makeStore()
        let (_, context) = try stack(store.url)
        let record = try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Record")).first)
        let before = try row(store)
        // Another connection writes the note without advancing z_opt, so optimistic locking cannot see it.
        _ = try store.admin.execute("UPDATE \"\(store.schema)\".zrecord SET znote = 'theirs'")
        _ = try written(store)

        record.setValue(Int64(7), forKey: "value")
        try context.save()
        let now = try row(store)
        #expect(now.value == 7 && now.note == "theirs" && now.region == before.region)
        #expect(now.version == before.version + 1)
        #expect(try written(store) == ["z_opt", "zvalue"])
    }
}
