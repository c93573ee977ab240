import CArchive
import Foundation
import Testing

import Quire

/// Hostile and broken archives are refused with a clear error, and nothing is written outside the working
/// folder.
@Suite struct HostileArchiveTests {
    let folder: TemporaryFolder
    let kindZip = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
    let kindTar = DocumentFixtures.Kind(format: .tarArchive, storeType: .sqlite)

    init() throws {
        folder = try TemporaryFolder()
        kindZip.register()
        kindTar.register()
    }

    /// One entry of a handmade archive.
    enum Entry {
        case file(String, Data)
        case directory(String)
        case symlink(String, target: String)
        case hardlink(String, target: String)
        case device(String)
    }

    /// Writes an archive with libarchive, entry by entry, as an attacker would.
    func makeArchive(_ name: String, zip: Bool, _ entries: [Entry]) throws -> URL {
        let url = folder.file(name)
        let archive = try #require(archive_write_new())
        defer { archive_write_free(archive) }
        _ = zip ? archive_write_set_format_zip(archive) : archive_write_set_format_pax_restricted(archive)
        #expect(archive_write_open_filename(archive, url.path) == ARCHIVE_OK)
        for item in [Entry.file("mimetype", Data(DocumentFixtures.mimeType.utf8))] + entries {
            let entry = archive_entry_new()
            defer { archive_entry_free(entry) }
            archive_entry_set_perm(entry, 0o644)
            var data = Data()
            switch item {
            case .file(let path, let contents):
                archive_entry_set_pathname(entry, path)
                archive_entry_set_filetype(entry, UInt32(0o100000))
                archive_entry_set_size(entry, Int64(contents.count))
                data = contents
            case .directory(let path):
                archive_entry_set_pathname(entry, path)
                archive_entry_set_filetype(entry, UInt32(0o040000))
            case .symlink(let path, let target):
                archive_entry_set_pathname(entry, path)
                archive_entry_set_filetype(entry, UInt32(0o120000))
                archive_entry_set_symlink(entry, target)
            case .hardlink(let path, let target):
                archive_entry_set_pathname(entry, path)
                archive_entry_set_filetype(entry, UInt32(0o100000))
                archive_entry_set_hardlink(entry, target)
            case .device(let path):
                archive_entry_set_pathname(entry, path)
                archive_entry_set_filetype(entry, UInt32(0o020000))
                archive_entry_set_rdev(entry, (1 << 8) | 3)
            }
            #expect(archive_write_header(archive, entry) >= ARCHIVE_WARN)
            if !data.isEmpty { _ = data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) } }
        }
        #expect(archive_write_close(archive) == ARCHIVE_OK)
        return url
    }

    /// Opens `url` as a document, expects `code`, and checks that nothing appeared next to the archive.
    func expectRefused(_ url: URL, kind: DocumentFixtures.Kind, _ code: QuireError.Code, limits: ArchiveLimits = ArchiveLimits()) {
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? [])
        let tmpBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [])
        let error = expectQuireError(code) {
            try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model(), archiveLimits: limits)
        }
        #expect(error?.message.contains(url.lastPathComponent) ?? false, "\(String(describing: error))")
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? [])
        #expect(after == before)
        let tmpAfter = Set((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [])
        #expect(tmpAfter.subtracting(tmpBefore).filter { $0.contains("evil") || $0.contains("outside") }.isEmpty)
        #expect(DiskItems.isMissing(folder.file("outside.txt")))
    }

    @Test(arguments: [true, false])
    func zipSlipIsRefused(zip: Bool) throws {
        let url = try makeArchive("slip", zip: zip, [.file("StoreContent/../../outside.txt", Data("pwned".utf8))])
        expectRefused(url, kind: zip ? kindZip : kindTar, .archiveUnsafeEntry)
    }

    @Test(arguments: [true, false])
    func absolutePathIsRefused(zip: Bool) throws {
        let target = folder.file("outside.txt").path
        let url = try makeArchive("absolute", zip: zip, [.file(target, Data("pwned".utf8))])
        expectRefused(url, kind: zip ? kindZip : kindTar, .archiveUnsafeEntry)
    }

    @Test func symlinkEscapeIsRefused() throws {
        let url = try makeArchive(
            "symlink.tar", zip: false,
            [.symlink("StoreContent", target: folder.url.path), .file("StoreContent/outside.txt", Data("pwned".utf8))])
        expectRefused(url, kind: kindTar, .archiveUnsafeEntry)
    }

    @Test func hardLinkIsRefused() throws {
        let url = try makeArchive("hardlink.tar", zip: false, [.hardlink("StoreContent/persistentStore", target: "/etc/passwd")])
        expectRefused(url, kind: kindTar, .archiveUnsafeEntry)
    }

    @Test func deviceEntryIsRefused() throws {
        let url = try makeArchive("device.tar", zip: false, [.device("StoreContent/persistentStore")])
        expectRefused(url, kind: kindTar, .archiveUnsafeEntry)
    }

    @Test func duplicateNamesAreRefused() throws {
        let url = try makeArchive(
            "duplicate.zip", zip: true, [.file("StoreContent/persistentStore", Data()), .file("StoreContent/persistentStore", Data([1]))])
        expectRefused(url, kind: kindZip, .archiveUnsafeEntry)
    }

    @Test func bombIsRefused() throws {
        // 64 MiB of zeros deflate to about 64 KiB.
        let url = try makeArchive("bomb.zip", zip: true, [.file("StoreContent/persistentStore", Data(count: 64 << 20))])
        var limits = ArchiveLimits()
        limits.maximumTotalSize = 8 << 20
        expectRefused(url, kind: kindZip, .archiveLimitExceeded, limits: limits)
        limits = ArchiveLimits()
        limits.maximumEntrySize = 1 << 20
        expectRefused(url, kind: kindZip, .archiveLimitExceeded, limits: limits)
    }

    @Test func tooManyEntriesAreRefused() throws {
        let url = try makeArchive("many.zip", zip: true, (0..<20).map { .file("Metadata/\($0).txt", Data("x".utf8)) })
        var limits = ArchiveLimits()
        limits.maximumEntryCount = 10
        expectRefused(url, kind: kindZip, .archiveLimitExceeded, limits: limits)
    }

    @Test(arguments: [true, false])
    func truncatedArchiveIsRefused(zip: Bool) throws {
        let kind = zip ? kindZip : kindTar
        let url = folder.file("whole")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: (0..<50).map { "note \($0)" })
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        let data = try Data(contentsOf: url)
        let truncated = folder.file("truncated")
        try data.prefix(data.count / 2).write(to: truncated)
        let error = expectQuireError(.invalidArchive) {
            try PersistentDocument(contentsOf: truncated, ofType: kind.typeName, model: DocumentFixtures.model())
        }
        #expect(error?.context.file == truncated)
    }

    @Test func notAnArchiveIsRefused() throws {
        let url = folder.file("garbage.noteszip")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: url)
        expectRefused(url, kind: kindZip, .invalidArchive)
        let empty = folder.file("empty.noteszip")
        try Data().write(to: empty)
        expectQuireError(.invalidArchive) { try SearchMetadata(contentsOf: empty) }
    }

    @Test func archiveWhoseFirstEntryIsNotMimetypeIsNotADocument() throws {
        let url = folder.file("other.zip")
        let archive = try #require(archive_write_new())
        archive_write_set_format_zip(archive)
        archive_write_open_filename(archive, url.path)
        let entry = archive_entry_new()
        archive_entry_set_pathname(entry, "readme.txt")
        archive_entry_set_filetype(entry, UInt32(0o100000))
        archive_entry_set_size(entry, 2)
        archive_write_header(archive, entry)
        archive_write_data(archive, "hi", 2)
        archive_entry_free(entry)
        archive_write_close(archive)
        archive_write_free(archive)
        expectRefused(url, kind: kindZip, .documentTypeMismatch)
    }

    @Test func mimetypeIsFirstAndStoredWhereSniffersLook() throws {
        let url = folder.file("Sniff.noteszip")
        let document = try PersistentDocument(type: kindZip.typeName, model: DocumentFixtures.model())
        try document.save(to: url, ofType: kindZip.typeName, for: .saveAs)
        document.close()
        let bytes = [UInt8](try Data(contentsOf: url).prefix(200))
        #expect(bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]))
        #expect(bytes[8] == 0 && bytes[9] == 0, "mimetype is stored, not deflated")
        #expect(Array(bytes[30..<38]) == Array("mimetype".utf8))
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        let extraLength = Int(bytes[28]) | Int(bytes[29]) << 8
        let start = 30 + nameLength + extraLength
        #expect(Array(bytes[start..<start + DocumentFixtures.mimeType.utf8.count]) == Array(DocumentFixtures.mimeType.utf8))
        // Within the range the shipped shared-mime-info magic searches.
        #expect(start >= 38 && start <= 90)
    }

    // MARK: Zip bombs and full disks (issue 14)

    @Test func aBombUnderTheSizeLimitsIsRefusedByItsCompressionRatio() throws {
        // 300 MiB of zeros deflate to about 300 KiB: under the default per-entry (4 GiB) and total (16 GiB)
        // limits, far over the default ratio (100) once past its floor (256 MiB).
        let url = try makeArchive("ratio-bomb.zip", zip: true, [.file("StoreContent/persistentStore", Data(count: 300 << 20))])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).int64Value
        #expect(size < 2 << 20)
        let error = expectQuireError(.archiveLimitExceeded) {
            try PersistentDocument(contentsOf: url, ofType: kindZip.typeName, model: DocumentFixtures.model())
        }
        #expect(error?.message.contains("zip bomb") == true, "\(String(describing: error))")
        #expect(error?.message.contains(url.lastPathComponent) == true)
        // A lower floor refuses the same archive sooner; a higher ratio lets it through to the size limits.
        var limits = ArchiveLimits()
        limits.compressionRatioFloor = 1 << 20
        expectRefused(url, kind: kindZip, .archiveLimitExceeded, limits: limits)
    }


}
