import Foundation
import Testing

import Quire
import QuireTestSupport

/// Core Data's three options (`NSExternalRecordsDirectoryOption`, `NSExternalRecordExtensionOption`,
/// `NSExternalRecordsFileFormatOption`), which Quire refused as "not one Quire knows" before.
@Suite struct ExternalRecordOptionTests {
    @Test("Core Data's option dictionary")
    func coreDataKeys() throws {
        let options = try StoreOptions(coreDataOptions: [
            "NSExternalRecordsDirectoryOption": "/srv/records",
            "NSExternalRecordExtensionOption": "notesrecord",
            "NSExternalRecordsFileFormatOption": "NSBinaryExternalRecordType",
        ])
        #expect(options.externalRecordsDirectory == URL(fileURLWithPath: "/srv/records", isDirectory: true))
        #expect(options.externalRecordExtension == "notesrecord")
        #expect(options.externalRecordsFileFormat == .binary)
        let withURL = try StoreOptions(coreDataOptions: [
            StoreOptions.CoreDataKey.externalRecordsDirectory: URL(fileURLWithPath: "/srv/other"),
            StoreOptions.CoreDataKey.externalRecordExtension: "x",
            StoreOptions.CoreDataKey.externalRecordsFileFormat: StoreOptions.ExternalRecordFormat.xml.rawValue,
        ])
        #expect(withURL.externalRecordsDirectory == URL(fileURLWithPath: "/srv/other") && withURL.externalRecordsFileFormat == .xml)
        #expect(try StoreOptions(coreDataOptions: ["NSExternalRecordsFileFormatOption": "XML"]).externalRecordsFileFormat == .xml)
        #expect(try StoreOptions(coreDataOptions: ["NSExternalRecordsFileFormatOption": "binary"]).externalRecordsFileFormat == .binary)
        #expect(StoreOptions().externalRecordsFileFormat == .xml)
        #expect(throws: QuireError.self) { try StoreOptions(coreDataOptions: ["NSExternalRecordsFileFormatOption": "JSON"]) }
        #expect(throws: QuireError.self) { try StoreOptions(coreDataOptions: ["NSExternalRecordsDirectoryOption": 3]) }
        #expect(throws: QuireError.self) { try StoreOptions(coreDataOptions: ["NSExternalRecordExtensionOption": 3]) }
    }

    @Test("The directory and the extension go together; a bad extension is refused; nothing is written")
    func refusedCombinations() throws {
        let folder = try TemporaryFolder()
        var options = StoreOptions()
        options.externalRecordsDirectory = folder.file("Records")
        var cases = [options]
        options.externalRecordsDirectory = nil
        options.externalRecordExtension = "rec"
        cases.append(options)
        options.externalRecordsDirectory = folder.file("Records")
        for bad in ["", ".rec", "a/b", "a\u{0}b"] {
            options.externalRecordExtension = bad
            cases.append(options)
        }
        for options in cases {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: ExternalRecordFixture.model())
            let error = try #require(throws: QuireError.self) {
                try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Notes.sqlite"), options: options)
            }
            #expect(error.code == .invalidArgument)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
        }
    }

    @Test("Through a persistent container's store description")
    func storeDescription() async throws {
        let folder = try TemporaryFolder()
        let records = folder.file("Records")
        let description = PersistentStoreDescription(url: folder.file("Notes.sqlite"))
        description.setOption(records.path, forKey: "NSExternalRecordsDirectoryOption")
        description.setOption(ExternalRecordFixture.fileExtension, forKey: "NSExternalRecordExtensionOption")
        let container = try PersistentContainer(name: "Notes", managedObjectModel: ExternalRecordFixture.model())
        container.persistentStoreDescriptions = [description]
        _ = try await container.loadPersistentStores()
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = container.persistentStoreCoordinator
        let (note, _, _) = try ExternalRecordSaveTests.insertNote(context, title: "From a container")
        #expect(try ExternalRecordFixture.values(try ExternalRecordFixture.recordURL(of: note, in: records))["title"] == "From a container")
    }
}
