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

    /// Stored duplicates among 450 new people fall into each of the three fetches that look stored records up (200
    /// values a fetch, in the order of the save): each is found with its stored record, none is given to another
    /// group, and resolved by object trump every duplicate updates its record.
    @Test(arguments: [StoreType.sqlite, .inMemory])
    func storedDuplicatesInEveryLookupAreFound(_ type: StoreType) throws {
        let stack = try Stack(type)
        let seed = stack.context()
        var stored: [String: ManagedObject] = [:]
        for index in 0..<500 { stored["p\(index)@example.com"] = try Self.person(seed, email: "p\(index)@example.com", name: "P\(index)") }
        try seed.save()
        let context = stack.context()
        let duplicates = [0: "p0@example.com", 210: "p250@example.com", 449: "p499@example.com"]
        for index in 0..<450 {
            let email = duplicates[index] ?? "n\(index)@example.com"
            try Self.person(context, email: email, name: "N\(index)")
        }
        let error = try #require(throws: QuireError.self) { try context.save() }
        let found = error.constraintConflicts.map { conflict -> String in
            guard case .string(let email)? = conflict.constraintAttributeValues["email"] else { return "?" }
            #expect(conflict.databaseObjectID == stored[email]?.objectID, "the stored record of \(email)")
            #expect(conflict.conflictingObjectIDs.count == 1)
            return email
        }
        #expect(found.sorted() == duplicates.values.sorted())

        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        #expect(try stack.stored("Person", "email").count == 500 + 450 - 3)
        let names = Set(try stack.stored("Person", "name"))
        #expect(names.isSuperset(of: ["N0", "N210", "N449"]) && !names.contains("P0") && !names.contains("P250"))
    }

    /// A sub-entity's objects share their superentity's constraint with its own objects: an employee and a person
    /// with one email in one save conflict, as two people do, and an employee with the email of a stored person.
    @Test(arguments: [StoreType.sqlite, .inMemory])
    func aSubentitysObjectsShareTheConstraintInOneSave(_ type: StoreType) throws {
        let employee = EntityDescription(name: "Employee", properties: [AttributeDescription(name: "badge", type: .integer64)])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "city", type: .string),
        ])
        person.uniquenessConstraints = [["email"]]
        person.subentities = [employee]
        let withEmployee = ManagedObjectModel(entities: [person, employee])
        let stack = try Stack(type, model: withEmployee)
        func insertEmployee(_ context: ManagedObjectContext, _ email: String) throws -> ManagedObject {
            let object = ManagedObject(entity: try #require(withEmployee.entitiesByName["Employee"]), insertInto: context)
            object.setValue(email, forKey: "email")
            return object
        }
        let seed = stack.context()
        let stored = try Self.person(seed, email: "stored@example.com", name: "Stored")
        try seed.save()

        let context = stack.context()
        let ada = try Self.person(context, email: "ada@example.com", name: "Ada")
        let adaAtWork = try insertEmployee(context, "ada@example.com")
        let storedAtWork = try insertEmployee(context, "stored@example.com")
        _ = try insertEmployee(context, "bob@example.com")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.constraintConflicts.count == 2)
        let among = try #require(error.constraintConflicts.first { $0.databaseObjectID == nil })
        #expect(among.entityName == "Person")
        #expect(among.conflictingObjectIDs == [ada.objectID, adaAtWork.objectID])
        let withStored = try #require(error.constraintConflicts.first { $0.databaseObjectID != nil })
        #expect(withStored.databaseObjectID == stored.objectID)
        #expect(withStored.conflictingObjectIDs == [storedAtWork.objectID])
    }
}
