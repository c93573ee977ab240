import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores

/// The PostgreSQL store kind reaches Quire only through `QuirePostgres`: naming `StoreType.postgres` registers it,
/// after which the type's name and a `postgresql://` URL given without a type find it too. (Without the module,
/// both fail naming it: `scripts/check-no-libpq.sh` runs an application that does not link it.)
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresRegistrationTests {
    private static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note")
        note.properties = [AttributeDescription(name: "title", type: .string)]
        return ManagedObjectModel(entities: [note])
    }

    @Test func theRegisteredKindIsFoundByItsNameAndByItsURL() throws {
        _ = StoreType.postgres
        let url = try #require(PostgresTestServer.storeURL())
        let model = Self.model()

        let writer = try PersistentStoreCoordinator(managedObjectModel: model)
        let byName = try writer.addPersistentStore(type: StoreType(rawValue: "PostgreSQL"), at: url)
        #expect(byName.type == .postgres)
        let writing = ManagedObjectContext()
        writing.persistentStoreCoordinator = writer
        try writing.performAndWait {
            let entity = try #require(model.entitiesByName["Note"])
            ManagedObject(entity: entity, insertInto: writing).setValue("by name", forKey: "title")
            try writing.save()
        }

        let reader = try PersistentStoreCoordinator(managedObjectModel: model)
        let byURL = try reader.addPersistentStore(type: nil, at: url)
        #expect(byURL.type == .postgres)
        let reading = ManagedObjectContext()
        reading.persistentStoreCoordinator = reader
        let titles = try reading.performAndWait {
            try reading.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { $0.value(forKey: "title") as? String }
        }
        #expect(titles == ["by name"])

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(metadata["NSStoreType"] == .string("PostgreSQL"))
    }

    @Test func messagesNameAPostgreSQLStoreByItsSchemaAndDatabaseWithoutItsPassword() throws {
        _ = StoreType.postgres
        let url = try #require(URL(string: "postgresql://app:secret@localhost/crm?schema=team"))
        #expect(StoreKinds.storeDescription(url) == "'team' in the PostgreSQL database 'crm'")
        #expect(!StoreKinds.safeURL(url).absoluteString.contains("secret"))
        #expect(StoreKinds.storeDescription(URL(fileURLWithPath: "/data/Notes.sqlite")) == "'/data/Notes.sqlite'")
        #expect(StoreKinds.safeURL(URL(fileURLWithPath: "/data/Notes.sqlite")) == URL(fileURLWithPath: "/data/Notes.sqlite"))
    }
}
