import Foundation
import Testing

import Quire

extension UniquenessConstraintTests {
    /// Ten thousand people saved at once into a store that already holds ten thousand: every email checked against
    /// the others and the store (stored records looked up 200 values per fetch), and the one duplicate found.
    @Test func tenThousandInsertsAreCheckedTogether() throws {
        let stack = try Stack(.sqlite)
        let seed = stack.context()
        for index in 0..<10_000 { try Self.person(seed, email: "p\(index)@example.com", name: "P\(index)") }
        try seed.save()
        let context = stack.context()
        for index in 10_000..<20_000 { try Self.person(context, email: "p\(index)@example.com", name: "P\(index)") }
        try Self.person(context, email: "p42@example.com", name: "Again")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.constraintConflicts.count == 1)
        #expect(error.constraintConflicts.first?.constraintAttributeValues["email"] == .string("p42@example.com"))
    }

    /// Stored records are looked up by one `IN` list per constraint over one attribute: integer keys, and string keys
    /// with quotes, backslashes, control characters and non-ASCII letters (the list travels as JSON), are found as
    /// exactly as by comparisons, in SQLite and in memory.
    @Test(arguments: [StoreType.sqlite, .inMemory])
    func storedIntegerAndEscapedStringKeysAreFound(_ type: StoreType) throws {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "code", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "label", type: .string),
        ])
        item.uniquenessConstraints = [["code"], ["label"]]
        let stack = try Stack(type, model: ManagedObjectModel(entities: [item]))
        func label(_ index: Int) -> String { "say \"\(index)\" \\ back\tslash\n\u{1}é" }
        func insert(_ context: ManagedObjectContext, code: Int, label: String) throws {
            let object = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"]), insertInto: context)
            object.setValue(Int64(code), forKey: "code")
            object.setValue(label, forKey: "label")
        }
        let seed = stack.context()
        for index in 0..<40 { try insert(seed, code: index, label: label(index)) }
        try seed.save()
        let context = stack.context()
        for index in 40..<80 { try insert(context, code: index, label: label(index)) }
        try insert(context, code: 7, label: "new")
        try insert(context, code: 1_000, label: label(13))
        let error = try #require(throws: QuireError.self) { try context.save() }
        let found = error.constraintConflicts.map { conflict in
            conflict.constraintAttributeValues.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
        }.sorted()
        #expect(found == ["code=\(AttributeValue.integer(7))", "label=\(AttributeValue.string(label(13)))"])
        // Without the two, nothing conflicts: no stored key matches by accident.
        let clean = stack.context()
        for index in 40..<80 { try insert(clean, code: index, label: label(index)) }
        try clean.save()
        #expect(try stack.stored("Item", "label").count == 80)
    }
}
