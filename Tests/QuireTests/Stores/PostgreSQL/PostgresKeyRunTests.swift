import Foundation
import Testing

import Quire
import QuirePostgres

/// Keys for inserted objects come from each hierarchy's sequence, handed out per run of objects of one entity:
/// a save that interleaves entities sharing one table (Employee and its sub-entity Manager) with another
/// table's (Department) must give every object its own key of its table, and every row its object's values.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresKeyRunTests {
    private func stack(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func interleavedEntitiesOfOneTableGetDistinctKeys() throws {
        let url = try #require(PostgresTestServer.storeURL())
        var context = try stack(url)
        // Runs of 1, 2 and 3 objects, switching between the tables and within one hierarchy.
        let plan = ["Employee", "Manager", "Manager", "Department", "Employee", "Employee", "Employee", "Manager", "Department"]
        for (index, entity) in plan.enumerated() {
            let object = EntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue("\(entity)-\(index)", forKey: "name")
        }
        try context.save()

        context = try stack(url)
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        let departments = try context.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        let expected = plan.enumerated().map { "\($1)-\($0)" }
        let names = (people + departments).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == expected.sorted())
        // Every row's entity matches the name its object was given.
        for person in people {
            let name = person.value(forKey: "name") as? String ?? ""
            #expect(name.hasPrefix(person.entity.name + "-"))
        }
        // One key per object within each table.
        #expect(Set(people.map(\.objectID)).count == people.count)
        #expect(Set(people.compactMap(\.objectID.primaryKey)).count == 7)
        #expect(Set(departments.compactMap(\.objectID.primaryKey)).count == 2)
    }
}
