import Foundation
import Testing

import Quire

/// Query generations: a pinned context reads the SQLite store as it was when its generation began, whatever
/// other contexts, coordinators or processes save later, until it saves, resets or merges.
@Suite struct QueryGenerationTests {
    let folder: TemporaryFolder
    let url: URL

    init() throws {
        folder = try TemporaryFolder()
        url = folder.file("Company.sqlite")
        let (_, context) = try stack()
        try context.performAndWait {
            let department = try insert("Department", ["name": "Sales"], into: context)
            for name in ["Ann", "Bob"] {
                let employee = try insert("Employee", ["name": name, "salary": Int64(100)], into: context)
                employee.setValue(department, forKey: "department")
            }
            try context.save()
        }
    }

    private func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @discardableResult
    private func insert(_ entity: String, _ values: [String: Any], into context: ManagedObjectContext) throws -> ManagedObject {
        let description = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entity])
        let object = ManagedObject(entity: description, insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private func names(_ context: ManagedObjectContext) throws -> [String] {
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortDescriptors = [SortKey("name")]
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }

    /// Another coordinator (as another process would) inserts Cat, renames Ann and raises Bob's salary.
    private func changeFromElsewhere() throws {
        let (_, other) = try stack()
        try other.performAndWait {
            try insert("Employee", ["name": "Cat"], into: other)
            let request = FetchRequest<ManagedObject>(entityName: "Employee")
            for employee in try other.fetch(request) {
                if employee.value(forKey: "name") as? String == "Ann" { employee.setValue("Anna", forKey: "name") }
                if employee.value(forKey: "name") as? String == "Bob" { employee.setValue(Int64(200), forKey: "salary") }
            }
            try other.save()
        }
    }

    @Test func aPinnedContextKeepsReadingItsGeneration() throws {
        let (_, pinned) = try stack()
        let (_, unpinned) = try stack()
        try pinned.setQueryGenerationFrom(.current)
        #expect(pinned.queryGenerationToken == .current)
        #expect(try names(pinned) == ["Ann", "Bob"])  // opens the generation
        let token = try #require(pinned.queryGenerationToken)
        #expect(!token.isCurrent)
        try changeFromElsewhere()

        #expect(try names(unpinned) == ["Anna", "Bob", "Cat"])
        #expect(try pinned.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 2)
        pinned.reset()
        // A reset moves the context on: to the generation current at its next read.
        #expect(pinned.queryGenerationToken == .current)
        #expect(try names(pinned) == ["Anna", "Bob", "Cat"])
    }

    @Test func faultsFireAgainstTheGeneration() throws {
        let (_, pinned) = try stack()
        try pinned.setQueryGenerationFrom(.current)
        let departments = try pinned.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        let sales = try #require(departments.first)
        try changeFromElsewhere()
        // Neither the employees nor the to-many relationship were read before the change.
        let employees = try #require(sales.value(forKey: "employees") as? Set<ManagedObject>)
        #expect(Set(employees.compactMap { $0.value(forKey: "name") as? String }) == ["Ann", "Bob"])
        #expect(employees.compactMap { $0.value(forKey: "salary") as? Int64 }.allSatisfy { $0 == 100 })
    }

    @Test func aTokenPinsAnotherContextOfTheSameCoordinatorToTheSameView() throws {
        let (coordinator, first) = try stack()
        try first.setQueryGenerationFrom(.current)
        _ = try names(first)
        let token = try #require(first.queryGenerationToken)
        try changeFromElsewhere()
        let second = ManagedObjectContext()
        second.persistentStoreCoordinator = coordinator
        #expect(try names(second) == ["Anna", "Bob", "Cat"])
        try second.setQueryGenerationFrom(token)
        second.refreshAllObjects()
        #expect(try names(second) == ["Ann", "Bob"])
        try second.setQueryGenerationFrom(nil)
        #expect(second.queryGenerationToken == nil)
        second.refreshAllObjects()
        #expect(try names(second) == ["Anna", "Bob", "Cat"])

        let (_, stranger) = try stack()
        let error = try #require(throws: QuireError.self) { try stranger.setQueryGenerationFrom(token) }
        #expect(error.code == .invalidArgument)
    }

    @Test func savingMovesTheContextOn() throws {
        let (_, pinned) = try stack()
        try pinned.setQueryGenerationFrom(.current)
        _ = try names(pinned)
        try changeFromElsewhere()
        try pinned.performAndWait {
            try insert("Department", ["name": "Support"], into: pinned)
            try pinned.save()
        }
        #expect(pinned.queryGenerationToken == .current)
        // Registered objects keep their values until refreshed, as in Core Data.
        #expect(try names(pinned) == ["Ann", "Bob", "Cat"])
        pinned.refreshAllObjects()
        #expect(try names(pinned) == ["Anna", "Bob", "Cat"])
    }

    @Test func aReleasedGenerationLetsTheWALBeCheckpointed() throws {
        let (_, pinned) = try stack()
        try pinned.setQueryGenerationFrom(.current)
        _ = try names(pinned)
        try changeFromElsewhere()
        let raw = try RawSQLite(url, readOnly: false)
        // PRAGMA wal_checkpoint answers (busy, log frames, checkpointed frames): a reader of an older
        // snapshot keeps the checkpoint from finishing.
        #expect(try raw.rows("PRAGMA wal_checkpoint(TRUNCATE)").first?.first?.int64 == 1)
        try pinned.setQueryGenerationFrom(nil)
        pinned.reset()
        #expect(try raw.rows("PRAGMA wal_checkpoint(TRUNCATE)").first?.first?.int64 == 0)
    }

    @Test func storesOtherThanSQLiteCannotBePinned() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .binary, at: folder.file("Company.binary"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let error = try #require(throws: QuireError.self) { try context.setQueryGenerationFrom(.current) }
        #expect(error.code == .persistentStoreOperation)
        #expect(error.message.contains("Company.binary"))
        #expect(context.queryGenerationToken == nil)
    }

    @Test func aChildContextIsPinnedThroughItsParent() throws {
        let (_, parent) = try stack()
        let child = ManagedObjectContext()
        child.parent = parent
        let error = try #require(throws: QuireError.self) { try child.setQueryGenerationFrom(.current) }
        #expect(error.code == .invalidArgument)
        try parent.setQueryGenerationFrom(.current)
        _ = try names(parent)
        try changeFromElsewhere()
        #expect(try names(child) == ["Ann", "Bob"])
    }
}
