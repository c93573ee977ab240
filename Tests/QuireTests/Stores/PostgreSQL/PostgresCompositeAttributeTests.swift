import Foundation
import Testing

import Quire
import QuirePostgres
import QuireTestSupport

/// Composite attributes in a PostgreSQL store (the schema SQLite and PostgreSQL share): Save As there and back,
/// with predicates and sorts on element key paths compiled to SQL.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCompositeAttributeTests {
    @Test func compositesMoveToPostgreSQLAndAreQueriedThere() throws {
        let folder = try TemporaryFolder()
        let model = CompositeAttributeTests.model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("People.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try CompositeAttributeTests.insertPeople(into: context, model: model)

        let database = try #require(PostgresTestServer.storeURL())
        let moved = try coordinator.migratePersistentStore(store, to: database, type: .postgres)
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.predicate = try QueryPredicate(format: "address.city BEGINSWITH %@ OR address.geo.lat < 44", "Cl")
        request.sortDescriptors = [SortKey("address.geo.lat", ascending: false)]
        #expect(try reader.fetch(request).map { $0.value(forKey: "name") as? String } == ["Blaise", "Camille"])
        let ada = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first { $0.value(forKey: "name") as? String == "Ada" })
        #expect((ada.value(forKey: "address") as? [String: Any])?["postcode"] as? String == "69001")

        let back = folder.file("Back.xml")
        try coordinator.migratePersistentStore(moved, to: back, type: .xml)
        let again = ManagedObjectContext()
        again.persistentStoreCoordinator = coordinator
        let sorted = FetchRequest<ManagedObject>(entityName: "Person")
        sorted.sortDescriptors = [SortKey("address.city")]
        #expect(try again.fetch(sorted).map { $0.value(forKeyPath: "address.city") as? String } == ["Arles", "Clermont", "Lyon"])
    }
}
