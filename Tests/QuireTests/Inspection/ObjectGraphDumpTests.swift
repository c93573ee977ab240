import CSQLite
import Foundation
import Synchronization
import Testing

import Quire

/// Canonical dumps: equal for the same graph however it was written, and readable differences otherwise.
@Suite struct ObjectGraphDumpTests {
    /// Writes a small company graph, inserting in the given order, and returns the store's URL.
    private func writeCompany(_ folder: TemporaryFolder, _ name: String, reversed: Bool, salaryOfGrace: Int = 200) throws -> URL {
        let url = folder.file(name)
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let model = coordinator.managedObjectModel
        let names = reversed ? ["Grace", "Ada"] : ["Ada", "Grace"]
        let department = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
        department.setValue("Research", forKey: "name")
        for name in names {
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(name == "Ada" ? 300 : salaryOfGrace, forKey: "salary")
            employee.setValue(department, forKey: "department")
        }
        let badge = ManagedObject(entity: try #require(model.entitiesByName["Badge"]), insertInto: context)
        badge.setValue("B-\u{1}\"quoted\"", forKey: "code")
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    @Test func sameGraphWrittenInAnotherOrderDumpsTheSame() throws {
        let folder = try TemporaryFolder()
        let a = try ObjectGraphDump(storeAt: try writeCompany(folder, "A.sqlite", reversed: false), type: .sqlite)
        let b = try ObjectGraphDump(storeAt: try writeCompany(folder, "B.sqlite", reversed: true), type: .sqlite)
        #expect(a == b)
        #expect(a.differences(from: b).isEmpty)
        #expect(try a.json() == b.json())
        #expect(a.counts == ["Department": 1, "Employee": 2, "Badge": 1])
        let text = a.text()
        #expect(text.contains("Department#1\n  name = \"Research\"\n  employees -> [Employee#1, Employee#2]"))
        #expect(text.contains("Employee#1\n  name = \"Ada\""))
        #expect(text.contains("code = \"B-\\u{01}\\\"quoted\\\"\""))
    }

    @Test func differencesAreNamedByKeyAndProperty() throws {
        let folder = try TemporaryFolder()
        let a = try ObjectGraphDump(storeAt: try writeCompany(folder, "A.sqlite", reversed: false), type: .sqlite)
        let b = try ObjectGraphDump(storeAt: try writeCompany(folder, "B.sqlite", reversed: false, salaryOfGrace: 250), type: .sqlite)
        #expect(a.differences(from: b) == ["Employee[name=\"Grace\"].salary: 200 -> 250"])
    }

    @Test func blobsDumpAsSizeAndDigest() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Types.sqlite")
        do {
            let (coordinator, context) = try Fixtures.stack(Fixtures.everyTypeModel(), at: url)
            let object = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Sample"]), insertInto: context)
            object.setValue(Data("abc".utf8), forKey: "plainData")
            try context.save()
        }
        let dump = try ObjectGraphDump(storeAt: url, type: .sqlite)
        #expect(dump.objects.first?.attributes["plainData"]
            == "data(3 bytes, sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad)")
        #expect(dump.objects.first?.attributes["vString"] == "nil")
    }

    @Test func storesWithoutAnEmbeddedModelAreRefused() throws {
        let folder = try TemporaryFolder()
        let url = try writeCompany(folder, "A.sqlite", reversed: false)
        let original = try ObjectGraphDump(storeAt: url, type: .sqlite)
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "DROP TABLE Z_QUIREMODEL", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        // Without its own model, the store still carries the model in Core Data's form, and opens with it.
        let fromCache = try ObjectGraphDump(storeAt: url, type: .sqlite)
        #expect(fromCache == original)
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "DROP TABLE Z_MODELCACHE", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let error = try #require(throws: QuireError.self) { try ObjectGraphDump(storeAt: url, type: .sqlite) }
        #expect(error.code == .persistentStoreIncompatibleSchema)
        #expect(error.message.contains("embeds no model"))
    }
}

/// The dump is the same whichever store type holds the graph.
@Suite struct ObjectGraphDumpAcrossStoreTypesTests {
    @Test(arguments: [StoreType.xml, .binary])
    func savingAsAnotherTypeKeepsTheDump(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let source = folder.file("Company.sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: source)
        let model = coordinator.managedObjectModel
        let department = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
        department.setValue("Research", forKey: "name")
        let project = ManagedObject(entity: try #require(model.entitiesByName["Project"]), insertInto: context)
        for name in ["Ada", "Grace", "Linus"] {
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(department, forKey: "department")
            employee.addObject(project, toRelationship: "projects")
        }
        try context.save()
        let before = try ObjectGraphDump(context: context)
        let store = try #require(coordinator.persistentStores.first)
        let target = folder.file("Company.\(type.rawValue.lowercased())")
        try context.performAndWait {
            _ = try coordinator.migratePersistentStore(store, to: target, type: type)
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        let after = try ObjectGraphDump(storeAt: target, type: type)
        #expect(before.differences(from: after).isEmpty)
        #expect(before == after)
        #expect(after.counts["Employee"] == 3)
    }
}

/// Save As reports its progress in objects, so tools can draw a bar.
@Suite struct SaveAsProgressTests {
    @Test func progressCountsEveryObjectUpToTheTotal() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Runs.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        for index in 0..<2_500 {
            ManagedObject(entity: entity, insertInto: context).setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
        }
        try context.save()
        let calls = Mutex<[(Int, Int)]>([])
        let store = try #require(coordinator.persistentStores.first)
        try context.performAndWait {
            _ = try coordinator.migratePersistentStore(
                store, to: folder.file("Runs.binary"), type: .binary, progress: { copied, total in calls.withLock { $0.append((copied, total)) } })
        }
        let reported = calls.withLock { $0 }
        #expect(reported.first.map { $0 == (0, 2_500) } == true)
        #expect(reported.last.map { $0 == (2_500, 2_500) } == true)
        #expect(reported.count == 4)  // 0, then batches of 1,000, 1,000 and 500
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0.0 < $1.0 })
    }
}
