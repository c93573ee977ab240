import Foundation
import Testing

import Quire

/// Tombstones (`preservesValueInHistoryOnDeletion`) and the updated-property bitmap in Core Data's `ACHANGE`
/// layout: what the SQLite file holds after saves and batch deletes, and what history requests read back.
@Suite struct PersistentHistoryTombstoneTests {
    /// A notes model like the one a public Core Data reader checked its raw reading of history against Core Data
    /// with (CoreDataDabbi's `NotesFixture`): `Note` declares `title` before `modifiedAt`, both preserved, so
    /// declaration order and name order disagree; `Checklist` inherits them and preserves `items` too.
    static func model() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.preservesValueInHistoryOnDeletion = true
        let modifiedAt = AttributeDescription(name: "modifiedAt", type: .date)
        modifiedAt.preservesValueInHistoryOnDeletion = true
        let note = EntityDescription(name: "Note", properties: [
            title,
            AttributeDescription(name: "body", type: .string),
            AttributeDescription(name: "pinned", type: .boolean),
            modifiedAt,
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
        ])
        let items = AttributeDescription(name: "items", type: .integer64)
        items.preservesValueInHistoryOnDeletion = true
        let checklist = EntityDescription(name: "Checklist", properties: [items])
        note.subentities = [checklist]
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, inverse: "folder"),
        ])
        return ManagedObjectModel(entities: [folder, note, checklist])
    }

    static let firstDate = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let secondDate = Date(timeIntervalSinceReferenceDate: 700_086_400)

    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(_ type: StoreType, at url: URL?) throws {
            coordinator = try PersistentStoreCoordinator(managedObjectModel: PersistentHistoryTombstoneTests.model())
            var options = StoreOptions()
            options.persistentHistoryTracking = true
            try coordinator.addPersistentStore(type: type, at: url, options: options)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            context.transactionAuthor = "app"
        }

        func insert(_ entityName: String, _ values: [String: Any]) throws -> ManagedObject {
            let entity = try #require(coordinator.managedObjectModel.entitiesByName[entityName])
            let object = ManagedObject(entity: entity, insertInto: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }

        func history(after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)).transactions ?? []
        }
    }

    @Test func sqliteWritesTombstonesAndUpdatedColumnsInCoreDatasLayout() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        let stack = try Stack(.sqlite, at: url)
        let note = try stack.insert("Note", ["title": "Note 9", "modifiedAt": Self.firstDate, "pinned": false, "body": "b"])
        _ = try stack.insert("Checklist", ["title": "List", "modifiedAt": Self.secondDate, "items": Int64(4)])
        try stack.context.save()
        note.setValue(true, forKey: "pinned")
        try stack.context.save()
        note.setValue("Note 9b", forKey: "title")
        try stack.context.save()
        stack.context.delete(note)
        try stack.context.save()

        let raw = try RawSQLite(url)
        func text(_ sql: String) throws -> [String] { try raw.rows(sql).map { String(decoding: $0[0].data, as: UTF8.self) } }
        // One tombstone column per preserved attribute of the entity that preserves the most (Checklist: 3),
        // after ZCOLUMNS, declared BLOB as in Core Data stores.
        #expect(try text("SELECT sql FROM sqlite_master WHERE name = 'ACHANGE'") == [
            "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, "
                + "ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, ZTOMBSTONE0 BLOB, ZTOMBSTONE1 BLOB, ZTOMBSTONE2 BLOB )",
        ])
        // ZCOLUMNS: bit n from the most significant bit of the first byte, n counting Note's persistent
        // properties by name (body, folder, modifiedAt, pinned, title): pinned 0x10, title 0x08.
        #expect(try text("SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1 ORDER BY Z_PK") == ["10", "08"])
        #expect(try raw.rows("SELECT COUNT(*) FROM ACHANGE WHERE ZCHANGETYPE <> 1 AND ZCOLUMNS IS NOT NULL")[0][0].int64 == 0)
        // The deletion's tombstone: preserved attributes by name (modifiedAt, title), each stored as its own
        // column stores it (a date as seconds since 2001, a string as text).
        let tombstone = try raw.rows(
            "SELECT typeof(ZTOMBSTONE0), ZTOMBSTONE0, typeof(ZTOMBSTONE1), ZTOMBSTONE1, typeof(ZTOMBSTONE2) FROM ACHANGE WHERE ZCHANGETYPE = 2")
        #expect(tombstone.count == 1)
        #expect(String(decoding: tombstone[0][0].data, as: UTF8.self) == "real")
        #expect(tombstone[0][1].double == Self.firstDate.timeIntervalSinceReferenceDate)
        #expect(String(decoding: tombstone[0][2].data, as: UTF8.self) == "text")
        #expect(String(decoding: tombstone[0][3].data, as: UTF8.self) == "Note 9b")
        #expect(String(decoding: tombstone[0][4].data, as: UTF8.self) == "null")

        let history = try stack.history()
        #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.update], [.delete]])
        #expect(history[1].changes?.first?.updatedProperties == ["pinned"])
        #expect(history[2].changes?.first?.updatedProperties == ["title"])
        #expect(history[0].changes?.allSatisfy { $0.tombstone == nil } == true)
        #expect(history[3].changes?.first?.tombstone == ["title": .string("Note 9b"), "modifiedAt": .date(Self.firstDate)])
    }

    @Test func batchDeletesCopyTombstonesFromTheRows() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        let stack = try Stack(.sqlite, at: url)
        _ = try stack.insert("Note", ["title": "A", "modifiedAt": Self.firstDate])
        _ = try stack.insert("Checklist", ["title": "B", "modifiedAt": Self.secondDate, "items": Int64(7)])
        try stack.context.save()
        let delete = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note"))
        try stack.context.execute(delete)
        let changes = try #require(stack.history().last?.changes)
        #expect(changes.count == 2)
        let byEntity = Dictionary(uniqueKeysWithValues: changes.map { ($0.changedObjectID.entity.name, $0) })
        #expect(byEntity["Note"]?.tombstone == ["title": .string("A"), "modifiedAt": .date(Self.firstDate)])
        // The checklist's columns follow its own list: items, modifiedAt, title.
        #expect(byEntity["Checklist"]?.tombstone == ["items": .integer(7), "title": .string("B"), "modifiedAt": .date(Self.secondDate)])
        let raw = try RawSQLite(url)
        #expect(try raw.rows("SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Checklist')")
            .map(\.[0].int64) == [7])
    }

    /// A store whose history tables came without tombstone columns (written before the model preserved
    /// anything) gets them when a save needs them; its earlier rows read without tombstones.
    @Test func tombstoneColumnsAreAddedToAnExistingChangeTable() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        do {
            let stack = try Stack(.sqlite, at: url)
            _ = try stack.insert("Folder", ["name": "Inbox"])
            try stack.context.save()
        }
        let raw = try RawSQLite(url, readOnly: false)
        try raw.execute("DROP TABLE ACHANGE")
        try raw.execute(
            "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, "
                + "ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )")
        let stack = try Stack(.sqlite, at: url)
        let note = try stack.insert("Note", ["title": "T"])
        try stack.context.save()
        stack.context.delete(note)
        try stack.context.save()
        #expect(try stack.history().last?.changes?.first?.tombstone == ["title": .string("T")])
        #expect(try raw.rows("SELECT COUNT(*) FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'")[0][0].int64 == 3)
    }
}
