import Foundation
import Testing

import Quire

/// Search metadata: the ODF meta file round-trips, hostile text is escaped, and a filesystem without
/// extended attributes still saves (with a warning).
@Suite struct SearchMetadataTests {
    @Test func archivesCarryMetaXMLAtTheTopForTracker() throws {
        let folder = try TemporaryFolder()
        let kind = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        _ = kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.title = "Quarterly"
        let url = folder.file("Top.\(kind.fileExtension)")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        let top = try #require(try ArchiveEntries.data(of: url, at: DocumentPackageLayout.archiveMetaXML))
        let nested = try #require(try ArchiveEntries.data(of: url, at: DocumentPackageLayout.metaXML))
        #expect(top == nested)
        #expect(String(decoding: top, as: UTF8.self).contains("<dc:title>Quarterly</dc:title>"))
    }

    @Test func malformedMetaXMLIsRefused() throws {
        let folder = try TemporaryFolder()
        let package = folder.file("Malformed.notes")
        let member = package.appendingPathComponent(DocumentPackageLayout.metaXML)
        try FileManager.default.createDirectory(at: member.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("<office:document-meta><dc:title>".utf8).write(to: member)
        let error = expectQuireError(.fileReadCorruptFile) { _ = try SearchMetadata(contentsOf: package) }
        #expect(error?.message.contains(member.path) ?? false)
    }


    /// Runs `mount` or `umount` with arguments; true when it succeeded.
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Whether this process may mount a ramfs (root, as on the project's machines and CI): ramfs refuses
    /// `user.*` extended attributes, so it stands for a filesystem without them.
    static let canMountRamfs: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("quire-ramfs-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run("/bin/mount", ["-t", "ramfs", "ramfs", probe.path]) else { return false }
        return run("/bin/umount", [probe.path])
    }()

    @Test(.enabled(if: canMountRamfs, "mounting a ramfs (a filesystem without extended attributes) needs root"))
    func saveSucceedsWithAWarningWhereExtendedAttributesAreRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("quire-ramfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try #require(Self.run("/bin/mount", ["-t", "ramfs", "ramfs", base.path]))
        defer {
            _ = Self.run("/bin/umount", [base.path])
            try? FileManager.default.removeItem(at: base)
        }
        #expect(throws: (any Error).self) { try ExtendedAttributes.set("user.quire.probe", to: Data("1".utf8), on: base) }
        let kind = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        kind.register()
        let url = base.appendingPathComponent("quire-no-xattr-\(UUID().uuidString).noteszip")
        defer { try? FileManager.default.removeItem(at: url) }
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.searchMetadata.keywords = ["k"]
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        #expect(!document.lastSaveWarnings.isEmpty)
        #expect(try SearchMetadata(contentsOf: url).keywords == ["k"])
        document.close()
    }
}
