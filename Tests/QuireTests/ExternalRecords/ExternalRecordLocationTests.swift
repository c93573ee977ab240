import Foundation
import Testing

import Quire
import QuireTestSupport

/// A desktop search's hit on a record file, back to the object: ``ExternalRecord`` (Core Data's
/// `elementsDerived(fromExternalRecordAt:)`) and ``SearchMetadata/objectURI(forIndexedFile:)``.
@Suite struct ExternalRecordLocationTests {
    @Test("A record's path gives the object's URI, its store and its model", arguments: [StoreType.sqlite, .binary])
    func recordLeadsToTheObject(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(type, in: folder, directory: records)
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Find me")
        let store = try #require(coordinator.persistentStores.first)
        let url = try ExternalRecordFixture.recordURL(of: note, in: records)

        let record = try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: url)
        #expect(record.entityName == "Note")
        #expect(record.storeIdentifier == store.identifier)
        #expect(record.objectURI == note.objectID.uriRepresentation())
        #expect(record.storeURL == store.url?.standardizedFileURL)
        #expect(record.storeType == type)
        let modelURL = try #require(record.modelURL)
        let model = try ManagedObjectModel(contentsOf: modelURL)
        #expect(model.entitiesByName["Note"]?.versionHash == coordinator.managedObjectModel.entitiesByName["Note"]?.versionHash)
        #expect(try record.values()["title"] == "Find me")

        // As Tracker reports a hit: a file: URL, percent-encoded.
        let hit = try #require(URL(string: url.absoluteString))
        let uri = try #require(SearchMetadata.objectURI(forIndexedFile: hit))
        let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(id == note.objectID)
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        #expect(try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "title") as? String } == "Find me")

        // Another process, with nothing but the record: the store opened from the support file, with its model.
        try coordinator.remove(store)
        if let storeURL = record.storeURL {
            let other = try PersistentStoreCoordinator(managedObjectModel: model)
            try other.addPersistentStore(type: record.storeType, at: storeURL)
            let otherID = try #require(other.managedObjectID(forURIRepresentation: record.objectURI))
            let otherContext = ManagedObjectContext()
            otherContext.persistentStoreCoordinator = other
            let title = try otherContext.performAndWait { try otherContext.existingObject(with: otherID).value(forKey: "title") as? String }
            #expect(title == "Find me")
        }
    }

    @Test("Paths that are not records are refused, naming the file")
    func notRecords() throws {
        let folder = try TemporaryFolder()
        let uuid = UUID().uuidString
        for path in [
            "/tmp/notes.txt", "/r/\(uuid)/Note/p0.rec", "/r/\(uuid)/Note/pabc.rec", "/r/\(uuid)/Note/p12",
            "/r/\(uuid)/Note/q12.rec", "/r/\(uuid)/.Note/p12.rec", "/r/.support/Note/p12.rec", "/r/\(uuid)/Note/p-3.rec",
            "/r/a b/Note/p1.rec",
        ] {
            let url = URL(fileURLWithPath: path)
            let error = try #require(throws: QuireError.self) { try ExternalRecord(at: url) }
            #expect(error.code == .invalidArgument && error.context.file == url.standardizedFileURL)
            #expect(SearchMetadata.objectURI(forIndexedFile: url) == nil)
        }
        #expect(SearchMetadata.objectURI(forIndexedFile: try #require(URL(string: "https://example.com/\(uuid)/Note/p1.rec"))) == nil)
        // A record laid out right but gone, or damaged: its location still reads; its values throw.
        let gone = folder.file("r/\(uuid)/Note/p7.rec")
        #expect(try ExternalRecord(at: gone).objectURI.absoluteString == "x-coredata://\(uuid)/Note/p7")
        #expect(throws: QuireError.self) { try ExternalRecord(at: gone).values() }
        try FileManager.default.createDirectory(at: gone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?><plist><array>".utf8).write(to: gone)
        let error = try #require(throws: QuireError.self) { try ExternalRecord(at: gone).values() }
        #expect(error.code == .fileReadCorruptFile && error.message.contains(gone.path))
        // Without support files, no store or model is named.
        #expect(try ExternalRecord(at: gone).storeURL == nil && ExternalRecord(at: gone).modelURL == nil)
    }
}
