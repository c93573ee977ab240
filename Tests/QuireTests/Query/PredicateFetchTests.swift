import Foundation
import Testing

import Quire

/// Predicates on fetches from a real SQLite store (evaluated in memory until the SQL compiler lands), with
/// pending changes and key paths through relationships.
@Suite struct PredicateFetchTests {
    @Test func fetchesFilterByPredicateIncludingPendingChanges() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("Company.sqlite"))
        let model = coordinator.managedObjectModel
        let research = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
        research.setValue("Research", forKey: "name")
        var employees: [ManagedObject] = []
        for (name, salary) in [("Ada", 300), ("Grace", 200), ("Linus", 100), ("Ken", 250)] {
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(salary, forKey: "salary")
            if name != "Linus" { employee.setValue(research, forKey: "department") }
            employees.append(employee)
        }
        try context.save()

        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "salary >= %d AND department.name ==[c] %@", 200, "research")
        request.sortDescriptors = [SortKey("salary", ascending: false)]
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["Ada", "Ken", "Grace"])
        #expect(try context.count(for: request) == 3)

        // An unsaved change is judged by its current value.
        employees[0].setValue(50, forKey: "salary")
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["Ken", "Grace"])
        request.fetchLimit = 1
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["Ken"])

        let members = FetchRequest<ManagedObject>(entityName: "Department")
        members.predicate = try QueryPredicate(format: "employees.@count == 3 AND ANY employees.name BEGINSWITH 'G'")
        #expect(try context.fetch(members).count == 1)
        let byObject = FetchRequest<ManagedObject>(entityName: "Employee")
        byObject.predicate = try QueryPredicate(format: "department == %@", research)
        #expect(try context.count(for: byObject) == 3)
    }

    /// A fetch while the context has changes asks whether its predicate reads other objects (a key path of several
    /// keys, a to-many key): those are answered in memory from the objects' current values, whether the key path
    /// was split when the predicate was made (`key == %@`) or is read from the expression.
    @Test func predicatesThroughRelationshipsSeeUnsavedChanges() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("Company.sqlite"))
        let model = coordinator.managedObjectModel
        let department = try #require(model.entitiesByName["Department"])
        let research = ManagedObject(entity: department, insertInto: context)
        research.setValue("Research", forKey: "name")
        let sales = ManagedObject(entity: department, insertInto: context)
        sales.setValue("Sales", forKey: "name")
        let ada = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
        ada.setValue("Ada", forKey: "name")
        ada.setValue(300, forKey: "salary")
        ada.setValue(research, forKey: "department")
        try context.save()

        ada.setValue(sales, forKey: "department")
        sales.setValue("Market", forKey: "name")
        let holding = FetchRequest<ManagedObject>(entityName: "Department")
        holding.predicate = try QueryPredicate(format: "employees CONTAINS %@", ada)
        #expect(try context.fetch(holding).map { $0.value(forKey: "name") as? String } == ["Market"])
        let byName = FetchRequest<ManagedObject>(entityName: "Employee")
        byName.predicate = try QueryPredicate(format: "department.name == %@", "Market")
        #expect(try context.fetch(byName).map { $0.value(forKey: "name") as? String } == ["Ada"])
        byName.predicate = try QueryPredicate(format: "(department.name == %@)", "Research")
        #expect(try context.fetch(byName).isEmpty)
        // A key of the entity's own is still the store's to read, merged with the change.
        let own = FetchRequest<ManagedObject>(entityName: "Department")
        own.predicate = try QueryPredicate(format: "name == %@", "Market")
        let found = try context.fetch(own)
        #expect(found.count == 1 && found.first === sales)
    }
}
