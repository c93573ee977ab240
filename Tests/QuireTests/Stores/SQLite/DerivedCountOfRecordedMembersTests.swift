import Foundation
import Testing

import Quire

/// A many-to-many `@count` kept by Core Data's join-table triggers stays right when members are added and removed
/// while the set is a fault (recorded, then written as join rows without loading the set): a member added twice,
/// or one already there, is counted once.
@Suite struct DerivedCountOfRecordedMembersTests {
    @Test func recordedMembersAreCountedOnce() throws {
        let folder = try TemporaryFolder()
        let tagCount = AttributeDescription(name: "tagCount", type: .integer64)
        tagCount.derivationExpression = "tags.@count"
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Book", properties: [
                AttributeDescription(name: "title", type: .string), tagCount,
                RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "books"),
            ]),
            EntityDescription(name: "Tag", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "tags"),
            ]),
        ])
        let url = folder.file("Tags.sqlite")
        do {
            let (_, context) = try Fixtures.stack(model, at: url)
            let book = ManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
            book.setValue("Nana", forKey: "title")
            for name in ["novel", "french", "classic"] {
                let tag = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
                tag.setValue(name, forKey: "name")
                if name == "novel" { book.addObject(tag, toRelationship: "tags") }
            }
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "1")

        // A new stack: the book's and the tags' sets are faults, so the changes are recorded, not loaded.
        let (_, context) = try Fixtures.stack(model, at: url)
        let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first)
        let tagRequest = FetchRequest<ManagedObject>(entityName: "Tag")
        tagRequest.sortDescriptors = [SortKey("name")]
        let tags = try context.fetch(tagRequest)  // classic, french, novel
        #expect(tags.count == 3)
        book.addObject(tags[0], toRelationship: "tags")
        book.addObject(tags[0], toRelationship: "tags")
        book.addObject(tags[2], toRelationship: "tags")  // already a member
        tags[1].addObject(book, toRelationship: "books")  // from the other side
        #expect(book.hasFault(forRelationshipNamed: "tags"))
        try context.save()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "3")
        book.removeObject(tags[2], fromRelationship: "tags")
        try context.save()
        #expect(try sqlite3(url, "SELECT ZTAGCOUNT FROM ZBOOK") == "2")
        let names = (book.value(forKey: "tags") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted()
        #expect(names == ["classic", "french"])
    }
}
