// Checks that a fault fired by key keeps its PostgreSQL row packed, which has no public face: uses Quire's
// internals.
import Foundation
import Testing

@testable import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// A fault fired by reading its row by key keeps the row packed, read straight from the PostgreSQL result, as
/// fetched objects do; its values, relationships and sub-entity come back as saved.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresFaultRowTests {
    @Test func aFaultFiredByKeyKeepsItsRowPacked() throws {
        let url = try #require(PostgresTestServer.storeURL())
        try PostgresCompanyStore.save(at: url, deeLevel: 3)
        let (_, context) = try PostgresCompanyStore.stack(url)
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
