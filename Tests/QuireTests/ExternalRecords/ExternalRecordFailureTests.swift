import Foundation
import Testing

import Quire
import QuireTestSupport

/// A failed save leaves no record behind and the previous ones as they were; interrupted work is redone from
/// the store the next time it is added; records follow the store through Save As, moves, batch requests and
/// destruction.
@Suite struct ExternalRecordFailureTests {
    @Test("A save the store refuses (a conflict) writes no record and keeps the previous ones", arguments: [StoreType.sqlite, .xml, .binary])
    func conflictLeavesRecordsAsTheyWere(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Draft 1")
        let url = try ExternalRecordFixture.recordURL(of: note, in: records)

        let a = ManagedObjectContext()
        let b = ManagedObjectContext()
        a.persistentStoreCoordinator = coordinator
        b.persistentStoreCoordinator = coordinator
        b.mergePolicy = .error
        let inA = try a.existingObject(with: note.objectID)
        let inB = try b.existingObject(with: note.objectID)
        inA.setValue("Draft 2", forKey: "title")
        try a.save()
        let before = ExternalRecordFixture.contents(of: records)
        let saved = try Data(contentsOf: url)

        inB.setValue("Draft 3", forKey: "title")
        let added = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: b)
        added.setValue("Never saved", forKey: "title")
        #expect(throws: QuireError.self) { try b.save() }

        #expect(try Data(contentsOf: url) == saved)
        #expect(try ExternalRecordFixture.values(url)["title"] == "Draft 2")
        #expect(ExternalRecordFixture.contents(of: records) == before)
    }

    @Test("Records that cannot be written fail the save before the store commits", arguments: [StoreType.sqlite, .xml, .binary])
    func stagingFailureLeavesTheStoreUnchanged(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        let store = try #require(coordinator.persistentStores.first)
        // A file where the notes' record folder would go.
        let blocker = records.appendingPathComponent(store.identifier).appendingPathComponent("Note")
        try Data("in the way".utf8).write(to: blocker)
        let before = ExternalRecordFixture.contents(of: records)

        let error = try #require(throws: QuireError.self) { _ = try ExternalRecordSaveTests.insertNote(context, title: "Blocked") }
        #expect(error.context.file?.path.hasPrefix(records.path) == true)
        #expect(ExternalRecordFixture.contents(of: records) == before)
        #expect(try Data(contentsOf: blocker) == Data("in the way".utf8))
        // The store did not commit: a fresh stack on the same file sees no note.
        if let url = store.url {
            try coordinator.remove(store)
            let (_, reader) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
            #expect(try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Note")) } == 0)
            #expect(url.path.hasPrefix(folder.url.path))
        }
    }

    @Test("An interrupted save or rebuild is redone from the store when it is next added", arguments: [StoreType.sqlite, .xml, .binary])
    func leftoversAreRebuilt(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        var (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        let (note, inbox, _) = try ExternalRecordSaveTests.insertNote(context, title: "Kept")
        let noteURL = try ExternalRecordFixture.recordURL(of: note, in: records)
        let folderURL = try ExternalRecordFixture.recordURL(of: inbox, in: records)
        let expected = try ExternalRecordFixture.values(noteURL)
        let identifier = try #require(coordinator.persistentStores.first).identifier
        try coordinator.remove(try #require(coordinator.persistentStores.first))

        // What a crash between the store's commit and the records' renames leaves: the staging folder, and
        // records behind the store (one missing, one stale).
        let staging = records.appendingPathComponent(identifier).appendingPathComponent(".saving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: staging.appendingPathComponent("0"))
        try FileManager.default.removeItem(at: folderURL)
        try Data("stale".utf8).write(to: noteURL)
        let rebuildLeftover = records.appendingPathComponent(".\(identifier).rebuild-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: rebuildLeftover, withIntermediateDirectories: true)

        (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        #expect(try ExternalRecordFixture.values(noteURL) == expected)
        #expect(try Data(contentsOf: folderURL).isEmpty)
        #expect(ExternalRecordFixture.workingLeftovers(in: records).isEmpty)

        // Deleting a store's record folder has it rebuilt, as Core Data documents.
        try coordinator.remove(try #require(coordinator.persistentStores.first))
        try FileManager.default.removeItem(at: records.appendingPathComponent(identifier))
        (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        #expect(try ExternalRecordFixture.values(noteURL) == expected)
        #expect(FileManager.default.fileExists(atPath: folderURL.path))
    }

    @Test("A record folder removed while the store is attached is rebuilt when the store is next added")
    func folderRemovedWhileAttached() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        var (coordinator, context) = try ExternalRecordFixture.stack(.binary, in: folder, directory: records)
        let (first, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "First")
        let firstRecord = try ExternalRecordFixture.recordURL(of: first, in: records)
        let identifier = try #require(coordinator.persistentStores.first).identifier
        try FileManager.default.removeItem(at: records.appendingPathComponent(identifier))
        let (second, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Second")
        #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: second, in: records))["title"] == "Second")
        #expect(!FileManager.default.fileExists(atPath: firstRecord.path))

        try coordinator.remove(try #require(coordinator.persistentStores.first))
        (coordinator, context) = try ExternalRecordFixture.stack(.binary, in: folder, directory: records)
        #expect(try ExternalRecordFixture.values(firstRecord)["title"] == "First")
        #expect(ExternalRecordFixture.workingLeftovers(in: records).isEmpty)
    }

    @Test("An existing store added with the options for the first time gets every record")
    func existingStoreGetsRecords() throws {
        let folder = try TemporaryFolder()
        let plain = try PersistentStoreCoordinator(managedObjectModel: ExternalRecordFixture.model())
        try plain.addPersistentStore(type: .sqlite, at: folder.file("Notes.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = plain
        try context.performAndWait {
            let entity = try #require(plain.managedObjectModel.entitiesByName["Note"])
            for index in 0..<1_050 {   // more than one batch of the rebuild
                ManagedObject(entity: entity, insertInto: context).setValue("Note \(index)", forKey: "title")
            }
            try context.save()
        }
        try plain.remove(try #require(plain.persistentStores.first))

        let records = folder.file("Records")
        let (coordinator, reader) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records)
        let notes = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")) }
        #expect(notes.count == 1_050)
        for note in notes {
            let title = try #require(note.value(forKey: "title") as? String)
            #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: note, in: records))["title"] == .string(title))
        }
        let identifier = try #require(coordinator.persistentStores.first).identifier
        let noteFolder = records.appendingPathComponent(identifier).appendingPathComponent("Note")
        #expect(try FileManager.default.contentsOfDirectory(atPath: noteFolder.path).count == 1_050)
    }

    @Test("Save As writes the new store's records; the old store keeps its own")
    func saveAs() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records)
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Moved")
        let oldRecord = try ExternalRecordFixture.recordURL(of: note, in: records)
        let source = try #require(coordinator.persistentStores.first)
        let target = try coordinator.migratePersistentStore(
            source, to: folder.file("Notes.xml"), options: ExternalRecordFixture.options(records), type: .xml)
        let newRecord = try ExternalRecordFixture.recordURL(of: note, in: records)
        #expect(newRecord.path.contains(target.identifier) && oldRecord != newRecord)
        #expect(try ExternalRecordFixture.values(newRecord)["title"] == "Moved")
        #expect(try ExternalRecordFixture.values(oldRecord)["title"] == "Moved")
        #expect(try ExternalRecord(at: newRecord).storeURL == folder.file("Notes.xml").standardizedFileURL)
        #expect(try ExternalRecord(at: newRecord).storeType == .xml)

        // Save As in place replaces the store's file: the replaced store's records go with it.
        let replaced = try coordinator.migratePersistentStore(
            target, to: folder.file("Notes.xml"), options: ExternalRecordFixture.options(records, format: .binary), type: .binary)
        let replacedRecord = try ExternalRecordFixture.recordURL(of: note, in: records)
        #expect(replacedRecord.path.contains(replaced.identifier))
        #expect(try Data(contentsOf: replacedRecord).prefix(8) == Data("bplist00".utf8))
        #expect(!FileManager.default.fileExists(atPath: newRecord.path))
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(".support/\(target.identifier)").path))
        #expect(FileManager.default.fileExists(atPath: oldRecord.path))
    }

    @Test("Batch inserts write records; batch deletes and updates bring them in line with the store")
    func batchRequests() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records)
        let (kept, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Kept")
        let identifier = try #require(coordinator.persistentStores.first).identifier
        let noteFolder = records.appendingPathComponent(identifier).appendingPathComponent("Note")
        try context.performAndWait {
            let insert = BatchInsertRequest(entityName: "Note", objects: (0..<5).map { ["title": "Batch \($0)", "rank": Int64($0)] })
            _ = try context.execute(insert)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: noteFolder.path).count == 6)
        let titles = try FileManager.default.contentsOfDirectory(atPath: noteFolder.path).map {
            try ExternalRecordFixture.values(noteFolder.appendingPathComponent($0))["title"]?.stringValue ?? ""
        }
        #expect(Set(titles) == Set(["Kept"] + (0..<5).map { "Batch \($0)" }))

        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Note")
            update.predicate = try QueryPredicate(format: "title BEGINSWITH 'Batch'")
            update.propertiesToUpdate = ["body": "updated"]
            _ = try context.execute(update)
            let old = FetchRequest<ManagedObject>(entityName: "Note")
            old.predicate = try QueryPredicate(format: "rank < 2 AND title BEGINSWITH 'Batch'")
            _ = try context.execute(BatchDeleteRequest(fetchRequest: old))
        }
        let after = try FileManager.default.contentsOfDirectory(atPath: noteFolder.path)
        #expect(after.count == 4)
        for name in after where name != (try ExternalRecordFixture.recordURL(of: kept, in: records)).lastPathComponent {
            #expect(try ExternalRecordFixture.values(noteFolder.appendingPathComponent(name))["body"] == "updated")
        }
        #expect(ExternalRecordFixture.workingLeftovers(in: records).isEmpty)
    }

    @Test("Moving the store notes its new path; destroying it removes its records")
    func moveAndDestroy() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.xml, in: folder, directory: records)
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Moving")
        let store = try #require(coordinator.persistentStores.first)
        let moved = folder.file("Moved.xml")
        try coordinator.setURL(moved, for: store)
        let url = try ExternalRecordFixture.recordURL(of: note, in: records)
        #expect(try ExternalRecord(at: url).storeURL == moved.standardizedFileURL)

        let identifier = store.identifier
        try coordinator.destroyPersistentStore(at: moved, type: .xml, options: ExternalRecordFixture.options(records))
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(identifier).path))
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(".support/\(identifier)").path))
    }
}
