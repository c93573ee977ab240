import CArchive
import Foundation
import Glibc
import Testing

@testable import Quire
import QuireCore
import QuireTestSupport

/// Working and staging folders never outlive what made them (issue 14): every exit path removes them, and those
/// of processes that were killed are collected by the next open or conversion.
@Suite struct WorkingFolderTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A zip document whose package is well formed but whose store is not a store.
    func brokenStoreArchive() throws -> URL {
        let url = folder.file("Broken.zip")
        let archive = try #require(archive_write_new())
        defer { archive_write_free(archive) }
        archive_write_set_format_zip(archive)
        #expect(archive_write_open_filename(archive, url.path) == ARCHIVE_OK)
        for (path, contents) in [("mimetype", "application/x-quire-test"), ("StoreContent/persistentStore", "not a store at all")] {
            let entry = archive_entry_new()
            defer { archive_entry_free(entry) }
            archive_entry_set_pathname(entry, path)
            archive_entry_set_filetype(entry, UInt32(0o100000))
            archive_entry_set_perm(entry, 0o644)
            archive_entry_set_size(entry, Int64(contents.utf8.count))
            #expect(archive_write_header(archive, entry) >= ARCHIVE_WARN)
            _ = Array(contents.utf8).withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
        }
        #expect(archive_write_close(archive) == ARCHIVE_OK)
        return url
    }

    /// The ID of a process that has exited (and been reaped).
    func deadProcessID() throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test(.enabled(if: CLIHarness.executable != nil, "the quire executable is built with the tests"))
    func anArchiveThatFailsToOpenLeavesNothingInTheTemporaryFolder() throws {
        let executable = try #require(CLIHarness.executable)
        let harness = try CLIHarness(executable: executable)
        let archive = try brokenStoreArchive()
        let temporary = folder.file("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        for _ in 0..<3 {
            let result = try harness.run(["info", archive.path], environment: ["TMPDIR": temporary.path])
            #expect(result.status != 0, "\(result)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])

        // In this process too: the error is the store's, and no working copy of this process remains.
        let error = try #require(throws: QuireError.self) { try DocumentContents(contentsOf: archive) }
        #expect(error.context.file != nil)
    }

    @Test func aStagingFolderOfAKilledConversionIsCollectedByTheNextOne() throws {
        let source = CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc")
        let output = folder.file("Runs.zip")
        let dead = try deadProcessID()
        let stale = folder.file(".Runs.zip.quire-p\(dead)-0badf00d.convert")
        try FileManager.default.createDirectory(at: stale.appendingPathComponent("work"), withIntermediateDirectories: true)
        try Data("half a store".utf8).write(to: stale.appendingPathComponent("work/persistentStore"))
        // pid 1 is alive and started before this folder: its folder stays.
        let live = folder.file(".Runs.zip.quire-p1-0000cafe.convert")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        // pid 1 started after this folder was last changed: the ID was reused, the folder is stale.
        let reused = folder.file(".Runs.zip.quire-p1-0000beef.convert")
        try FileManager.default.createDirectory(at: reused, withIntermediateDirectories: true)
        var times = [timeval(tv_sec: 315_532_800, tv_usec: 0), timeval(tv_sec: 315_532_800, tv_usec: 0)]
        #expect(utimes(reused.path, &times) == 0)
        // Another document's staging folder and a name without an owner are not this conversion's business.
        let other = folder.file(".Other.zip.quire-p\(dead)-00000001.convert")
        let old = folder.file(".Runs.zip.quire-0badf00d.convert")
        for url in [other, old] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

        let contents = try DocumentContents(contentsOf: source)
        defer { contents.close() }
        _ = try contents.convert(to: output, container: .zipArchive, storeType: .sqlite)

        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
        #expect(names == ["Runs.zip", live.lastPathComponent, other.lastPathComponent, old.lastPathComponent])
    }

    @Test func workingCopiesOfDeadProcessesAreCollectedOnOpen() throws {
        let dead = try deadProcessID()
        let temporary = FileManager.default.temporaryDirectory
        let stale = temporary.appendingPathComponent("quire-contents-p\(dead)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stale.appendingPathComponent("StoreContent"), withIntermediateDirectories: true)
        defer { DocumentFiles.removeTree(stale) }
        let contents = try DocumentContents(contentsOf: CLIHarness.samples.appendingPathComponent("Runs-sqlite.zip"))
        contents.close()
        #expect(DocumentFiles.kind(of: stale) == .missing)
    }

    @Test func aTreeDeeperThanPathMaxIsRemoved() throws {
        let root = folder.file("deep")
        try DocumentFiles.makeDirectory(root, mode: 0o700)
        // 2,000 levels of 8-character names: about 18,000 bytes of path, more than PATH_MAX (4,096).
        var fd = open(root.path, O_RDONLY | O_DIRECTORY)
        try #require(fd >= 0)
        for level in 0..<2_000 {
            let name = String(format: "level%03d", level % 1000)
            #expect(mkdirat(fd, name, 0o700) == 0)
            if level % 100 == 0 {
                let file = openat(fd, "file", O_WRONLY | O_CREAT | O_EXCL, 0o600)
                #expect(file >= 0)
                close(file)
            }
            let child = openat(fd, name, O_RDONLY | O_DIRECTORY)
            try #require(child >= 0)
            close(fd)
            fd = child
        }
        close(fd)
        DocumentFiles.removeTree(root)
        #expect(DocumentFiles.kind(of: root) == .missing)
    }
}
