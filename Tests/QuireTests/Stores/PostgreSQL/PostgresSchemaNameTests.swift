import Foundation
import QuireTestSupport
import Testing

import Quire
import QuirePostgres
import QuireCore
@testable import QuireStores

/// Schema names: every valid PostgreSQL name (1 to 63 bytes of UTF-8) works, Save As's staging schema beside
/// it included, and a NUL never reaches libpq (issue 33, item 5).
@Suite struct PostgresSchemaNameTests {
    /// A schema name of `bytes` bytes made of two-byte characters (`é`), with a random ASCII start.
    static func name(bytes: Int) -> String {
        let start = "s" + UUID().uuidString.prefix(8).lowercased()
        let rest = String(repeating: "é", count: (bytes - start.utf8.count) / 2)
        return start + rest + String(repeating: "x", count: (bytes - start.utf8.count) % 2)
    }

    static func url(schema: String, base: String = "postgresql://quire@/postgres?host=/tmp") -> URL? {
        guard let encoded = schema.addingPercentEncoding(withAllowedCharacters: .alphanumerics) else { return nil }
        return URL(string: base + (base.contains("?") ? "&" : "?") + "schema=" + encoded)
    }

    @Test(arguments: [48, 55, 62, 63])
    func theStagingSchemaOfAValidNameIsValid(bytes: Int) throws {
        let schema = Self.name(bytes: bytes)
        #expect(schema.utf8.count == bytes)
        #expect(try PostgresURL(try #require(Self.url(schema: schema))).schema == schema)
        let staging = PostgresURL.stagingSchema(for: schema, token: "0123abcd")
        // Before: the first 40 characters were kept, 80 bytes of them here, and the staging name was refused.
        #expect(staging.utf8.count <= 63, "\(staging.utf8.count) bytes")
        #expect(staging.hasSuffix("_saveas_0123abcd"))
        #expect(schema.hasPrefix(String(staging.dropLast(16))))
        let storeURL = try #require(Self.url(schema: schema))
        let stagingURL = try #require(QuireCore.StoreKind.postgres.stagingURL?(storeURL))
        #expect(try PostgresURL(stagingURL).schema.utf8.count <= 63)
    }

    @Test func aLongerNameOrANULIsRefused() throws {
        let long = try #require(Self.url(schema: Self.name(bytes: 64)))
        #expect(throws: QuireError.self) { try PostgresURL(long) }
        let nul = try #require(Self.url(schema: "team\u{0}public"))
        let error = try #require(throws: QuireError.self) { try PostgresURL(nul) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("contains a NUL character"), "\(error.message)")
    }

    /// Save As into a 63-byte schema of non-ASCII characters, on the test server, and the store read back.
    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func saveAsIntoALongNonASCIISchema() throws {
        let base = try #require(PostgresTestServer.baseURL)
        let schema = Self.name(bytes: 63)
        let database = try #require(Self.url(schema: schema, base: base))
        let folder = try TemporaryFolder()
        let model = Fixtures.companyModel()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("A.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context).setValue("Research", forKey: "name")
        try context.save()
        let moved = try coordinator.migratePersistentStore(store, to: database, type: .postgres)
        #expect(try PostgresURL(try #require(moved.url)).schema == schema)
        try coordinator.remove(moved)
        let dump = try ObjectGraphDump(storeAt: database, type: .postgres)
        #expect(dump.counts == ["Department": 1])
    }
}
