import Foundation
import Testing

import Quire
@_exported import QuireTestSupport

/// Models shared by the tests.
enum Fixtures {
    /// Core Data's tutorial model: one entity, Run, with `date` (required) and `processID` (required,
    /// default -1).
    static func runModel() -> ManagedObjectModel {
        let run = EntityDescription(name: "Run")
        run.properties = [
            AttributeDescription(name: "date", type: .date, isOptional: false),
            AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
        ]
        return ManagedObjectModel(entities: [run])
    }

    /// Departments, employees, badges (one-to-one), projects (many-to-many with members), tasks (ordered
    /// to-many), and a Manager sub-entity of Employee.
    static func companyModel(departmentEmployeesRule: DeleteRule = .nullify) -> ManagedObjectModel {
        let department = EntityDescription(name: "Department", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(
                name: "employees", destination: "Employee", toMany: true, inverse: "department",
                deleteRule: departmentEmployeesRule),
        ])
        let employee = EntityDescription(name: "Employee", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "salary", type: .integer64, defaultValue: 0),
            RelationshipDescription(name: "department", destination: "Department", inverse: "employees"),
            RelationshipDescription(name: "badge", destination: "Badge", inverse: "owner", deleteRule: .cascade),
            RelationshipDescription(name: "projects", destination: "Project", toMany: true, inverse: "members"),
        ])
        let manager = EntityDescription(name: "Manager", properties: [
            AttributeDescription(name: "level", type: .integer16, defaultValue: 1)
        ])
        employee.subentities = [manager]
        let badge = EntityDescription(name: "Badge", properties: [
            AttributeDescription(name: "code", type: .string),
            RelationshipDescription(name: "owner", destination: "Employee", inverse: "badge"),
        ])
        let project = EntityDescription(name: "Project", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "members", destination: "Employee", toMany: true, inverse: "projects"),
            RelationshipDescription(
                name: "tasks", destination: "Task", toMany: true, isOrdered: true, inverse: "project", deleteRule: .cascade),
        ])
        let task = EntityDescription(name: "Task", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "project", destination: "Project", inverse: "tasks"),
        ])
        return ManagedObjectModel(entities: [department, employee, manager, badge, project, task])
    }

    /// A model with one attribute of every type.
    static func everyTypeModel() -> ManagedObjectModel {
        let entity = EntityDescription(name: "Sample", properties: AttributeType.allCases.map { type in
            let attribute = AttributeDescription(name: "v" + type.rawValue.capitalized, type: type)
            if type == .binaryData { attribute.allowsExternalBinaryDataStorage = true }
            return attribute
        } + [AttributeDescription(name: "plainData", type: .binaryData)])
        return ManagedObjectModel(entities: [entity])
    }

    /// A coordinator with one SQLite store at `url`, and a context on it.
    static func stack(_ model: ManagedObjectModel, at url: URL, options: StoreOptions = StoreOptions()) throws
        -> (PersistentStoreCoordinator, ManagedObjectContext)
    {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }
}
