import Foundation
import Testing

import Quire

/// Two contexts on one coordinator editing the same objects: optimistic locking, merge policies, did-save
/// notifications and `mergeChanges(fromContextDidSave:)`.
@Suite struct MergePolicyTests {
    /// People with a name, a salary, a title and a team.
    static func peopleModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "salary", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "team", destination: "Team", inverse: "members"),
        ])
        let team = EntityDescription(name: "Team", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "members", destination: "Person", toMany: true, inverse: "team"),
        ])
        return ManagedObjectModel(entities: [person, team])
    }

    let folder: TemporaryFolder
    let url: URL
    let coordinator: PersistentStoreCoordinator
    let a = ManagedObjectContext()
    let b = ManagedObjectContext()

    init() throws {
        folder = try TemporaryFolder()
        url = folder.file("People.sqlite")
        coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.peopleModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        a.persistentStoreCoordinator = coordinator
        b.persistentStoreCoordinator = coordinator
        // Ada (salary 100, Engineer) in team One; teams Two and Three.
        let seed = ManagedObjectContext()
        seed.persistentStoreCoordinator = coordinator
        let entities = coordinator.managedObjectModel.entitiesByName
        var teams: [ManagedObject] = []
        for name in ["One", "Two", "Three"] {
            let team = ManagedObject(entity: try #require(entities["Team"]), insertInto: seed)
            team.setValue(name, forKey: "name")
            teams.append(team)
        }
        let ada = ManagedObject(entity: try #require(entities["Person"]), insertInto: seed)
        ada.setValue("Ada", forKey: "name")
        ada.setValue(Int64(100), forKey: "salary")
        ada.setValue("Engineer", forKey: "title")
        ada.setValue(teams[0], forKey: "team")
        try seed.save()
    }

    private func fetchOne(_ context: ManagedObjectContext, _ entity: String, _ format: String = "TRUEPREDICATE") throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = try QueryPredicate(format: format)
        request.returnsObjectsAsFaults = false
        return try #require(context.fetch(request).first)
    }

    /// The stored values of Ada, read by a new coordinator.
    private func stored() throws -> (name: String?, salary: Int64?, title: String?, team: String?, version: String) {
        let (_, reader) = try Fixtures.stack(Self.peopleModel(), at: url)
        let ada = try fetchOne(reader, "Person")
        let team = ada.value(forKey: "team") as? ManagedObject
        let version = try sqlite3("SELECT Z_OPT FROM ZPERSON")
        return (
            ada.value(forKey: "name") as? String, ada.value(forKey: "salary") as? Int64, ada.value(forKey: "title") as? String,
            team?.value(forKey: "name") as? String, version
        )
    }

    private func sqlite3(_ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A changes name, salary and team and saves; then B, which read Ada before, changes salary and title.
    @Test(arguments: MergePolicyType.allCases)
    func twoContextsEditTheSamePerson(policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let adaInA = try fetchOne(a, "Person")
        let adaInB = try fetchOne(b, "Person")
        adaInA.setValue("Ada A", forKey: "name")
        adaInA.setValue(Int64(200), forKey: "salary")
        adaInA.setValue(try fetchOne(a, "Team", "name == 'Two'"), forKey: "team")
        try a.save()

        b.mergePolicy = policy
        adaInB.setValue(Int64(300), forKey: "salary")
        adaInB.setValue("Lead", forKey: "title")
        if policy == .error {
            let error = try #require(throws: QuireError.self) { try b.save() }
            #expect(error.code == .managedObjectMerge)
            let conflict = try #require(error.conflicts.first)
            #expect(error.conflicts.count == 1)
            #expect(conflict.objectID == adaInB.objectID)
            #expect(conflict.oldVersion == 1)
            #expect(conflict.newVersion == 2)
            #expect(!conflict.isDeletedInStore)
            #expect(conflict.cachedValues?["salary"] == .integer(100))
            #expect(conflict.cachedValues?["title"] == .string("Engineer"))
            #expect(conflict.objectValues["salary"] == .integer(300))
            #expect(conflict.objectValues["title"] == .string("Lead"))
            #expect(conflict.persistedValues?["salary"] == .integer(200))
            #expect(conflict.persistedValues?["name"] == .string("Ada A"))
            #expect(conflict.persistedValues?["team"] == .uri(try fetchOne(b, "Team", "name == 'Two'").objectID.uriRepresentation()))
            // Nothing changed: not the store, not B's object.
            #expect(adaInB.isUpdated)
            #expect(adaInB.value(forKey: "salary") as? Int64 == 300)
            let s = try stored()
            #expect(s.name == "Ada A" && s.salary == 200 && s.title == "Engineer" && s.team == "Two" && s.version == "2")
            return
        }
        try b.save()
        let s = try stored()
        switch policy {
        case .mergeByPropertyStoreTrump:
            // Salary was changed on both sides: the store's 200 wins. Title only by B: "Lead".
            #expect(s.name == "Ada A" && s.salary == 200 && s.title == "Lead" && s.team == "Two")
        case .mergeByPropertyObjectTrump:
            #expect(s.name == "Ada A" && s.salary == 300 && s.title == "Lead" && s.team == "Two")
        case .overwrite:
            // B's whole version, including the name and team it read.
            #expect(s.name == "Ada" && s.salary == 300 && s.title == "Lead" && s.team == "One")
        case .rollback:
            // The store's version; B's changes are discarded.
            #expect(s.name == "Ada A" && s.salary == 200 && s.title == "Engineer" && s.team == "Two")
            #expect(!adaInB.isUpdated)
        default:
            break
        }
        #expect(s.version == (policy == .rollback ? "2" : "3"))
        // B's object shows what was saved, and is no longer changed.
        #expect(!b.hasChanges)
        #expect(adaInB.value(forKey: "name") as? String == s.name)
        #expect(adaInB.value(forKey: "salary") as? Int64 == s.salary)
        #expect(adaInB.value(forKey: "title") as? String == s.title)
        #expect((adaInB.value(forKey: "team") as? ManagedObject)?.value(forKey: "name") as? String == s.team)
        // And saves again without conflict.
        adaInB.setValue(Int64(400), forKey: "salary")
        try b.save()
        #expect(try stored().salary == 400)
    }

    @Test(arguments: MergePolicyType.allCases)
    func updateOfAPersonAnotherContextDeleted(policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let adaInA = try fetchOne(a, "Person")
        let adaInB = try fetchOne(b, "Person")
        a.delete(adaInA)
        try a.save()
        b.mergePolicy = policy
        adaInB.setValue(Int64(300), forKey: "salary")
        if policy == .error {
            let error = try #require(throws: QuireError.self) { try b.save() }
            #expect(error.code == .managedObjectMerge)
            #expect(error.conflicts.first?.isDeletedInStore == true)
            #expect(error.conflicts.first?.persistedSnapshot == nil)
            #expect(error.conflicts.first?.newVersion == 0)
            return
        }
        try b.save()
        #expect(adaInB.managedObjectContext == nil)
        #expect(b.registeredObject(for: adaInB.objectID) == nil)
        #expect(try b.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 0)
    }

    @Test(arguments: MergePolicyType.allCases)
    func deleteOfAPersonAnotherContextChanged(policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let adaInA = try fetchOne(a, "Person")
        let adaInB = try fetchOne(b, "Person")
        adaInA.setValue(Int64(200), forKey: "salary")
        try a.save()
        b.mergePolicy = policy
        b.delete(adaInB)
        if policy == .error {
            #expect(throws: QuireError.self) { try b.save() }
            return
        }
        try b.save()
        let remaining = try b.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        // Rolling back keeps the store's version (the delete is undone); the others delete.
        #expect(remaining == (policy == .rollback ? 1 : 0))
        if policy == .rollback {
            #expect(adaInB.value(forKey: "salary") as? Int64 == 200)
            #expect(!adaInB.isDeleted)
        }
    }

    @Test func didSaveNotificationCarriesTheIDsAndMergesIntoAnotherContext() throws {
        let adaInA = try fetchOne(a, "Person")
        let adaInB = try fetchOne(b, "Person")
        let teamOneInB = try fetchOne(b, "Team", "name == 'One'")
        _ = teamOneInB.value(forKey: "members")
        let box = NotificationBox()
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: a, queue: nil
        ) { notification in
            box.append(notification)
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        // A inserts Grace, updates Ada, deletes team Three.
        let grace = ManagedObject(entity: adaInA.entity, insertInto: a)
        grace.setValue("Grace", forKey: "name")
        adaInA.setValue("Ada Lovelace", forKey: "name")
        let threeInA = try fetchOne(a, "Team", "name == 'Three'")
        let threeInB = try fetchOne(b, "Team", "name == 'Three'")
        a.delete(threeInA)
        try a.save()

        let received = box.notifications
        #expect(received.count == 1)
        let notification = try #require(received.first)
        #expect(notification.object as? ManagedObjectContext === a)
        let changes = try #require(ContextDidSave(notification))
        #expect(changes.insertedObjectIDs == [grace.objectID])
        #expect(changes.updatedObjectIDs == [adaInA.objectID])
        #expect(changes.deletedObjectIDs == [threeInB.objectID])
        #expect(notification.userInfo?[ManagedObjectContext.updatedObjectIDsKey] as? Set<ObjectID> == [adaInA.objectID])

        // B changed Ada's title meanwhile; merging keeps that change over A's saved name.
        adaInB.setValue("Lead", forKey: "title")
        b.mergeChanges(fromContextDidSave: notification)
        #expect(adaInB.value(forKey: "name") as? String == "Ada Lovelace")
        #expect(adaInB.value(forKey: "title") as? String == "Lead")
        #expect(adaInB.isUpdated)
        #expect(threeInB.managedObjectContext == nil)
        #expect(b.registeredObject(for: threeInB.objectID) == nil)
        let people = try b.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        #expect(Set(people.compactMap { $0.value(forKey: "name") as? String }) == ["Ada Lovelace", "Grace"])
        // B's save does not conflict, even under the error policy: the merge moved Ada to the saved version.
        try b.save()
        let s = try stored()
        #expect(s.name == "Ada Lovelace" && s.title == "Lead")
    }

    @Test func mergeAcrossCoordinatorsOnOneStoreFile() throws {
        let (_, other) = try Fixtures.stack(Self.peopleModel(), at: url)
        let adaThere = try fetchOne(other, "Person")
        let adaHere = try fetchOne(a, "Person")
        adaHere.setValue(Int64(123), forKey: "salary")
        let box = NotificationBox()
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: a, queue: nil
        ) { box.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try a.save()
        #expect(adaThere.value(forKey: "salary") as? Int64 == 100)
        other.mergeChanges(fromContextDidSave: try #require(box.notifications.first))
        #expect(adaThere.value(forKey: "salary") as? Int64 == 123)
        adaThere.setValue("Ada (elsewhere)", forKey: "name")
        try other.save()
        #expect(try stored().name == "Ada (elsewhere)")
    }

    @Test func mergeRefreshesUnchangedObjectsAndIgnoresOtherNotifications() throws {
        let adaInA = try fetchOne(a, "Person")
        let adaInB = try fetchOne(b, "Person")
        adaInA.setValue(Int64(555), forKey: "salary")
        try a.save()
        b.mergeChanges(fromContextDidSave: Notification(name: Notification.Name("Other")))
        #expect(adaInB.value(forKey: "salary") as? Int64 == 100)
        b.mergeChanges(fromContextDidSave: ContextDidSave(updatedObjectIDs: [adaInB.objectID]))
        #expect(adaInB.isFault)
        #expect(adaInB.value(forKey: "salary") as? Int64 == 555)
        #expect(!b.hasChanges)
    }
}

/// Collects notifications posted on any thread.
final class NotificationBox: @unchecked Sendable {
    // `@unchecked Sendable`: `notifications` is only touched while holding `lock`.
    private let lock = NSLock()
    private var list: [Notification] = []

    func append(_ notification: Notification) {
        lock.lock()
        list.append(notification)
        lock.unlock()
    }

    var notifications: [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
