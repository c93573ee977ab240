import Foundation
import Testing

import Quire

/// Child contexts: edits a modal editor can discard, pushed into the parent by a save.
@Suite struct ChildContextTests {
    let folder: TemporaryFolder
    let url: URL
    let coordinator: PersistentStoreCoordinator
    let parent = ManagedObjectContext()
    let child = ManagedObjectContext()

    init() throws {
        folder = try TemporaryFolder()
        url = folder.file("People.sqlite")
        coordinator = try PersistentStoreCoordinator(managedObjectModel: MergePolicyTests.peopleModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        parent.persistentStoreCoordinator = coordinator
        child.parent = parent
        let ada = ManagedObject(entity: try entity("Person"), insertInto: parent)
        ada.setValue("Ada", forKey: "name")
        ada.setValue(Int64(100), forKey: "salary")
        let team = ManagedObject(entity: try entity("Team"), insertInto: parent)
        team.setValue("One", forKey: "name")
        ada.setValue(team, forKey: "team")
        try parent.save()
    }

    private func entity(_ name: String) throws -> EntityDescription {
        try #require(coordinator.managedObjectModel.entitiesByName[name])
    }

    private func people(_ context: ManagedObjectContext, sorted: Bool = true) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        if sorted { request.sortDescriptors = [SortKey("name")] }
        return try context.fetch(request)
    }

    private func storedNames() throws -> [String] {
        let (_, reader) = try Fixtures.stack(MergePolicyTests.peopleModel(), at: url)
        return try people(reader).compactMap { $0.value(forKey: "name") as? String }
    }

    @Test func childSeesTheParentsUnsavedChangesAndPushesItsOwn() throws {
        #expect(child.persistentStoreCoordinator === coordinator)
        let adaInParent = try #require(people(parent).first)
        adaInParent.setValue(Int64(150), forKey: "salary")
        let grace = ManagedObject(entity: try entity("Person"), insertInto: parent)
        grace.setValue("Grace", forKey: "name")

        // The child sees both: the parent's unsaved update and its unsaved insert.
        let inChild = try people(child)
        #expect(inChild.compactMap { $0.value(forKey: "name") as? String } == ["Ada", "Grace"])
        let adaInChild = inChild[0]
        #expect(adaInChild !== adaInParent)
        #expect(adaInChild.objectID == adaInParent.objectID)
        #expect(adaInChild.value(forKey: "salary") as? Int64 == 150)
        #expect(inChild[1].objectID == grace.objectID)
        #expect(inChild[1].objectID.isTemporaryID)
        #expect((adaInChild.value(forKey: "team") as? ManagedObject)?.value(forKey: "name") as? String == "One")
        #expect(try child.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 2)

        // The child edits; a predicate sees the child's values, the parent's stay.
        adaInChild.setValue(Int64(200), forKey: "salary")
        let rich = FetchRequest<ManagedObject>(entityName: "Person")
        rich.predicate = try QueryPredicate(format: "salary >= 200")
        #expect(try child.fetch(rich) == [adaInChild])
        #expect(try parent.fetch(rich).isEmpty)
        let linus = ManagedObject(entity: try entity("Person"), insertInto: child)
        linus.setValue("Linus", forKey: "name")
        inChild[1].setValue(Int64(10), forKey: "salary")

        let observed = NotificationBox()
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: child, queue: nil
        ) { observed.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try child.save()
        #expect(!child.hasChanges)
        #expect(linus.objectID.isTemporaryID)
        let saved = try #require(observed.notifications.first.flatMap(ContextDidSave.init))
        #expect(saved.insertedObjectIDs == [linus.objectID])
        #expect(saved.updatedObjectIDs == [adaInChild.objectID, grace.objectID])

        // The parent has the changes, unsaved; the store has none of them.
        #expect(adaInParent.value(forKey: "salary") as? Int64 == 200)
        #expect(adaInParent.isUpdated)
        #expect(grace.value(forKey: "salary") as? Int64 == 10)
        let linusInParent = try #require(parent.registeredObject(for: linus.objectID))
        #expect(linusInParent.isInserted)
        #expect(linusInParent.value(forKey: "name") as? String == "Linus")
        #expect(try storedNames() == ["Ada"])

        // The parent's save writes them.
        try parent.save()
        #expect(try storedNames() == ["Ada", "Grace", "Linus"])
        #expect(!linusInParent.objectID.isTemporaryID)

        // The child still knows Linus by his temporary ID; its next save reaches the parent's saved object.
        linus.setValue(Int64(77), forKey: "salary")
        try child.save()
        #expect(linusInParent.value(forKey: "salary") as? Int64 == 77)
        try parent.save()
        let (_, reader) = try Fixtures.stack(MergePolicyTests.peopleModel(), at: url)
        #expect(try people(reader).last?.value(forKey: "salary") as? Int64 == 77)
    }

    @Test func rollingBackTheChildDiscardsItsEdits() throws {
        let adaInChild = try #require(people(child).first)
        adaInChild.setValue("Changed", forKey: "name")
        let temp = ManagedObject(entity: try entity("Person"), insertInto: child)
        temp.setValue("Temp", forKey: "name")
        #expect(child.hasChanges)
        child.rollback()
        #expect(!child.hasChanges)
        #expect(adaInChild.value(forKey: "name") as? String == "Ada")
        #expect(temp.managedObjectContext == nil)
        try child.save()
        #expect(!parent.hasChanges)
        #expect(try people(parent).compactMap { $0.value(forKey: "name") as? String } == ["Ada"])
    }

    @Test func childDeletesAndInvalidValuesAreCheckedBeforeThePush() throws {
        let adaInChild = try #require(people(child).first)
        let team = try #require(adaInChild.value(forKey: "team") as? ManagedObject)
        child.delete(adaInChild)
        try child.save()
        let adaInParent = try #require(parent.registeredObject(for: adaInChild.objectID))
        #expect(adaInParent.isDeleted)
        // The nullify rule ran in the child; its effect on the team reached the parent.
        let teamInParent = try #require(parent.registeredObject(for: team.objectID))
        #expect((teamInParent.value(forKey: "members") as? Set<ManagedObject>)?.isEmpty == true)
        try parent.save()
        #expect(try storedNames().isEmpty)

        // A child whose objects are invalid does not push anything.
        let model = Fixtures.runModel()
        let (runCoordinator, runParent) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        let runChild = ManagedObjectContext()
        runChild.parent = runParent
        _ = ManagedObject(entity: try #require(runCoordinator.managedObjectModel.entitiesByName["Run"]), insertInto: runChild)
        let error = try #require(throws: QuireError.self) { try runChild.save() }
        #expect(error.code == .validationMissingMandatoryProperty)
        #expect(!runParent.hasChanges)
    }

    @Test func childCalledFromInsideItsParentsBlockDoesNotDeadlock() throws {
        let parentQueue = ManagedObjectContext(concurrencyType: .privateQueue)
        parentQueue.persistentStoreCoordinator = coordinator
        let editor = ManagedObjectContext(concurrencyType: .privateQueue)
        editor.parent = parentQueue
        let names = try parentQueue.performAndWait { () throws -> [String] in
            let ada = try #require(people(parentQueue).first)
            ada.setValue("Ada (draft)", forKey: "name")
            // The child, from inside the parent's block, asks the parent for rows.
            return try editor.performAndWait { try people(editor).compactMap { $0.value(forKey: "name") as? String } }
        }
        #expect(names == ["Ada (draft)"])
    }

    @Test func grandchildrenReadAndPushThroughTwoLevels() throws {
        let grandchild = ManagedObjectContext()
        grandchild.parent = child
        let ada = try #require(people(grandchild).first)
        #expect(ada.value(forKey: "salary") as? Int64 == 100)
        ada.setValue(Int64(999), forKey: "salary")
        try grandchild.save()
        #expect(try people(child).first?.value(forKey: "salary") as? Int64 == 999)
        #expect(try people(parent).first?.value(forKey: "salary") as? Int64 == 100)
        try child.save()
        try parent.save()
        let (_, reader) = try Fixtures.stack(MergePolicyTests.peopleModel(), at: url)
        #expect(try people(reader).first?.value(forKey: "salary") as? Int64 == 999)
    }

    @Test func privateQueueContextsWorkThroughPerform() async throws {
        let worker = ManagedObjectContext(concurrencyType: .privateQueue)
        worker.parent = parent
        let id = try #require(people(parent).first?.objectID)
        let name = try await worker.perform { () throws -> String in
            let ada = try worker.existingObject(with: id)
            ada.setValue("Ada (worker)", forKey: "name")
            try worker.save()
            return ada.value(forKey: "name") as? String ?? ""
        }
        #expect(name == "Ada (worker)")
        #expect(try people(parent).first?.value(forKey: "name") as? String == "Ada (worker)")
        let done = NotificationBox()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            worker.perform {
                done.append(Notification(name: Notification.Name("done")))
                continuation.resume()
            }
        }
        #expect(done.notifications.count == 1)
    }

    @Test func mainQueueContextRunsItsBlocksOnTheMainQueue() async throws {
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = coordinator
        #expect(main.concurrencyType == .mainQueue)
        let names = try main.performAndWait { () throws -> [String] in
            dispatchPrecondition(condition: .onQueue(.main))
            return try people(main).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Ada"])
        // A private child of the main-queue context, saving into it from its own queue.
        let editor = ManagedObjectContext(concurrencyType: .privateQueue)
        editor.parent = main
        try await editor.perform {
            let ada = try #require(people(editor).first)
            ada.setValue("Ada (edited)", forKey: "name")
            try editor.save()
        }
        let edited = try await main.perform { () throws -> String? in
            dispatchPrecondition(condition: .onQueue(.main))
            let ada = try people(main).first
            try main.save()
            return ada?.value(forKey: "name") as? String
        }
        #expect(edited == "Ada (edited)")
        #expect(try storedNames() == ["Ada (edited)"])
    }
}
