// Checks that refreshing an object releases its stored values, which has no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

extension GraphTests {
    @Test func isFaultDoesNotFireAndRefreshReleasesValues() throws {
        try seedDepartment()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortDescriptors = [SortKey("name")]
        let ada = try context.fetch(request)[0]
        #expect(ada.isFault)
        #expect(ada.isFault)  // asking twice still fires nothing
        #expect(ada.value(forKey: "name") as? String == "Ada")
        #expect(!ada.isFault)
        context.refresh(ada, mergeChanges: false)
        #expect(ada.isFault)
        #expect(ada.attributeStorage.isEmpty && ada.relationshipStorage.isEmpty)
        #expect(ada.value(forKey: "name") as? String == "Ada")
    }
}
