import Foundation
import Testing

import Quire

/// A subclass whose hooks record what ran, through a log shared by its objects.
final class HookedDepartment: ManagedObject {
    nonisolated(unsafe) static var log: [String] = []
    @Managed("name") var name: String?

    override func awakeFromInsert() { Self.log.append("awakeFromInsert") }
    override func willSave() { Self.log.append("willSave \(name ?? "-")") }
    override func validateForInsert() throws {
        try super.validateForInsert()
        if name == "forbidden" { throw QuireError(.managedObjectValidation, "Forbidden name.") }
        Self.log.append("validateForInsert \(name ?? "-")")
    }
    override func prepareForDeletion() {
        // Relationships still hold their objects: the delete rules have not run yet.
        let employees = (value(forKey: "employees") as? Set<ManagedObject>)?.count ?? -1
        Self.log.append("prepareForDeletion \(name ?? "-") employees=\(employees)")
    }
}

/// `init(entity:insertInto:)`, `insertNewObject(forEntityName:into:)` and `prepareForDeletion()` (issue 16,
/// lifecycle gaps).
@Suite(.serialized) struct LifecycleHookTests {
    private func stack(_ folder: TemporaryFolder) throws -> (ManagedObjectContext, EntityDescription) {
        let model = Fixtures.companyModel(departmentEmployeesRule: .nullify)
        let department = try #require(model.entitiesByName["Department"])
        department.managedObjectClass = HookedDepartment.self
        let (_, context) = try Fixtures.stack(model, at: folder.file("Hooks.sqlite"))
        return (context, department)
    }

    @Test func theBaseInitializerMakesTheEntitysSubclassAndItsOverridesRun() throws {
        HookedDepartment.log = []
        let folder = try TemporaryFolder()
        let (context, entity) = try stack(folder)
        let object = ManagedObject(entity: entity, insertInto: context)
        #expect(object is HookedDepartment)
        object.setValue("Sales", forKey: "name")
        try context.save()
        #expect(HookedDepartment.log == ["awakeFromInsert", "willSave Sales", "validateForInsert Sales"])

        let refused = ManagedObject(entity: entity, insertInto: context)
        refused.setValue("forbidden", forKey: "name")
        #expect(throws: QuireError.self) { try context.save() }
    }

    @Test func insertNewObjectMakesTheEntitysClassInTheContext() throws {
        HookedDepartment.log = []
        let folder = try TemporaryFolder()
        let (context, _) = try stack(folder)
        let department = try #require(EntityDescription.insertNewObject(forEntityName: "Department", into: context) as? HookedDepartment)
        department.name = "R&D"
        let employee = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        #expect(type(of: employee) == ManagedObject.self)
        #expect(context.insertedObjects.count == 2)
        try context.save()
        let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        #expect(fetched.count == 1 && fetched.first is HookedDepartment)
        #expect((fetched.first as? HookedDepartment)?.name == "R&D")
    }

    @Test func prepareForDeletionRunsBeforeTheDeleteRules() throws {
        HookedDepartment.log = []
        let folder = try TemporaryFolder()
        let (context, entity) = try stack(folder)
        let department = ManagedObject(entity: entity, insertInto: context)
        department.setValue("Ops", forKey: "name")
        let employee = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        employee.setValue(department, forKey: "department")
        try context.save()
        HookedDepartment.log = []
        context.delete(department)
        #expect(HookedDepartment.log.isEmpty)
        context.processPendingChanges()
        #expect(HookedDepartment.log == ["prepareForDeletion Ops employees=1"])
        // The nullify rule ran after it.
        #expect(employee.value(forKey: "department") == nil)
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 0)
    }
}
