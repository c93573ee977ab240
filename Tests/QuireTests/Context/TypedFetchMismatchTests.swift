import Foundation
import Testing

import Quire

/// A fetch request typed with a class the fetched entity does not use throws a clear error instead of trapping.
@Suite struct TypedFetchMismatchTests {
    final class Note: ManagedObject {}

    @Test func aRequestTypedWithAnotherClassThrows() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [AttributeDescription(name: "name", type: .string)])
        ])
        let (_, context) = try Fixtures.stack(model, at: folder.file("Items.sqlite"))
        let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
        item.setValue("one", forKey: "name")
        try context.save()
        let error = try #require(throws: QuireError.self) {
            try context.fetch(FetchRequest<Note>(entityName: "Item"))
        }
        #expect(error.code == .invalidFetchRequest)
        #expect(error.message.contains("Note"), "\(error)")
        // The right type still fetches.
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).count == 1)
    }
}
