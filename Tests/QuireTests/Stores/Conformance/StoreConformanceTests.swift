import Foundation
import OrderedCollections
import Testing

import Quire

/// One suite for every store type: the same graph, the same fetches, the same answers.
@Suite struct StoreConformanceTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A company: two departments, four employees (one a manager), badges, two projects and ordered tasks.
    private func makeCompany(_ stack: ConformanceStack) throws {
        let research = try stack.insert("Department", ["name": "Research"])
        let sales = try stack.insert("Department", ["name": "Sales"])
        let ada = try stack.insert("Employee", ["name": "Ada", "salary": 300])
        let bob = try stack.insert("Employee", ["name": "Bob", "salary": 200])
        let cy = try stack.insert("Employee", ["name": "Cy", "salary": 100])
        let dee = try stack.insert("Manager", ["name": "Dee", "salary": 400, "level": 3])
        ada.setValue(research, forKey: "department")
        bob.setValue(research, forKey: "department")
        cy.setValue(sales, forKey: "department")
        dee.setValue(research, forKey: "department")
        ada.setValue(try stack.insert("Badge", ["code": "A-1"]), forKey: "badge")
        dee.setValue(try stack.insert("Badge", ["code": "D-4"]), forKey: "badge")
        let engine = try stack.insert("Project", ["title": "Engine"])
        let atlas = try stack.insert("Project", ["title": "Atlas"])
        engine.setValue(Set([ada, bob, dee]), forKey: "members")
        atlas.setValue(Set([ada, cy]), forKey: "members")
        let tasks = try ["design", "build", "test"].map { try stack.insert("Task", ["title": $0]) }
        engine.setValue(OrderedSet(tasks), forKey: "tasks")
        try stack.context.save()
    }

    private func names(_ objects: some Sequence<ManagedObject>, _ key: String = "name") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "?" }
    }

    @Test(arguments: StoreKind.all)
    func insertUpdateDeleteAndReopen(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        var again = try stack.reopened()
        #expect(try again.fetch("Employee").count == 4)
        #expect(try again.fetch("Manager").count == 1)
        let bob = try #require(try again.fetch("Employee", "name == %@", "Bob").first)
        bob.setValue(250, forKey: "salary")
        let cy = try #require(try again.fetch("Employee", "name == %@", "Cy").first)
        again.context.delete(cy)
        try again.context.save()

        again = try again.reopened()
        let employees = try again.fetch("Employee", sort: [SortKey("name")])
        #expect(names(employees) == ["Ada", "Bob", "Dee"])
        #expect(employees[1].value(forKey: "salary") as? Int64 == 250)
        let sales = try #require(try again.fetch("Department", "name == 'Sales'").first)
        #expect((sales.value(forKey: "employees") as? Set<ManagedObject>)?.isEmpty == true)
        let atlas = try #require(try again.fetch("Project", "title == 'Atlas'").first)
        #expect(names(try #require(atlas.value(forKey: "members") as? Set<ManagedObject>)) == ["Ada"])
        #expect(try again.context.count(for: FetchRequest<ManagedObject>(entityName: "Badge")) == 2)
    }

    @Test(arguments: StoreKind.all)
    func everyRelationshipKindSurvivesReopening(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let again = try stack.reopened()
        let research = try #require(try again.fetch("Department", "name == 'Research'").first)
        // To-many with a to-one inverse, whose members include a sub-entity.
        let staff = try #require(research.value(forKey: "employees") as? Set<ManagedObject>)
        #expect(names(staff).sorted() == ["Ada", "Bob", "Dee"])
        #expect(staff.first { $0.value(forKey: "name") as? String == "Dee" }?.entity.name == "Manager")
        // To-one and one-to-one.
        let dee = try #require(try again.fetch("Employee", "name == 'Dee'").first)
        #expect((dee.value(forKey: "department") as? ManagedObject) === research)
        let badge = try #require(dee.value(forKey: "badge") as? ManagedObject)
        #expect(badge.value(forKey: "code") as? String == "D-4")
        #expect((badge.value(forKey: "owner") as? ManagedObject) === dee)
        // Many-to-many, both ways.
        let engine = try #require(try again.fetch("Project", "title == 'Engine'").first)
        #expect(names(try #require(engine.value(forKey: "members") as? Set<ManagedObject>)).sorted() == ["Ada", "Bob", "Dee"])
        #expect(names(try #require(dee.value(forKey: "projects") as? Set<ManagedObject>), "title") == ["Engine"])
        // Ordered to-many keeps its order.
        let tasks = try #require(engine.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
        #expect(tasks.map { $0.value(forKey: "title") as? String } == ["design", "build", "test"])
        #expect((tasks[0].value(forKey: "project") as? ManagedObject) === engine)

        // Reordering and removing through the relationship are saved too.
        engine.setValue(OrderedSet([tasks[2], tasks[0]]), forKey: "tasks")
        try again.context.save()
        let third = try again.reopened()
        let reread = try #require(try third.fetch("Project", "title == 'Engine'").first)
        let order = try #require(reread.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
        #expect(order.map { $0.value(forKey: "title") as? String } == ["test", "design"])
    }

    @Test(arguments: StoreKind.all)
    func everyAttributeTypeRoundTrips(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder)
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let uuid = UUID()
        let blob = Data((0..<300).map { UInt8($0 % 256) })
        let values: [String: Any] = [
            "vInteger16": Int16(-12), "vInteger32": Int32(123_456), "vInteger64": Int64.max,
            "vDecimal": Decimal(string: "12.375") ?? 0, "vDouble": 2.5, "vFloat": Float(1.25),
            "vString": "héllo <&> \"wörld\" ]]> \u{1F600}", "vBoolean": true, "vDate": date, "vBinarydata": blob,
            "vUuid": uuid, "vUri": URL(string: "https://example.org/a?b=c&d=e") as Any,
            "vTransformable": ["tags": ["a", "b"]], "plainData": Data([0, 1, 2]),
        ]
        _ = try stack.insert("Sample", values)
        _ = try stack.insert("Sample", ["vString": ""])
        try stack.context.save()
        let again = try stack.reopened()
        let samples = try again.fetch("Sample", sort: [SortKey("vString", ascending: false)])
        #expect(samples.count == 2)
        let object = try #require(samples.first)
        #expect(object.value(forKey: "vInteger16") as? Int16 == -12)
        #expect(object.value(forKey: "vInteger32") as? Int32 == 123_456)
        #expect(object.value(forKey: "vInteger64") as? Int64 == Int64.max)
        #expect(object.value(forKey: "vDecimal") as? Decimal == Decimal(string: "12.375"))
        #expect(object.value(forKey: "vDouble") as? Double == 2.5)
        #expect(object.value(forKey: "vFloat") as? Float == 1.25)
        #expect(object.value(forKey: "vString") as? String == "héllo <&> \"wörld\" ]]> \u{1F600}")
        #expect(object.value(forKey: "vBoolean") as? Bool == true)
        #expect(object.value(forKey: "vDate") as? Date == date)
        #expect(object.value(forKey: "vBinarydata") as? Data == blob)
        #expect(object.value(forKey: "vUuid") as? UUID == uuid)
        #expect(object.value(forKey: "vUri") as? URL == URL(string: "https://example.org/a?b=c&d=e"))
        #expect((object.value(forKey: "vTransformable") as? [String: [String]]) == ["tags": ["a", "b"]])
        #expect(object.value(forKey: "plainData") as? Data == Data([0, 1, 2]))
        let empty = samples[1]
        #expect(empty.value(forKey: "vString") as? String == "")
        #expect(empty.value(forKey: "vInteger64") == nil)
        #expect(empty.value(forKey: "vBinarydata") == nil)
    }

    @Test(arguments: StoreKind.all)
    func faultsFireFromTheStore(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let ids = try stack.context.fetch(FetchRequest<ObjectID>(entityName: "Employee"))
        #expect(ids.count == 4)
        let again = try stack.reopened()
        let remapped = try ids.map { id in
            try #require(again.coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        }
        let faults = remapped.map { again.context.object(with: $0) }
        #expect(faults.allSatisfy { $0.isFault })
        #expect(Set(names(faults)) == ["Ada", "Bob", "Cy", "Dee"])
        #expect(!faults.contains { $0.isFault })
        let ada = try #require(faults.first { $0.value(forKey: "name") as? String == "Ada" })
        #expect((ada.value(forKey: "projects") as? Set<ManagedObject>)?.count == 2)
    }

    @Test(arguments: StoreKind.all)
    func countsFollowSavesAfterAReopen(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let again = try stack.reopened()
        let everyone = FetchRequest<ManagedObject>(entityName: "Employee")
        let plain = FetchRequest<ManagedObject>(entityName: "Employee")
        plain.includesSubentities = false
        let managers = FetchRequest<ManagedObject>(entityName: "Manager")
        func counts() throws -> [Int] {
            try [everyone, plain, managers].map { try again.context.count(for: $0) }
        }
        #expect(try counts() == [4, 3, 1])
        _ = try again.insert("Manager", ["name": "Eve", "salary": 500, "level": 2])
        _ = try again.insert("Employee", ["name": "Fay", "salary": 50])
        try again.context.save()
        #expect(try counts() == [6, 4, 2])
        for name in ["Ada", "Dee"] {
            again.context.delete(try #require(try again.fetch("Employee", "name == %@", name).first))
        }
        try again.context.save()
        #expect(try counts() == [4, 3, 1])
        #expect(try again.reopened().context.count(for: everyone) == 4)
    }

    @Test(arguments: StoreKind.all)
    func fetchesWithPredicatesAndSorts(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let again = try stack.reopened()
        #expect(names(try again.fetch("Employee", "salary >= %d", 200, sort: [SortKey("salary", ascending: false)])) == ["Dee", "Ada", "Bob"])
        #expect(names(try again.fetch("Employee", "department.name ==[c] %@", "research", sort: [SortKey("name")])) == ["Ada", "Bob", "Dee"])
        #expect(names(try again.fetch("Employee", "ANY projects.title == 'Atlas'", sort: [SortKey("name")])) == ["Ada", "Cy"])
        #expect(names(try again.fetch("Department", "employees.@count > 1"))  == ["Research"])
        #expect(names(try again.fetch("Employee", "name BEGINSWITH[c] 'd' OR salary < 150", sort: [SortKey("name")])) == ["Cy", "Dee"])
        #expect(names(try again.fetch("Employee", "SUBQUERY(projects, $p, $p.title == 'Engine').@count > 0 AND NOT name IN {'Bob'}", sort: [SortKey("name")])) == ["Ada", "Dee"])
        #expect(names(try again.fetch("Employee", sort: [SortKey("department.name", ascending: false), SortKey("name")])) == ["Cy", "Ada", "Bob", "Dee"])
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortDescriptors = [SortKey("salary")]
        request.fetchOffset = 1
        request.fetchLimit = 2
        #expect(names(try again.context.fetch(request)) == ["Bob", "Ada"])
        #expect(try again.context.count(for: request) == 2)
        let managers = FetchRequest<ManagedObject>(entityName: "Employee")
        managers.includesSubentities = false
        #expect(try again.context.count(for: managers) == 3)
        let ids = FetchRequest<ObjectID>(entityName: "Employee")
        ids.predicate = try QueryPredicate(format: "badge != nil")
        #expect(try again.context.fetch(ids).count == 2)
    }

    @Test(arguments: StoreKind.persistent)
    func readOnlyStoresRefuseWrites(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        var options = StoreOptions()
        options.isReadOnly = true
        let readOnly = try kind.stack(Fixtures.companyModel(), in: folder, options: options)
        #expect(try readOnly.fetch("Employee").count == 4)
        #expect(readOnly.store?.isReadOnly == true)
        _ = try readOnly.insert("Department", ["name": "Legal"])
        let error = try #require(throws: QuireError.self) { try readOnly.context.save() }
        #expect(error.code == .persistentStoreOperation)
    }
}
