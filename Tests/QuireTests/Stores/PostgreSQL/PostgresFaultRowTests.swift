// Checks that a fault fired by key keeps its PostgreSQL row packed, which has no public face: uses Quire's
// internals.
import Foundation
import Testing

@testable import Quire
import QuireStores
import QuireTestSupport

/// A fault fired by reading its row by key keeps the row packed, read straight from the PostgreSQL result, as
/// fetched objects do; its values, relationships and sub-entity come back as saved.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresFaultRowTests {
    private func stack(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test func aFaultFiredByKeyKeepsItsRowPacked() throws {
        let url = try #require(PostgresTestServer.storeURL())
        do {
            let (coordinator, context) = try stack(url)
            let model = coordinator.managedObjectModel
            let research = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
            research.setValue("Research", forKey: "name")
            let ada = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            ada.setValue("Ada", forKey: "name")
            ada.setValue(research, forKey: "department")
            let dee = ManagedObject(entity: try #require(model.entitiesByName["Manager"]), insertInto: context)
            dee.setValue("Dee", forKey: "name")
            dee.setValue(3, forKey: "level")
            try context.save()
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let (_, context) = try stack(url)
        let ids = FetchRequest<ObjectID>(entityName: "Employee")
        ids.resultType = .managedObjectID
        ids.sortDescriptors = [SortKey("name")]
        let faults = try context.fetch(ids).map { context.object(with: $0) }
        #expect(faults.count == 2 && faults.allSatisfy(\.isFault))
        #expect(faults[0].value(forKey: "name") as? String == "Ada")
        #expect((faults[0].value(forKey: "department") as? ManagedObject)?.value(forKey: "name") as? String == "Research")
        #expect(faults[1].entity.name == "Manager")
        #expect(faults[1].value(forKey: "level") as? Int16 == 3)
        for fault in faults {
            #expect(!fault.isFault && fault.packedValues != nil)
            #expect(fault.storedAttributes.isEmpty && fault.storedRelationships.isEmpty)
        }
    }
}
