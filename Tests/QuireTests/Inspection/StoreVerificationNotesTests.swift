import Foundation
import Testing

import Quire
import QuireStores

/// What `quire verify` reports apart from problems: what Core Data itself writes (issue 27).
@Suite struct StoreVerificationNotesTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func notesStore() throws -> URL {
        let url = folder.file("NoteStore.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/AppleNotes/NoteStore-macOS-15-Seqoia.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    @Test func aOneToOneKeptOnOneSideIsANote() throws {
        // Apple Notes (macOS 15): every object's `cloudState` names its state, whose `cloudSyncingObject` is empty.
        let report = try StoreVerification.report(inStoreAt: try notesStore(), type: .sqlite)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.notes.count == 28)
        #expect(report.notes.first == "ICAccount 2.cloudState holds ICCloudState 3, whose inverse cloudSyncingObject is empty "
            + "(a one-to-one kept on one side, as Core Data writes some).")
    }

    @Test func aOneToOneWhoseOtherSideNamesAnotherObjectIsAProblem() throws {
        let url = try notesStore()
        // The state of account 2 now names note 5 as its object (note 5's own state is 5).
        _ = try sqlite3(url, "UPDATE ZICCLOUDSTATE SET ZCLOUDSYNCINGOBJECT = 5, Z2_CLOUDSYNCINGOBJECT = (SELECT Z_ENT FROM ZICCLOUDSYNCINGOBJECT WHERE Z_PK = 5) WHERE Z_PK = 3")
        let report = try StoreVerification.report(inStoreAt: url, type: .sqlite)
        #expect(report.problems.contains("ICAccount 2.cloudState holds ICCloudState 3, whose inverse cloudSyncingObject does not hold it back."),
            "\(report.problems)")
        #expect(report.problems.contains("ICCloudState 3.cloudSyncingObject holds ICNote 5, whose inverse cloudState does not hold it back."),
            "\(report.problems)")
    }

    @Test func anXMLStoreWithoutVersionHashesIsANote() throws {
        // Core Data's XML stores may carry an empty metadata plist: this copy of an Xcode mapping model has none.
        let text = try String(contentsOf: try FixtureFiles.url("CoreData/XML/Moody-2-3.xml"), encoding: .utf8)
        let start = try #require(text.range(of: "<key>NSStoreModelVersionHashes</key>"))
        let end = try #require(text.range(of: "</dict>", range: start.upperBound..<text.endIndex))
        let url = folder.file("Mapping.xml")
        try (text[..<start.lowerBound] + text[end.upperBound...]).write(to: url, atomically: true, encoding: .utf8)
        let model = try FixtureFiles.url("CoreData/XML/XcodeMapping.xcdatamodel")
        let report = try StoreVerification.report(inStoreAt: url, type: .xml, modelFile: model)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.notes == ["Metadata: NSStoreModelVersionHashes is missing, as Core Data's XML stores may have it (their metadata can be empty)."])
    }
}
