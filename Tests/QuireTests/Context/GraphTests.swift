import Foundation
import OrderedCollections
import Testing

import Quire

/// Uniquing, faulting and inverse maintenance against a real SQLite file.
@Suite struct GraphTests {
    let folder: TemporaryFolder
    let url: URL

    init() throws {
        folder = try TemporaryFolder()
        url = folder.file("Company.sqlite")
    }

    private func entity(_ context: ManagedObjectContext, _ name: String) throws -> EntityDescription {
        try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name])
    }

    /// Saves a department with two employees, returns nothing; a fresh stack reads it back.
    func seedDepartment() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let department = ManagedObject(entity: try entity(context, "Department"), insertInto: context)
        department.setValue("Research", forKey: "name")
        for name in ["Ada", "Grace"] {
            let employee = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(department, forKey: "department")
        }
        try context.save()
    }

    @Test func twoEmployeesOfOneDepartmentShareOneDepartmentObject() throws {
        try seedDepartment()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let employees = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        #expect(employees.count == 2)
        let first = try #require(employees[0].value(forKey: "department") as? ManagedObject)
        let second = try #require(employees[1].value(forKey: "department") as? ManagedObject)
        #expect(first === second)
        #expect(first.isFault)
        // Fetching the department directly gives the same object, now filled.
        let request = FetchRequest<ManagedObject>(entityName: "Department")
        request.returnsObjectsAsFaults = false
        let departments = try context.fetch(request)
        #expect(departments.count == 1)
        #expect(departments[0] === first)
        #expect(!first.isFault)
        // And through the inverse, the employees are the fetched objects themselves.
        let members = try #require(first.value(forKey: "employees") as? Set<ManagedObject>)
        #expect(members == Set(employees))
        #expect(context.object(with: first.objectID) === first)
    }

    @Test func refreshWithoutMergeDiscardsUnsavedChanges() throws {
        try seedDepartment()
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let employee = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))[0]
        let original = employee.value(forKey: "name") as? String
        employee.setValue("Changed", forKey: "name")
        #expect(employee.isUpdated)
        #expect(employee.committedValues(forKeys: ["name"])["name"] as? String == original)
        context.refresh(employee, mergeChanges: false)
        #expect(!employee.isUpdated && !context.hasChanges)
        #expect(employee.value(forKey: "name") as? String == original)
    }

    @Test func oneToManyInverseIsKeptOnBothSides() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let research = ManagedObject(entity: try entity(context, "Department"), insertInto: context)
        let sales = ManagedObject(entity: try entity(context, "Department"), insertInto: context)
        let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        ada.setValue(research, forKey: "department")
        #expect((research.value(forKey: "employees") as? Set<ManagedObject>) == [ada])
        // Moving her to another department removes her from the first.
        sales.addObject(ada, toRelationship: "employees")
        #expect(ada.value(forKey: "department") as? ManagedObject === sales)
        #expect((research.value(forKey: "employees") as? Set<ManagedObject>)?.isEmpty == true)
        research.setValue(Set([ada]), forKey: "employees")
        #expect(ada.value(forKey: "department") as? ManagedObject === research)
        #expect((sales.value(forKey: "employees") as? Set<ManagedObject>)?.isEmpty == true)
        ada.setValue(nil, forKey: "department")
        #expect((research.value(forKey: "employees") as? Set<ManagedObject>)?.isEmpty == true)
        ada.setValue(sales, forKey: "department")
        try context.save()
        let (_, reader) = try Fixtures.stack(Fixtures.companyModel(), at: folder.file("Company.sqlite"))
        let departments = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
        let counts = departments.map { ($0.value(forKey: "employees") as? Set<ManagedObject>)?.count ?? -1 }.sorted()
        #expect(counts == [0, 1])
    }

    @Test func oneToOneInverseReleasesThePreviousPartner() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        let grace = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        let badge = ManagedObject(entity: try entity(context, "Badge"), insertInto: context)
        ada.setValue(badge, forKey: "badge")
        #expect(badge.value(forKey: "owner") as? ManagedObject === ada)
        badge.setValue(grace, forKey: "owner")
        #expect(grace.value(forKey: "badge") as? ManagedObject === badge)
        #expect(ada.value(forKey: "badge") == nil)
        try context.save()
        let (_, reader) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let badges = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Badge"))
        let owner = try #require(badges[0].value(forKey: "owner") as? ManagedObject)
        #expect(owner.value(forKey: "badge") as? ManagedObject === badges[0])
    }

    @Test func manyToManyInverseAndJoinTableRoundTrip() throws {
        do {
            let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
            let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
            ada.setValue("Ada", forKey: "name")
            let grace = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
            grace.setValue("Grace", forKey: "name")
            let engine = ManagedObject(entity: try entity(context, "Project"), insertInto: context)
            engine.setValue("Engine", forKey: "title")
            let compiler = ManagedObject(entity: try entity(context, "Project"), insertInto: context)
            compiler.setValue("Compiler", forKey: "title")
            ada.setValue(Set([engine, compiler]), forKey: "projects")
            compiler.addObject(grace, toRelationship: "members")
            #expect((engine.value(forKey: "members") as? Set<ManagedObject>) == [ada])
            #expect((grace.value(forKey: "projects") as? Set<ManagedObject>) == [compiler])
            try context.save()
            // Remove one link after the save: the join row goes too.
            ada.removeObject(engine, fromRelationship: "projects")
            #expect((engine.value(forKey: "members") as? Set<ManagedObject>)?.isEmpty == true)
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Project")
        request.sortDescriptors = [SortKey("title")]
        let projects = try context.fetch(request)
        let names = projects.map { project in
            ((project.value(forKey: "members") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == [["Ada", "Grace"], []])
    }

    @Test func orderedToManyKeepsItsOrderThroughTheStore() throws {
        do {
            let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
            let project = ManagedObject(entity: try entity(context, "Project"), insertInto: context)
            var tasks: [ManagedObject] = []
            for title in ["c", "a", "d", "b"] {
                let task = ManagedObject(entity: try entity(context, "Task"), insertInto: context)
                task.setValue(title, forKey: "title")
                tasks.append(task)
            }
            project.setValue(OrderedSet(tasks), forKey: "tasks")
            #expect(tasks[2].value(forKey: "project") as? ManagedObject === project)
            try context.save()
            // Reorder after the first save.
            project.setValue(OrderedSet([tasks[3], tasks[2], tasks[1], tasks[0]]), forKey: "tasks")
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let project = try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Project")).first)
        let tasks = try #require(project.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
        #expect(tasks.map { $0.value(forKey: "title") as? String } == ["b", "d", "a", "c"])
    }

    @Test(arguments: [DeleteRule.nullify, .cascade, .deny, .noAction])
    func deleteRulesOfDepartmentEmployees(rule: DeleteRule) throws {
        let model = Fixtures.companyModel(departmentEmployeesRule: rule)
        let (_, context) = try Fixtures.stack(model, at: url)
        let department = ManagedObject(entity: try entity(context, "Department"), insertInto: context)
        let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        ada.setValue(department, forKey: "department")
        try context.save()
        context.delete(department)
        switch rule {
        case .deny:
            let error = try #require(throws: QuireError.self) { try context.save() }
            #expect(error.code == .validationRelationshipDeniedDelete)
            #expect(error.context.key == "employees")
            #expect(error.message.contains("Department"))
            context.rollback()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 1)
        case .cascade:
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 0)
            #expect(ada.managedObjectContext == nil)
        case .nullify:
            try context.save()
            #expect(ada.value(forKey: "department") == nil)
            let (_, reader) = try Fixtures.stack(model, at: folder.file("Company.sqlite"))
            let employees = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
            #expect(employees.count == 1)
            #expect(employees[0].value(forKey: "department") == nil)
        case .noAction:
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 0)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 1)
        }
    }

    @Test func cascadeThroughOneToOneAndOrderedToMany() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        let badge = ManagedObject(entity: try entity(context, "Badge"), insertInto: context)
        ada.setValue(badge, forKey: "badge")
        let project = ManagedObject(entity: try entity(context, "Project"), insertInto: context)
        let task = ManagedObject(entity: try entity(context, "Task"), insertInto: context)
        task.setValue(project, forKey: "project")
        try context.save()
        context.delete(ada)
        context.delete(project)
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Badge")) == 0)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Task")) == 0)
    }

    @Test func subEntityObjectsAreFetchedThroughTheirParent() throws {
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let manager = ManagedObject(entity: try entity(context, "Manager"), insertInto: context)
        manager.setValue("Boss", forKey: "name")
        manager.setValue(3, forKey: "level")
        let employee = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        employee.setValue("Worker", forKey: "name")
        try context.save()
        let (_, reader) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        #expect(all.count == 2)
        let managers = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Manager"))
        #expect(managers.count == 1)
        #expect(managers[0].entity.name == "Manager")
        #expect(managers[0].value(forKey: "level") as? Int16 == 3)
        let onlyEmployees = FetchRequest<ManagedObject>(entityName: "Employee")
        onlyEmployees.includesSubentities = false
        #expect(try reader.fetch(onlyEmployees).map { $0.value(forKey: "name") as? String } == ["Worker"])
    }

    @Test func objectIDsRoundTripThroughURIs() throws {
        let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        let ada = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        #expect(ada.objectID.isTemporaryID)
        #expect(ada.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Employee/t"))
        try context.save()
        let uri = ada.objectID.uriRepresentation()
        let store = try #require(coordinator.persistentStores.first)
        #expect(uri.absoluteString == "x-coredata://\(store.identifier)/Employee/p1")
        #expect(coordinator.managedObjectID(forURIRepresentation: uri) == ada.objectID)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Employee/p1")!) == nil)
    }
}

/// Ordered many-to-many relationships keep both sides' orders through the store, also when both sides are
/// inserted by the same save.
@Suite struct OrderedManyToManyTests {
    static func model() -> ManagedObjectModel {
        let playlist = EntityDescription(name: "Playlist", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "songs", destination: "Song", toMany: true, isOrdered: true, inverse: "playlists"),
        ])
        let song = EntityDescription(name: "Song", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "playlists", destination: "Playlist", toMany: true, isOrdered: true, inverse: "songs"),
        ])
        return ManagedObjectModel(entities: [playlist, song])
    }

    @Test func bothOrdersSurviveOneSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Music.sqlite")
        do {
            let (coordinator, context) = try Fixtures.stack(Self.model(), at: url)
            let model = coordinator.managedObjectModel
            // Songs (the inverse side of the join table) are inserted first, so they come first in the save.
            let songs = try ["x", "y", "z"].map { title -> ManagedObject in
                let song = ManagedObject(entity: try #require(model.entitiesByName["Song"]), insertInto: context)
                song.setValue(title, forKey: "title")
                return song
            }
            let lists = try ["A", "B"].map { name -> ManagedObject in
                let list = ManagedObject(entity: try #require(model.entitiesByName["Playlist"]), insertInto: context)
                list.setValue(name, forKey: "name")
                return list
            }
            lists[0].setValue(OrderedSet([songs[2], songs[0], songs[1]]), forKey: "songs")
            lists[1].setValue(OrderedSet([songs[1], songs[2]]), forKey: "songs")
            // Song z lists B before A.
            songs[2].setValue(OrderedSet([lists[1], lists[0]]), forKey: "playlists")
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let lists = try context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist"))
            .sorted { ($0.value(forKey: "name") as? String ?? "") < ($1.value(forKey: "name") as? String ?? "") }
        func titles(_ list: ManagedObject) -> [String?] {
            ((list.value(forKey: "songs") as? OrderedSet<ManagedObject>) ?? []).map { $0.value(forKey: "title") as? String }
        }
        #expect(titles(lists[0]) == ["z", "x", "y"])
        #expect(titles(lists[1]) == ["y", "z"])
        let songZ = try #require(((lists[0].value(forKey: "songs") as? OrderedSet<ManagedObject>) ?? []).first)
        let order = ((songZ.value(forKey: "playlists") as? OrderedSet<ManagedObject>) ?? []).map { $0.value(forKey: "name") as? String }
        #expect(order == ["B", "A"])
    }
}

/// Faults keep the rows they were fetched with, but never fire with values another context has saved over.
@Suite struct HeldRowTests {
    @Test func aFaultFiredAfterAnotherContextSavedSeesTheNewValues() throws {
        let folder = try TemporaryFolder()
        let (coordinator, writer) = try Fixtures.stack(Fixtures.runModel(), at: folder.file("Runs.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        for index in 0..<3 {
            let run = ManagedObject(entity: entity, insertInto: writer)
            run.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
            run.setValue(index, forKey: "processID")
        }
        try writer.save()
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("processID")]
        let faults = try reader.fetch(request)
        #expect(faults.allSatisfy { $0.isFault })
        // The writer changes the first run and deletes the second after the reader fetched them.
        let runs = try writer.fetch(request)
        runs[0].setValue(42, forKey: "processID")
        writer.delete(runs[1])
        try writer.save()
        #expect(faults[0].value(forKey: "processID") as? Int64 == 42)
        #expect(faults[1].value(forKey: "processID") == nil)
        #expect(faults[2].value(forKey: "processID") as? Int64 == 2)
    }
}
