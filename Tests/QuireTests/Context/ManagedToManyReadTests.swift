import Foundation
import Testing

import Quire

/// A shelf whose to-many holds items of two classes: the element class itself and a subclass of it (a
/// sub-entity's class).
final class ToManyShelf: ManagedObject {
    @ManagedProperty var items: Set<ToManyItem>
}

class ToManyItem: ManagedObject {
    @ManagedProperty var label: String?
}

final class ToManySpecialItem: ToManyItem {}

/// A `@ManagedProperty` to-many read as a `Set` of the element class gives every member, whether its class is
/// exactly the element class (converted without a dynamic cast) or a subclass of it (cast).
@Suite struct ManagedToManyReadTests {
    static func model() -> ManagedObjectModel {
        let shelf = EntityDescription(name: "Shelf", properties: [
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "shelf"),
        ], managedObjectClass: ToManyShelf.self)
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items"),
        ], managedObjectClass: ToManyItem.self)
        let special = EntityDescription(name: "Special", properties: [], managedObjectClass: ToManySpecialItem.self)
        item.subentities = [special]
        return ManagedObjectModel(entities: [shelf, item, special])
    }

    @Test func membersOfTheElementClassAndOfASubclassAreAllRead() throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        let (_, context) = try Fixtures.stack(model, at: folder.file("Shelves.sqlite"))
        let shelf = try #require(EntityDescription.insertNewObject(forEntityName: "Shelf", into: context) as? ToManyShelf)
        var expected: [String: Bool] = [:]
        for index in 0..<5 {
            let special = index % 2 == 1
            let item = EntityDescription.insertNewObject(forEntityName: special ? "Special" : "Item", into: context)
            item.setValue("item \(index)", forKey: "label")
            item.setValue(shelf, forKey: "shelf")
            expected["item \(index)"] = special
        }
        func check(_ items: Set<ToManyItem>) {
            #expect(items.count == 5)
            let read = Dictionary(uniqueKeysWithValues: items.map { ($0.label ?? "?", $0 is ToManySpecialItem) })
            #expect(read == expected)
        }
        check(shelf.items)
        try context.save()
        check(shelf.items)

        // Read back by another context: the members come from the store as faults.
        let (_, fresh) = try Fixtures.stack(Self.model(), at: folder.file("Shelves.sqlite"))
        let stored = try #require(try fresh.fetch(FetchRequest<ToManyShelf>(entityName: "Shelf")).first)
        check(stored.items)
    }
}
