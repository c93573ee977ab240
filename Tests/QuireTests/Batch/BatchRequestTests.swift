import Foundation
import Testing

import Quire
import QuirePostgres

/// Batch delete, update and insert requests on every store type: what is in the file afterwards (SQLite rows,
/// external data files), what a new coordinator reads back, and what contexts see after merging.
@Suite struct BatchRequestTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Departments with employees (some of them managers, a sub-entity); `Department.employees` has the
    /// given delete rule, `Employee.department` nullifies.
    static func model(employeesRule: DeleteRule = .cascade, departmentOptional: Bool = true) -> ManagedObjectModel {
        let photo = AttributeDescription(name: "photo", type: .binaryData)
        photo.allowsExternalBinaryDataStorage = true
        let department = RelationshipDescription(name: "department", destination: "Department", inverse: "employees")
        department.isOptional = departmentOptional
        let employee = EntityDescription(name: "Employee", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "salary", type: .integer64),
            AttributeDescription(name: "bonus", type: .integer64),
            photo,
            department,
        ])
        let manager = EntityDescription(name: "Manager", properties: [AttributeDescription(name: "reports", type: .integer32)])
        employee.subentities = [manager]
        let employees = RelationshipDescription(name: "employees", destination: "Employee", toMany: true, inverse: "department")
        employees.deleteRule = employeesRule
        let departmentEntity = EntityDescription(name: "Department", properties: [
            AttributeDescription(name: "name", type: .string),
            employees,
        ])
        return ManagedObjectModel(entities: [departmentEntity, employee, manager])
    }

    struct Stack {
        let folder: TemporaryFolder
        let url: URL?
        let type: StoreType
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let options: StoreOptions

        init(_ type: StoreType, model: ManagedObjectModel = BatchRequestTests.model()) throws {
            folder = try TemporaryFolder()
            self.type = type
            switch type {
            case .inMemory: url = nil
            case .postgres: url = PostgresTestServer.storeURL()
            default: url = folder.file("Staff.\(type.rawValue.lowercased())")
            }
            var options = StoreOptions()
            options.externalDataThreshold = 16
            self.options = options
            coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: type, at: url, options: options)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
        }

        /// Ten employees with salaries 1…10 (even ones are managers), in one department; employee 3 has a photo
        /// large enough for an external file.
        @discardableResult
        func seed() throws -> ManagedObject {
            let entities = coordinator.managedObjectModel.entitiesByName
            let department = ManagedObject(entity: try #require(entities["Department"]), insertInto: context)
            department.setValue("R&D", forKey: "name")
            for salary in 1...10 {
                let employee = ManagedObject(entity: try #require(entities[salary % 2 == 0 ? "Manager" : "Employee"]), insertInto: context)
                employee.setValue("e\(salary)", forKey: "name")
                employee.setValue(Int64(salary), forKey: "salary")
                employee.setValue(department, forKey: "department")
                if salary == 3 { employee.setValue(Data(repeating: 7, count: 64), forKey: "photo") }
            }
            try context.save()
            return department
        }

        /// The salaries a fresh coordinator reads from the store file (the in-memory store: this one's).
        func storedSalaries(_ entity: String = "Employee") throws -> [Int64] {
            var reader = coordinator
            if let url {
                reader = try PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
                try reader.addPersistentStore(type: type, at: url, options: options)
            }
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = reader
            let request = FetchRequest<ManagedObject>(entityName: entity)
            request.sortDescriptors = [SortKey("salary")]
            return try context.fetch(request).map { ($0.value(forKey: "salary") as? Int64) ?? -1 }
        }
    }

    @Test(arguments: types)
    func batchDeleteByPredicateDeletesInTheStore(type: StoreType) throws {
        let stack = try Stack(type, model: Self.model(employeesRule: .nullify))
        try stack.seed()
        let fetch = FetchRequest<ManagedObject>(entityName: "Employee")
        fetch.predicate = try QueryPredicate(format: "salary > 5")
        let request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(Set(try #require(result.objectIDs).compactMap(\.primaryKey)).count == 5)
        #expect(try stack.storedSalaries() == [1, 2, 3, 4, 5])
        if type == .sqlite, let url = stack.url {
            let raw = try RawSQLite(url)
            #expect(try raw.rows("SELECT COUNT(*) FROM ZEMPLOYEE")[0][0].int64 == 5)
            #expect(try raw.rows("SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZSALARY > 5")[0][0].int64 == 0)
        }
    }

    @Test(arguments: types)
    func batchDeleteOfASubEntityLeavesTheOthers(type: StoreType) throws {
        let stack = try Stack(type, model: Self.model(employeesRule: .nullify))
        try stack.seed()
        let request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Manager"))
        request.resultType = .count
        #expect(try stack.context.execute(request).count == 5)
        #expect(try stack.storedSalaries() == [1, 3, 5, 7, 9])
        #expect(try stack.storedSalaries("Manager") == [])
    }

    @Test(arguments: types)
    func batchDeleteByObjectIDsAndMergeRemovesObjectsFromContexts(type: StoreType) throws {
        let stack = try Stack(type, model: Self.model(employeesRule: .nullify))
        try stack.seed()
        let fetch = FetchRequest<ManagedObject>(entityName: "Employee")
        fetch.predicate = try QueryPredicate(format: "salary <= 2")
        let doomed = try stack.context.fetch(fetch)
        #expect(doomed.count == 2)
        let result = try stack.context.execute(BatchDeleteRequest(objectIDs: doomed.filter { $0.entity.name == "Employee" }.map(\.objectID)))
        #expect(result.status)
        #expect(try stack.storedSalaries() == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        let deleted = try #require(doomed.first { $0.entity.name == "Employee" })
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [ManagedObjectContext.deletedObjectsKey: [deleted.objectID]], into: [stack.context])
        #expect(deleted.managedObjectContext == nil)
        #expect(!stack.context.registeredObjects.contains(deleted))
        // Mixing entities is refused, as in Core Data.
        #expect(throws: QuireError.self) { try stack.context.execute(BatchDeleteRequest(objectIDs: doomed.map(\.objectID))) }
    }

    @Test(arguments: types)
    func batchDeleteCascadesAndRemovesExternalData(type: StoreType) throws {
        let stack = try Stack(type)
        try stack.seed()
        if let url = stack.url { #expect(ExternalDataFiles(storeURL: url, type: type).fileNames().count == 1) }
        let request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Department"))
        request.resultType = .count
        #expect(try stack.context.execute(request).count == 11)
        #expect(try stack.storedSalaries() == [])
        if let url = stack.url { #expect(ExternalDataFiles(storeURL: url, type: type).fileNames().isEmpty) }
    }

    @Test(arguments: types)
    func batchDeleteNullifiesTheInverseOfSurvivors(type: StoreType) throws {
        let stack = try Stack(type, model: Self.model(employeesRule: .nullify))
        try stack.seed()
        try stack.context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Department")))
        #expect(try stack.storedSalaries().count == 10)
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = stack.coordinator
        let employees = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        #expect(employees.allSatisfy { $0.value(forKey: "department") == nil })
        if type == .sqlite, let url = stack.url {
            #expect(try RawSQLite(url).rows("SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZDEPARTMENT IS NOT NULL")[0][0].int64 == 0)
        }
    }

    @Test(arguments: types)
    func batchDeleteRefusesADenyRuleAndAMandatoryInverse(type: StoreType) throws {
        for model in [Self.model(employeesRule: .deny), Self.model(employeesRule: .nullify, departmentOptional: false)] {
            let stack = try Stack(type, model: model)
            try stack.seed()
            #expect(throws: QuireError.self) {
                try stack.context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Department")))
            }
            let reader = ManagedObjectContext()
            reader.persistentStoreCoordinator = stack.coordinator
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 1)
            #expect(try stack.storedSalaries().count == 10)
        }
    }

    @Test(arguments: types)
    func batchUpdateSetsConstantsAndCopiesAttributes(type: StoreType) throws {
        let stack = try Stack(type)
        try stack.seed()
        let watched = try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).first { $0.value(forKey: "salary") as? Int64 == 9 }
        let request = BatchUpdateRequest(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "salary >= 8")
        request.propertiesToUpdate = ["bonus": QueryExpression.keyPath("salary"), "name": "senior"]
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(try #require(result.objectIDs).count == 3)

        var reader = stack.coordinator
        if let url = stack.url {
            reader = try PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
            try reader.addPersistentStore(type: type, at: url, options: stack.options)
        }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = reader
        let fetch = FetchRequest<ManagedObject>(entityName: "Employee")
        fetch.sortDescriptors = [SortKey("salary")]
        let rows = try context.fetch(fetch).map { ($0.value(forKey: "name") as? String, $0.value(forKey: "bonus") as? Int64) }
        #expect(rows.map(\.0) == ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "senior", "senior", "senior"])
        #expect(rows.map(\.1) == [nil, nil, nil, nil, nil, nil, nil, 8, 9, 10])
        if type == .sqlite, let url = stack.url {
            #expect(try RawSQLite(url).rows("SELECT Z_OPT FROM ZEMPLOYEE WHERE ZSALARY >= 8").map(\.[0].int64) == [2, 2, 2])
        }

        // The context sees the change once it merges it.
        let object = try #require(watched)
        #expect(object.value(forKey: "name") as? String == "e9")
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [ManagedObjectContext.updatedObjectsKey: result.objectIDs ?? []], into: [stack.context])
        #expect(object.value(forKey: "name") as? String == "senior")
        // The object's version moved on with the record, so editing and saving it does not conflict.
        object.setValue(Int64(1), forKey: "bonus")
        try stack.context.save()
    }

    @Test(arguments: types)
    func batchUpdateRefusesRelationshipsAndMismatchedValues(type: StoreType) throws {
        let stack = try Stack(type)
        try stack.seed()
        for properties: [String: Any] in [["department": NSNull()], ["salary": "many"], ["salary": QueryExpression.keyPath("name")]] {
            let request = BatchUpdateRequest(entityName: "Employee")
            request.propertiesToUpdate = properties
            #expect(throws: QuireError.self) { try stack.context.execute(request) }
        }
        #expect(try stack.storedSalaries() == Array(1...10))
    }

    @Test(arguments: types)
    func batchInsertFromDictionariesAndAHandler(type: StoreType) throws {
        let stack = try Stack(type)
        let request = BatchInsertRequest(entityName: "Employee", objects: (1...3).map { ["name": "a\($0)", "salary": $0] })
        request.resultType = .objectIDs
        let ids = try #require(try stack.context.execute(request).objectIDs)
        #expect(ids.count == 3 && ids.allSatisfy { !$0.isTemporaryID })
        var next = 100
        let handled = BatchInsertRequest(entityName: "Manager") { dictionary in
            guard next < 105 else { return true }
            dictionary["salary"] = Int64(next)
            dictionary["reports"] = 2
            next += 1
            return false
        }
        handled.resultType = .count
        #expect(try stack.context.execute(handled).count == 5)
        #expect(try stack.storedSalaries() == [1, 2, 3, 100, 101, 102, 103, 104])
        #expect(try stack.storedSalaries("Manager") == [100, 101, 102, 103, 104])
        #expect(throws: QuireError.self) {
            try stack.context.execute(BatchInsertRequest(entityName: "Employee", objects: [["nope": 1]]))
        }
    }
}
