import Foundation
import Testing

import Quire

/// Persistent history on the stores Core Data gives none: in-memory, XML and binary, kept in the store's
/// metadata. Each test runs on real files of each type (the in-memory store where a file is not needed).
@Suite struct PersistentHistoryAtomicStoreTests {
    typealias Stack = PersistentHistoryTombstoneTests.Stack

    static func url(_ type: StoreType, in folder: TemporaryFolder) -> URL? {
        type == .inMemory ? nil : folder.file("Notes.\(type.rawValue.lowercased())")
    }

    @Test(arguments: [StoreType.inMemory, .xml, .binary])
    func savesAreRecordedWithTokensTombstonesAndDeletion(_ type: StoreType) throws {
        let folder = try TemporaryFolder()
        let stack = try Stack(type, at: Self.url(type, in: folder))
        stack.context.name = "editor"
        let note = try stack.insert("Note", ["title": "Note 9", "modifiedAt": PersistentHistoryTombstoneTests.firstDate, "pinned": false])
        let inbox = try stack.insert("Folder", ["name": "Inbox"])
        try stack.context.save()
        note.setValue(true, forKey: "pinned")
        try stack.context.save()
        stack.context.delete(note)
        try stack.context.save()

        let history = try stack.history()
        #expect(history.map(\.transactionNumber) == [1, 2, 3])
        #expect(history.allSatisfy { $0.author == "app" && $0.contextName == "editor" && $0.processID != nil && $0.bundleID != nil })
        #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.delete]])
        #expect(Set(history[0].changes?.map(\.changedObjectID) ?? []) == [inbox.objectID, note.objectID])
        #expect(history[1].changes?.first?.updatedProperties == ["pinned"])
        #expect(history[2].changes?.first?.tombstone == ["title": .string("Note 9"), "modifiedAt": .date(PersistentHistoryTombstoneTests.firstDate)])
        #expect(history[2].changes?.first?.changedObjectID == note.objectID)

        // Tokens, the transactions-only result, deleting up to a token.
        #expect(try stack.history(after: history[0].token).map(\.transactionNumber) == [2, 3])
        #expect(stack.coordinator.currentPersistentHistoryToken() == history[2].token)
        let only = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        only.resultType = .transactionsOnly
        #expect(try stack.context.execute(only).transactions?.allSatisfy { $0.changes == nil } == true)
        let deletion = PersistentHistoryChangeRequest.deleteHistory(before: history[1].token)
        deletion.resultType = .count
        #expect(try stack.context.execute(deletion).count == 2)
        #expect(try stack.history().map(\.transactionNumber) == [3])
        // Numbers go on after a deletion; they are never reused.
        _ = try stack.insert("Folder", ["name": "Archive"])
        try stack.context.save()
        #expect(try stack.history().map(\.transactionNumber) == [3, 4])

        guard let url = Self.url(type, in: folder) else { return }
        // The history is in the file: a new coordinator reads it back, and it survives a save there.
        let reopened = try Stack(type, at: url)
        let read = try reopened.history()
        #expect(read.map(\.transactionNumber) == [3, 4])
        #expect(read[0].changes?.first?.tombstone == history[2].changes?.first?.tombstone)
        #expect(read[0].timestamp.timeIntervalSince(history[2].timestamp).magnitude < 1)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)[StoreMetadataKey.persistentHistory] != nil)
    }

    @Test(arguments: [StoreType.xml, .binary])
    func anotherCoordinatorsSavesAreMergedFromHistory(_ type: StoreType) throws {
        let folder = try TemporaryFolder()
        let url = try #require(Self.url(type, in: folder))
        let writer = try Stack(type, at: url)
        let ada = try writer.insert("Folder", ["name": "Ada"])
        let bob = try writer.insert("Folder", ["name": "Bob"])
        try writer.context.save()

        let reader = try Stack(type, at: url)
        reader.context.transactionAuthor = "reader"
        let merger = PersistentHistoryMerger(context: reader.context, excludingAuthor: "reader")
        let fetch = FetchRequest<ManagedObject>(entityName: "Folder")
        fetch.sortDescriptors = [SortKey("name")]
        let seen = try reader.context.fetch(fetch)
        #expect(seen.map { $0.value(forKey: "name") as? String } == ["Ada", "Bob"])

        ada.setValue("Ada L.", forKey: "name")
        writer.context.delete(bob)
        _ = try writer.insert("Folder", ["name": "Cy"])
        try writer.context.save()
        #expect(try merger.mergeNewTransactions() == 1)
        #expect(seen[0].value(forKey: "name") as? String == "Ada L.")
        #expect(seen[1].managedObjectContext == nil)
        #expect(try reader.context.fetch(fetch).map { $0.value(forKey: "name") as? String } == ["Ada L.", "Cy"])
        #expect(try merger.mergeNewTransactions() == 0)
        // The reader's own save goes on from the file as the writer left it, and is recorded after the writer's.
        _ = try reader.insert("Folder", ["name": "Dee"])
        try reader.context.save()
        #expect(try writer.history().map(\.author) == ["app", "app", "reader"])
    }

    @Test func inMemoryHistoryMergesAnotherContextsSaves() throws {
        let stack = try Stack(.inMemory, at: nil)
        let viewer = ManagedObjectContext()
        viewer.persistentStoreCoordinator = stack.coordinator
        viewer.transactionAuthor = "viewer"
        let merger = PersistentHistoryMerger(context: viewer, excludingAuthor: "viewer")
        let inbox = try stack.insert("Folder", ["name": "Inbox"])
        try stack.context.save()
        let seen = try viewer.performAndWait { try viewer.existingObject(with: inbox.objectID) }
        inbox.setValue("Mail", forKey: "name")
        try stack.context.save()
        #expect(try merger.mergeNewTransactions() == 2)
        #expect(viewer.performAndWait { seen.value(forKey: "name") as? String } == "Mail")
    }

    /// A save whose file cannot be written (a custom atomic store whose JSON encoder refuses a NaN) leaves the
    /// history as it was, in memory and in the file; the next save is numbered after the last one that landed.
    @Test func aFailedSaveLeavesTheHistoryAsItWas() throws {
        TestJSONStore.register()
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Reading", properties: [AttributeDescription(name: "value", type: .double)]),
        ])
        let folder = try TemporaryFolder()
        let url = folder.file("Readings.json")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        try coordinator.addPersistentStore(type: TestJSONStore.storeType, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let entity = try #require(model.entitiesByName["Reading"])
        ManagedObject(entity: entity, insertInto: context).setValue(1.0, forKey: "value")
        try context.save()
        let saved = try Data(contentsOf: url)

        let bad = ManagedObject(entity: entity, insertInto: context)
        bad.setValue(Double.nan, forKey: "value")
        #expect(throws: (any Error).self) { try context.save() }
        let history = { try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions ?? [] }
        #expect(try history().map(\.transactionNumber) == [1])
        #expect(try Data(contentsOf: url) == saved)

        bad.setValue(2.0, forKey: "value")
        try context.save()
        #expect(try history().map(\.transactionNumber) == [1, 2])
        #expect(try history().last?.changes?.count == 1)
    }

    /// Save As copies the objects, not the history (as the SQLite store does): the new store's history starts
    /// empty and its first save is transaction 1.
    @Test(arguments: [StoreType.xml, .binary])
    func saveAsStartsAnEmptyHistory(_ type: StoreType) throws {
        let folder = try TemporaryFolder()
        let url = try #require(Self.url(type, in: folder))
        let stack = try Stack(type, at: url)
        _ = try stack.insert("Folder", ["name": "Inbox"])
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        let copy = folder.file("Copy.\(type.rawValue.lowercased())")
        let moved = try stack.coordinator.migratePersistentStore(store, to: copy, options: options, type: type)
        #expect(moved.metadata[StoreMetadataKey.persistentHistory] == nil)
        #expect(try stack.history().isEmpty)
        _ = try stack.insert("Folder", ["name": "Archive"])
        try stack.context.save()
        #expect(try stack.history().map(\.transactionNumber) == [1])
    }

    /// Metadata set by the app without the history key keeps the history (the key is one the store keeps).
    @Test func settingMetadataKeepsTheHistory() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.xml")
        let stack = try Stack(.xml, at: url)
        _ = try stack.insert("Folder", ["name": "Inbox"])
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        stack.coordinator.setMetadata(["keywords": .array([.string("notes")])], for: store)
        _ = try stack.insert("Folder", ["name": "Archive"])
        try stack.context.save()
        let reopened = try Stack(.xml, at: url)
        #expect(try reopened.history().map(\.transactionNumber) == [1, 2])
        #expect(reopened.coordinator.persistentStores.first?.metadata["keywords"] == .array([.string("notes")]))
    }
}
