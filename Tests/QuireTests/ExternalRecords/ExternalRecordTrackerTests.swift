import Foundation
import Testing

import Quire
import QuireTestSupport

/// What GNOME's Tracker reads from an external record file: `tracker3 extract` (Debian's Tracker 3.4) on a record
/// a save wrote, with the shipped shared-mime-info type and Tracker rule for records installed in a private data
/// folder, on a private session bus (as ``TrackerExtractTests`` runs it); then the hit, back to the object.
@Suite struct ExternalRecordTrackerTests {
    @Test(.enabled(
        if: TrackerExtractTests.trackerIsInstalled,
        "needs tracker3, dbus-daemon and update-mime-database (apt-get install tracker tracker-extract dbus-daemon shared-mime-info)"))
    func trackerFindsTheIndexedValueAndTheHitLeadsToTheObject() throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let (coordinator, context) = try ExternalRecordFixture.stack(.sqlite, in: folder, directory: records)
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "Buy zucchini")
        let record = try ExternalRecordFixture.recordURL(of: note, in: records)

        // The records' MIME type and rule, in a private folder, beside Debian's rules.
        let json = try TrackerExtractTests.extract(record, mimeTypes: ["quire-record.xml"], rules: ["10-quire-record.rule"], in: folder)
        // The record's values reach Tracker's full-text index (nie:plainTextContent); the property kept out of
        // the record does not.
        let text = try #require(json["nie:plainTextContent"] as? String, "\(json)")
        #expect(text.contains("Buy zucchini") && text.contains("From the market"))
        #expect(!text.contains("not for search"))

        // Tracker's hit (its @id, the file's URL) back to the object.
        let hit = try #require((json["@id"] as? String).flatMap(URL.init(string:)))
        let uri = try #require(SearchMetadata.objectURI(forIndexedFile: hit))
        let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = coordinator
        #expect(try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "title") as? String } == "Buy zucchini")
    }
}
