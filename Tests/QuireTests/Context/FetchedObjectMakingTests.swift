import Foundation
import Testing

import Quire
import QuireSupport

/// A subclass whose `init(entity:)` override initializes a stored property of its own and has a side effect (it
/// counts the objects made of each entity), as an application's subclass may.
final class InitCountingNote: ManagedObject {
    /// The objects made so far, by entity (each test makes its own model, so tests running at once count apart).
    static let made = LockedValue<[ObjectIdentifier: Int]>([:])

    @Managed("title") var title: String
    @Managed("rank") var rank: Int64
    /// Set by the override only: a fetched object must have it too.
    let madeBy: String
    /// Initialized by its default, before the override's body runs.
    var touches = 0

    required init(entity: EntityDescription) {
        madeBy = "init(entity:) of \(entity.name)"
        super.init(entity: entity)
        touches += 1
        Self.made.withLock { $0[ObjectIdentifier(entity), default: 0] += 1 }
    }

    /// How many objects of `entity` were made.
    static func count(of entity: EntityDescription) -> Int {
        made.withLock { $0[ObjectIdentifier(entity)] ?? 0 }
    }
}

/// What a fetch makes for each row: an object of the entity's class made through its `init(entity:)` (overrides
/// included), given the row's ID and values, and what the registry does with the objects when its context goes.
@Suite struct FetchedObjectMakingTests {
    static func noteModel() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string, defaultValue: "untitled"),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: -1),
        ])
        note.managedObjectClass = InitCountingNote.self
        return ManagedObjectModel(entities: [note])
    }

    /// A store of three notes, ranked 1 to 3, with the model it was written with.
    func savedNotes() throws -> (TemporaryFolder, URL, ManagedObjectModel) {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        let model = Self.noteModel()
        let (coordinator, context) = try Fixtures.stack(model, at: url)
        for rank in 1...3 {
            let note = EntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("note \(rank)", forKey: "title")
            note.setValue(Int64(rank), forKey: "rank")
        }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return (folder, url, model)
    }

    /// Objects fetched filled and as faults are made by the subclass's `init(entity:)` override, once each: its
    /// stored property is set, its side effect happened, and the object then holds the row's values (not the
    /// defaults the initializer starts with).
    @Test(arguments: [false, true])
    func fetchedObjectsRunTheSubclassInitializer(asFaults: Bool) throws {
        let (folder, url, model) = try savedNotes()
        defer { _ = folder }
        let entity = try #require(model.entitiesByName["Note"])
        let madeBefore = InitCountingNote.count(of: entity)
        let (_, context) = try Fixtures.stack(model, at: url)
        let request = FetchRequest<InitCountingNote>(entityName: "Note")
        request.returnsObjectsAsFaults = asFaults
        request.sortDescriptors = [SortKey("rank")]
        let notes = try context.fetch(request)
        #expect(InitCountingNote.count(of: entity) == madeBefore + 3)
        #expect(notes.map(\.madeBy) == Array(repeating: "init(entity:) of Note", count: 3))
        #expect(notes.map(\.touches) == [1, 1, 1])
        #expect(notes.map(\.isFault) == Array(repeating: asFaults, count: 3))
        #expect(notes.map(\.title) == ["note 1", "note 2", "note 3"])
        #expect(notes.map(\.rank) == [1, 2, 3])
        // Fetching again finds the same objects: nothing more is made.
        let again = try context.fetch(request)
        #expect(zip(notes, again).allSatisfy { $0 === $1 })
        #expect(InitCountingNote.count(of: entity) == madeBefore + 3)
    }

    /// A fetched object changed and saved keeps its values; a new object made by the same initializer starts at
    /// the model's defaults.
    @Test func fetchedAndNewObjectsOfTheSubclassHoldTheirOwnValues() throws {
        let (folder, url, model) = try savedNotes()
        defer { _ = folder }
        let (_, context) = try Fixtures.stack(model, at: url)
        let request = FetchRequest<InitCountingNote>(entityName: "Note")
        request.returnsObjectsAsFaults = false
        request.sortDescriptors = [SortKey("rank")]
        let first = try #require(try context.fetch(request).first)
        first.rank = 10
        let fresh = InitCountingNote(context: context)
        #expect(fresh.title == "untitled" && fresh.rank == -1 && fresh.madeBy == "init(entity:) of Note")
        try context.save()
        let (_, reader) = try Fixtures.stack(model, at: url)
        let ranks = try reader.fetch(request).map(\.rank)
        #expect(ranks == [-1, 2, 3, 10])
    }

    /// A to-one whose destination has sub-entities is read from its key and entity columns: the badge of a
    /// manager names a Manager, the badge of another employee an Employee, each the object fetched for that row.
    @Test(arguments: [false, true])
    func toOnesOfAHierarchyNameTheirRowsEntity(asFaults: Bool) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Company.sqlite")
        let model = Fixtures.companyModel()
        let (coordinator, context) = try Fixtures.stack(model, at: url)
        let boss = EntityDescription.insertNewObject(forEntityName: "Manager", into: context)
        boss.setValue("Ada", forKey: "name")
        let clerk = EntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        clerk.setValue("Bob", forKey: "name")
        for (code, owner) in [("A", boss), ("B", clerk)] {
            let badge = EntityDescription.insertNewObject(forEntityName: "Badge", into: context)
            badge.setValue(code, forKey: "code")
            badge.setValue(owner, forKey: "owner")
        }
        let spare = EntityDescription.insertNewObject(forEntityName: "Badge", into: context)
        spare.setValue("C", forKey: "code")
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        let (_, reader) = try Fixtures.stack(model, at: url)
        let badges = FetchRequest<ManagedObject>(entityName: "Badge")
        badges.returnsObjectsAsFaults = asFaults
        badges.sortDescriptors = [SortKey("code")]
        let fetched = try reader.fetch(badges)
        let owners = fetched.map { $0.value(forKey: "owner") as? ManagedObject }
        #expect(owners.map { $0?.entity.name } == ["Manager", "Employee", nil])
        #expect(owners.map { $0?.value(forKey: "name") as? String } == ["Ada", "Bob", nil])
        let employees = FetchRequest<ManagedObject>(entityName: "Employee")
        employees.sortDescriptors = [SortKey("name")]
        let people = try reader.fetch(employees)
        #expect(people.count == 2 && people[0] === owners[0] && people[1] === owners[1])
    }

    /// When a context goes, the objects nobody else holds go with it; the ones the application holds stay, in no
    /// context, and still read the values they were fetched with (filled or as faults keeping their rows).
    @Test(arguments: [false, true])
    func freeingAContextFreesOnlyTheObjectsNobodyHolds(asFaults: Bool) throws {
        let (folder, url, model) = try savedNotes()
        defer { _ = folder }
        weak var dropped: InitCountingNote?
        var kept: InitCountingNote?
        do {
            let (_, context) = try Fixtures.stack(model, at: url)
            let request = FetchRequest<InitCountingNote>(entityName: "Note")
            request.returnsObjectsAsFaults = asFaults
            request.sortDescriptors = [SortKey("rank")]
            let notes = try context.fetch(request)
            dropped = notes[0]
            kept = notes[2]
            // An inserted object, registered under a temporary ID, goes with the context too.
            _ = InitCountingNote(context: context)
        }
        #expect(dropped == nil)
        let note = try #require(kept)
        #expect(note.managedObjectContext == nil)
        #expect(note.title == "note 3" && note.rank == 3)
    }
}
