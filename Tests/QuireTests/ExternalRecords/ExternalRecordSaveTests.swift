import Foundation
import Testing

import Quire
import QuireTestSupport

/// External record files ("Store in External Record File" with "Index in Spotlight"): written, rewritten and
/// removed with their objects at each save, in Core Data's layout and formats, on every store type.
@Suite struct ExternalRecordSaveTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Inserts a folder, a tag and a note naming both, and saves.
    static func insertNote(
        _ context: ManagedObjectContext, title: String
    ) throws -> (note: ManagedObject, folder: ManagedObject, tag: ManagedObject) {
        try context.performAndWait {
            let entities = try #require(context.persistentStoreCoordinator).managedObjectModel.entitiesByName
            let folder = ManagedObject(entity: try #require(entities["Folder"]), insertInto: context)
            folder.setValue("Inbox", forKey: "name")
            let tag = ManagedObject(entity: try #require(entities["Tag"]), insertInto: context)
            tag.setValue("home", forKey: "name")
            let note = ManagedObject(entity: try #require(entities["Note"]), insertInto: context)
            note.setValue(title, forKey: "title")
            note.setValue("From the market", forKey: "body")
            note.setValue(Int64(3), forKey: "rank")
            note.setValue(Date(timeIntervalSinceReferenceDate: 800_000_000), forKey: "created")
            note.setValue(2.5, forKey: "score")
            note.setValue(true, forKey: "done")
            note.setValue(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"), forKey: "code")
            note.setValue(Data((0..<200).map { UInt8($0) }), forKey: "photo")
            note.setValue("not for search", forKey: "secret")
            note.setValue(folder, forKey: "folder")
            note.setValue(Set([tag]), forKey: "tags")
            try context.save()
            return (note, folder, tag)
        }
    }

    @Test("Inserted, updated and deleted objects' records", arguments: types)
    func recordsFollowTheObjects(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        let (note, inbox, tag) = try Self.insertNote(context, title: "Buy zucchini")
        let store = try #require(coordinator.persistentStores.first)

        // Core Data's layout: <directory>/<store UUID>/<Entity>/<file>, named by the object's URI.
        let noteRecord = try ExternalRecordFixture.recordURL(of: note, in: records)
        #expect(noteRecord.path.hasPrefix(records.appendingPathComponent(store.identifier).path + "/Note/p"))
        let values = try ExternalRecordFixture.values(noteRecord)
        // The properties stored in the record, relationships as the related objects' URIs (the folder and tag
        // were new in the same save: the URIs are their permanent IDs').
        #expect(values == [
            "title": "Buy zucchini", "body": "From the market", "rank": 3,
            "created": .date(Date(timeIntervalSinceReferenceDate: 800_000_000)), "score": 2.5, "done": true,
            "code": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "photo": .data(Data((0..<200).map { UInt8($0) })),
            "folder": .string(inbox.objectID.uriRepresentation().absoluteString),
            "tags": [.string(tag.objectID.uriRepresentation().absoluteString)],
        ])
        #expect(!inbox.objectID.isTemporaryID && !tag.objectID.isTemporaryID)
        // Indexed but storing nothing: a zero-length record, as Core Data writes. Nothing indexed: no record.
        let folderRecord = try ExternalRecordFixture.recordURL(of: inbox, in: records)
        #expect(try Data(contentsOf: folderRecord).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(store.identifier).appendingPathComponent("Tag").path))
        // The XML format is an XML property list.
        let text = String(decoding: try Data(contentsOf: noteRecord), as: UTF8.self)
        #expect(text.hasPrefix("<?xml") && text.contains("<!DOCTYPE plist") && text.contains("<string>Buy zucchini</string>"))

        try context.performAndWait {
            note.setValue("Buy courgettes", forKey: "title")
            try context.save()
        }
        #expect(try ExternalRecordFixture.values(noteRecord)["title"] == "Buy courgettes")

        try context.performAndWait {
            context.delete(note)
            try context.save()
        }
        #expect(!FileManager.default.fileExists(atPath: noteRecord.path))
        #expect(FileManager.default.fileExists(atPath: folderRecord.path))
        #expect(ExternalRecordFixture.workingLeftovers(in: records).isEmpty)
        let support = ".support/\(store.identifier)"
        #expect(ExternalRecordFixture.contents(of: records) == [
            ".support", support, "\(support)/model.json", "\(support)/store.plist",
            store.identifier, "\(store.identifier)/Folder", "\(store.identifier)/Folder/\(folderRecord.lastPathComponent)",
            "\(store.identifier)/Note",
        ])
    }

    @Test("Binary property lists", arguments: [StoreType.sqlite, .binary])
    func binaryRecords(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (_, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records, format: .binary)
        let (note, _, _) = try Self.insertNote(context, title: "Call the plumber")
        let url = try ExternalRecordFixture.recordURL(of: note, in: records)
        #expect(try Data(contentsOf: url).prefix(8) == Data("bplist00".utf8))
        #expect(try ExternalRecordFixture.values(url)["title"] == "Call the plumber")
        #expect(try ExternalRecordFixture.values(url)["rank"] == 3)
    }

    @Test("A to-many relationship that is a fault is read from the store, with the changes made to it")
    func toManyFaultWithDeferredMembers() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records)
        let (note, _, first) = try Self.insertNote(context, title: "Shared")
        // A fresh context: the note's tags are a fault when a new tag joins them through the inverse.
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        let second = try other.performAndWait {
            let entities = coordinator.managedObjectModel.entitiesByName
            let fetched = try other.existingObject(with: note.objectID)
            fetched.setValue("Shared again", forKey: "title")
            let tag = ManagedObject(entity: try #require(entities["Tag"]), insertInto: other)
            tag.setValue("work", forKey: "name")
            tag.addObject(fetched, toRelationship: "notes")
            try other.save()
            return tag
        }
        let record = try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: note, in: records))
        let uris = [first, second].map { $0.objectID.uriRepresentation().absoluteString }.sorted()
        #expect(record["tags"] == .array(uris.map { .string($0) }))
    }

    @Test("A store without the options writes nothing")
    func noOptionsNoRecords() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ExternalRecordFixture.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Notes.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        _ = try Self.insertNote(context, title: "Plain")
        // The store's files alone (the database and its WAL files while it is open).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).allSatisfy { $0.hasPrefix("Notes.sqlite") })
    }
}

extension ExternalRecordSaveTests {
    @Test("Text with XML's special and control characters reads back as it was saved", arguments: StoreOptions.ExternalRecordFormat.allCases)
    func awkwardText(format: StoreOptions.ExternalRecordFormat) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (_, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records, format: format)
        let title = "Tab\there & <less> \"quoted\" \u{1} bell\u{7} é 漢字 \u{1F600}"
        let (note, _, _) = try Self.insertNote(context, title: title)
        #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: note, in: records))["title"] == .string(title))
    }
}
