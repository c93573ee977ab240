import Foundation
import Testing

import Quire
import QuireTestSupport

/// A group whose name is read and written through a typed property (the typed setters' own path).
final class ChangedValuesGroup: ManagedObject {
    @ManagedProperty var name: String?
    @ManagedProperty var rank: Int64
}

/// `changedValues()` keeps its attributes' part while nothing changes (issue 29, item 6): every way of changing,
/// undoing or saving a value must show in the next call.
@Suite struct ChangedValuesTests {
    static func model() -> ManagedObjectModel {
        let group = EntityDescription(name: "Group", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "note", type: .string),
            RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "groups"),
        ], managedObjectClass: ChangedValuesGroup.self)
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "groups", destination: "Group", toMany: true, inverse: "tags"),
        ])
        return ManagedObjectModel(entities: [group, tag])
    }

    /// The changed keys with their values as text (`NSNull` as `nil`), in key order.
    static func changes(_ object: ManagedObject) -> [String] {
        object.changedValues().map { key, value in
            if value is NSNull { return "\(key)=nil" }
            if let objects = value as? Set<ManagedObject> { return "\(key)=\(objects.count) objects" }
            return "\(key)=\(value)"
        }.sorted()
    }

    @Test func everyChangeShowsInTheNextCall() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: folder.file("Changed.sqlite"))
        try context.performAndWait {
            let group = ChangedValuesGroup(context: context)
            #expect(Self.changes(group) == ["rank=0"])
            group.name = "first"
            #expect(Self.changes(group) == ["name=first", "rank=0"])
            group.setValue("note", forKey: "note")
            group.rank = 4
            #expect(Self.changes(group) == ["name=first", "note=note", "rank=4"])
            #expect(Self.changes(group) == ["name=first", "note=note", "rank=4"])
            group.setValue(nil, forKey: "note")
            #expect(Self.changes(group) == ["name=first", "rank=4"])
            try context.save()
            #expect(Self.changes(group).isEmpty)

            // Saved: only what differs from the saved values, through either setter, in place or not.
            group.name = "second"
            #expect(Self.changes(group) == ["name=second"])
            group.setValue(Int64(5), forKey: "rank")
            #expect(Self.changes(group) == ["name=second", "rank=5"])
            group.name = "first"
            #expect(Self.changes(group) == ["rank=5"])
            group.setValue("x", forKey: "note")
            let kept = group.changedValues()
            group.setValue(nil, forKey: "note")
            #expect(kept["note"] as? String == "x")
            #expect(Self.changes(group) == ["rank=5"])

            // Relationships still show beside the kept attributes.
            let tag = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Tag"]), insertInto: context)
            tag.setValue("t", forKey: "name")
            group.addObject(tag, toRelationship: "tags")
            #expect(Self.changes(group) == ["rank=5", "tags=1 objects"])

            context.rollback()
            #expect(Self.changes(group).isEmpty)
            #expect(group.rank == 4 && group.name == "first")

            group.rank = 6
            #expect(Self.changes(group) == ["rank=6"])
            context.refresh(group, mergeChanges: false)
            #expect(Self.changes(group).isEmpty)
            #expect(group.rank == 4)
        }
    }

    @Test func undoAndRedoShowInTheNextCall() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: folder.file("Changed.sqlite"))
        try context.performAndWait {
            let group = ChangedValuesGroup(context: context)
            group.name = "saved"
            try context.save()
            context.undoManager = UndoManager()
            group.name = "edited"
            context.processPendingChanges()
            #expect(Self.changes(group) == ["name=edited"])
            context.undo()
            #expect(Self.changes(group).isEmpty)
            context.redo()
            #expect(Self.changes(group) == ["name=edited"])
        }
    }

    @Test func changesMadeElsewhereAndMergedShowInTheNextCall() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: folder.file("Changed.sqlite"))
        let id = try context.performAndWait {
            let group = ChangedValuesGroup(context: context)
            group.name = "saved"
            try context.save()
            return group.objectID
        }
        try context.performAndWait {
            let group = try #require(try context.existingObject(with: id) as? ChangedValuesGroup)
            group.rank = 9
            #expect(Self.changes(group) == ["rank=9"])
            let other = ManagedObjectContext()
            other.persistentStoreCoordinator = coordinator
            try other.performAndWait {
                other.object(with: id).setValue("elsewhere", forKey: "name")
                try other.save()
            }
            // The refreshed object keeps its own change over the newer saved values.
            context.refresh(group, mergeChanges: true)
            #expect(group.name == "elsewhere")
            #expect(Self.changes(group) == ["rank=9"])
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            #expect(Self.changes(group).isEmpty)
        }
    }

    /// A whole answer is kept while the object's values are the very arrays it was read from: relationship changes
    /// made from either side after it, in a loaded set or in one still a fault, and numbers changed and changed
    /// back all show in the next call.
    @Test func relationshipAndNumberChangesShowAfterAKeptAnswer() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: folder.file("Changed.sqlite"))
        let tagEntity = try #require(coordinator.managedObjectModel.entitiesByName["Tag"])
        let id = try context.performAndWait {
            let group = ChangedValuesGroup(context: context)
            group.name = "saved"
            let first = ManagedObject(entity: tagEntity, insertInto: context)
            first.setValue("first", forKey: "name")
            group.addObject(first, toRelationship: "tags")
            try context.save()

            group.rank = 2_000
            #expect(Self.changes(group) == ["rank=2000"])
            group.name = "renamed"
            #expect(Self.changes(group) == ["name=renamed", "rank=2000"])
            group.rank = 2_001
            #expect(Self.changes(group) == ["name=renamed", "rank=2001"])
            group.rank = 0
            #expect(Self.changes(group) == ["name=renamed"])
            // Through the inverse, the set loaded.
            let second = ManagedObject(entity: tagEntity, insertInto: context)
            second.setValue("second", forKey: "name")
            second.addObject(group, toRelationship: "groups")
            #expect(Self.changes(group) == ["name=renamed", "tags=2 objects"])
            second.removeObject(group, fromRelationship: "groups")
            #expect(Self.changes(group) == ["name=renamed"])
            try context.save()
            #expect(Self.changes(group).isEmpty)
            return group.objectID
        }
        // Through the inverse while the set is a fault (the change is recorded apart from the arrays).
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        other.performAndWait {
            let group = other.object(with: id)
            group.setValue(Int64(3), forKey: "rank")
            #expect(Self.changes(group) == ["rank=3"])
            let third = ManagedObject(entity: tagEntity, insertInto: other)
            third.setValue("third", forKey: "name")
            third.addObject(group, toRelationship: "groups")
            #expect(Self.changes(group) == ["rank=3", "tags=2 objects"])
            #expect(Self.changes(group) == ["rank=3", "tags=2 objects"])
            group.setValue(Int64(0), forKey: "rank")
            #expect(Self.changes(group) == ["tags=2 objects"])
        }
    }
}
