import Foundation
import OrderedCollections
import Testing

import Quire

/// Relationship maintenance that does not load a to-many set to add or remove one member (issue 15), against
/// a real SQLite file: the set stays a fault, reads right later, saves the right rows, and undoes.
@Suite struct DeferredMembersTests {
    let folder: TemporaryFolder
    let url: URL

    init() throws {
        folder = try TemporaryFolder()
        url = folder.file("Company.sqlite")
    }

    private func entity(_ context: ManagedObjectContext, _ name: String) throws -> EntityDescription {
        try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name])
    }

    private func make(_ context: ManagedObjectContext, _ entityName: String, _ key: String, _ value: String) throws -> ManagedObject {
        let object = ManagedObject(entity: try entity(context, entityName), insertInto: context)
        object.setValue(value, forKey: key)
        return object
    }

    /// Saves departments Research (Ada, Grace) and Sales (Linus), a project with both tasks, and Ada on it.
    private func seed() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = try make(context, "Department", "name", "Research")
        let sales = try make(context, "Department", "name", "Sales")
        let project = try make(context, "Project", "title", "Engine")
        for (name, department) in [("Ada", research), ("Grace", research), ("Linus", sales)] {
            let employee = try make(context, "Employee", "name", name)
            employee.setValue(department, forKey: "department")
            if name == "Ada" { employee.setValue(Set([project]), forKey: "projects") }
        }
        for title in ["design", "build"] {
            try make(context, "Task", "title", title).setValue(project, forKey: "project")
        }
        try context.save()
    }

    private func fetchOne(_ context: ManagedObjectContext, _ entityName: String, _ format: String, _ value: String) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: entityName)
        request.predicate = try QueryPredicate(format: format, value)
        return try #require(try context.fetch(request).first)
    }

    private func names(_ value: Any?) -> Set<String> {
        Set(((value as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String })
    }

    /// The department's employees as a new stack reads them from the file.
    private func savedEmployees(of department: String) throws -> Set<String> {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        return names(try fetchOne(context, "Department", "name == %@", department).value(forKey: "employees"))
    }

    @Test func settingAToOneLeavesTheInverseSetAFaultAndItReadsRightLater() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = try fetchOne(context, "Department", "name == %@", "Research")
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        let alan = try make(context, "Employee", "name", "Alan")
        alan.setValue(research, forKey: "department")
        #expect(research.hasFault(forRelationshipNamed: "employees"), "linking loaded the whole set")
        #expect(research.isUpdated)
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace", "Alan"])
        #expect(!research.hasFault(forRelationshipNamed: "employees"))
        try context.save()
        #expect(try savedEmployees(of: "Research") == ["Ada", "Grace", "Alan"])
    }

    /// Core Data's inverse maintenance of a to-one set fires the destination's fault: it reads the destination's
    /// to-many and sends it `willChangeValueForKey:withSetMutation:usingObjects:`, which fulfils a fault (so
    /// `isFault` is false afterwards; an app that looks registered objects up skipping faults, as Moody's
    /// `materializedObject` does, finds it). The set itself stays unloaded here, and rollback restores both sides.
    @Test func settingAToOneFiresTheDestinationFaultAndRollbackRestoresBothSides() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = try fetchOne(context, "Department", "name == %@", "Research")
        #expect(research.isFault)
        let alan = try make(context, "Employee", "name", "Alan")
        alan.setValue(research, forKey: "department")
        #expect(!research.isFault, "the destination of the inverse change is still a fault")
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(research.isUpdated)
        #expect(context.registeredObjects.contains { $0 === research && !$0.isFault })
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace", "Alan"])
        context.rollback()
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace"])
        #expect(!research.hasChanges)
        // A fault set from an existing (saved) object: the other side, a saved department, is fired as well.
        let sales = try fetchOne(context, "Department", "name == %@", "Sales")
        let grace = try fetchOne(context, "Employee", "name == %@", "Grace")
        #expect(sales.isFault)
        grace.setValue(sales, forKey: "department")
        #expect(!sales.isFault)
        #expect(names(sales.value(forKey: "employees")) == ["Linus", "Grace"])
        context.rollback()
        #expect((grace.value(forKey: "department") as? ManagedObject)?.value(forKey: "name") as? String == "Research")
        #expect(names(sales.value(forKey: "employees")) == ["Linus"])
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace"])
    }

    @Test func savingWithoutLoadingWritesTheRightRows() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = try fetchOne(context, "Department", "name == %@", "Research")
        let sales = try fetchOne(context, "Department", "name == %@", "Sales")
        let grace = try fetchOne(context, "Employee", "name == %@", "Grace")
        // Grace moves from Research to Sales; neither set is loaded.
        grace.setValue(sales, forKey: "department")
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(sales.hasFault(forRelationshipNamed: "employees"))
        try context.save()
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(try savedEmployees(of: "Research") == ["Ada"])
        #expect(try savedEmployees(of: "Sales") == ["Linus", "Grace"])
        // Loaded after the save, the sets are the store's (the recorded changes are not applied twice).
        #expect(names(research.value(forKey: "employees")) == ["Ada"])
        #expect(names(sales.value(forKey: "employees")) == ["Linus", "Grace"])
    }

    @Test func removingThroughTheToOneIsRecordedToo() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = try fetchOne(context, "Department", "name == %@", "Research")
        let ada = try fetchOne(context, "Employee", "name == %@", "Ada")
        ada.setValue(nil, forKey: "department")
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(names(research.value(forKey: "employees")) == ["Grace"])
        try context.save()
        #expect(try savedEmployees(of: "Research") == ["Grace"])
    }

    @Test func undoRestoresTheSetAndRedoAppliesItAgain() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        context.undoManager = UndoManager()
        let research = try fetchOne(context, "Department", "name == %@", "Research")
        let sales = try fetchOne(context, "Department", "name == %@", "Sales")
        let linus = try fetchOne(context, "Employee", "name == %@", "Linus")
        context.processPendingChanges()
        linus.setValue(research, forKey: "department")
        context.processPendingChanges()
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        context.undoManager?.undo()
        #expect(linus.value(forKey: "department") as? ManagedObject === sales)
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace"])
        #expect(names(sales.value(forKey: "employees")) == ["Linus"])
        context.undoManager?.redo()
        #expect(names(research.value(forKey: "employees")) == ["Ada", "Grace", "Linus"])
        #expect(names(sales.value(forKey: "employees")).isEmpty)
        try context.save()
        #expect(try savedEmployees(of: "Research") == ["Ada", "Grace", "Linus"])
    }

    @Test func orderedToManyInverseKeepsItsOrder() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let project = try fetchOne(context, "Project", "title == %@", "Engine")
        try make(context, "Task", "title", "ship").setValue(project, forKey: "project")
        let titles = ((project.value(forKey: "tasks") as? OrderedSet<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }
        #expect(titles == ["design", "build", "ship"])
        try context.save()
        let (_, fresh) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let saved = try fetchOne(fresh, "Project", "title == %@", "Engine")
        let savedTitles = ((saved.value(forKey: "tasks") as? OrderedSet<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }
        #expect(savedTitles == ["design", "build", "ship"])
    }

    @Test func manyToManyReadsAndSavesBothSides() throws {
        try seed()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let project = try fetchOne(context, "Project", "title == %@", "Engine")
        let grace = try fetchOne(context, "Employee", "name == %@", "Grace")
        grace.addObject(project, toRelationship: "projects")
        #expect(names(project.value(forKey: "members")) == ["Ada", "Grace"])
        try context.save()
        let (_, fresh) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        #expect(names(try fetchOne(fresh, "Project", "title == %@", "Engine").value(forKey: "members")) == ["Ada", "Grace"])
    }
}
