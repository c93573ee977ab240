import Foundation
import Testing

import Quire

/// `setValue(_:forKey:)` has overloads for `String`, `Int64`, `Double`, `Bool`, `Date` and `Data`, which store a
/// value of an attribute's own type without boxing it; everything else they hand to the `Any?` version. These
/// check that they do what the `Any?` version does: the stored values, conversions for attributes of other types,
/// undo, and faults fired first.
@Suite struct TypedSetterTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "done", type: .boolean),
            AttributeDescription(name: "due", type: .date),
            AttributeDescription(name: "bytes", type: .binaryData),
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "ratio", type: .float),
            RelationshipDescription(name: "parent", destination: "Item"),
        ])
        return ManagedObjectModel(entities: [item])
    }

    static let due = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
    static let bytes = Data([0, 1, 2, 250])

    /// Sets every attribute through the typed overloads (the arguments' static types choose them).
    static func fill(_ item: ManagedObject) {
        item.setValue("a title", forKey: "title")
        item.setValue(Int64(42), forKey: "count")
        item.setValue(2.5, forKey: "score")
        item.setValue(true, forKey: "done")
        item.setValue(due, forKey: "due")
        item.setValue(bytes, forKey: "bytes")
        // Values of another type than the attribute's: converted by the general path, as `Any?` values are.
        item.setValue(Int64(-7), forKey: "small")
        item.setValue(0.75, forKey: "ratio")
    }

    static func expectFilled(_ item: ManagedObject) {
        #expect(item.value(forKey: "title") as? String == "a title")
        #expect(item.value(forKey: "count") as? Int64 == 42)
        #expect(item.value(forKey: "score") as? Double == 2.5)
        #expect(item.value(forKey: "done") as? Bool == true)
        #expect(item.value(forKey: "due") as? Date == due)
        #expect(item.value(forKey: "bytes") as? Data == bytes)
        #expect(item.value(forKey: "small") as? Int16 == -7)
        #expect(item.value(forKey: "ratio") as? Float == 0.75)
    }

    @Test func typedValuesAreStoredSavedAndReadBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Typed.sqlite")
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            let item = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
            Self.fill(item)
            Self.expectFilled(item)
            // The same values through `Any?` give the same stored values.
            let boxed = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
            for key in ["title", "count", "score", "done", "due", "bytes", "small", "ratio"] {
                boxed.setValue(item.value(forKey: key) as Any?, forKey: key)
                #expect(String(describing: boxed.value(forKey: key)) == String(describing: item.value(forKey: key)), "\(key)")
            }
            boxed.setValue(nil, forKey: "title")
            #expect(boxed.value(forKey: "title") == nil)
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        #expect(items.count == 2)
        let filled = try #require(items.first { $0.value(forKey: "title") != nil })
        Self.expectFilled(filled)
    }

    @Test func changesThroughTypedSettersAreUndoneAndFireFaults() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Undo.sqlite")
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: url)
        let item = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
        Self.fill(item)
        try context.save()

        // A fault (the record read again by another context) fires before the change, which is then undoable.
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        other.undoManager = UndoManager()
        let fault = other.object(with: item.objectID)
        #expect(fault.isFault)
        fault.setValue("changed", forKey: "title")
        fault.setValue(Int64(43), forKey: "count")
        #expect(!fault.isFault && fault.isUpdated)
        #expect(fault.value(forKey: "score") as? Double == 2.5)
        #expect(fault.value(forKey: "title") as? String == "changed")
        other.processPendingChanges()
        other.undoManager?.undo()
        #expect(fault.value(forKey: "title") as? String == "a title")
        #expect(fault.value(forKey: "count") as? Int64 == 42)
    }
}
