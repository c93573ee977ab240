import Foundation
import Testing

import Quire

/// A child process saving a document again and again is killed with SIGKILL at random moments; after each kill
/// the document opens and equals the version saved last or the one being saved. `QUIRE_CRASH_KILLS` sets the
/// number of kills (200 in all by default; `make crash-test-long` runs more).
@Suite(.serialized) struct CrashTests {
    static var worker: URL? {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("quire-crash-worker")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        let build = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("quire-crash-worker")
        return FileManager.default.isExecutableFile(atPath: build.path) ? build : nil
    }

    static var totalKills: Int { ProcessInfo.processInfo.environment["QUIRE_CRASH_KILLS"].flatMap { Int($0) } ?? 210 }

    static let cases: [DocumentFixtures.Kind] = DocumentFixtures.kinds

    @Test(arguments: cases)
    func killedSavesLeaveTheOldOrTheNewVersion(kind: DocumentFixtures.Kind) throws {
        let worker = try #require(Self.worker, "quire-crash-worker is not built; run swift build --build-tests first")
        let folder = try TemporaryFolder()
        let harness = DocumentCrashHarness(format: kind.format, storeType: kind.storeType)
        let url = folder.file("Crash.crashtest")
        try harness.createDocument(at: url)
        let kills = max(1, Self.totalKills / Self.cases.count)
        var lastVersion: Int64 = 0
        var generator = SystemRandomNumberGenerator()
        var savesSeen = 0
        for round in 0..<kills {
            let status = folder.file("status-\(round)")
            _ = FileManager.default.createFile(atPath: status.path, contents: nil)
            let process = Process()
            process.executableURL = worker
            process.arguments = ["loop", url.path, kind.format.rawValue, kind.storeType.rawValue, status.path]
            // A killed worker cannot remove its working folder: keep those inside the test's folder.
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.url.path]) { $1 }
            try process.run()
            // Wait until the document is open (odd rounds: until its first save is done, so that later saves
            // are hit too), then let it save for a random while.
            let marker = round % 2 == 0 ? "ready" : "saved"
            let deadline = Date().addingTimeInterval(20)
            while !(String(decoding: (try? Data(contentsOf: status)) ?? Data(), as: UTF8.self).contains(marker)) && Date() < deadline
                && process.isRunning
            {
                usleep(500)
            }
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let lines = String(decoding: try Data(contentsOf: status), as: UTF8.self).split(separator: "\n")
            #expect(lines.first == "ready", "the worker did not start: \(lines)")
            let saved = lines.compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }
            savesSeen += saved.count
            let reported = saved.last ?? lastVersion
            let version = try harness.verify(at: url)
            #expect(version == reported || version == reported + 1, "round \(round): opened version \(version), last saved \(reported)")
            #expect(version >= lastVersion)
            lastVersion = version
            try? FileManager.default.removeItem(at: status)
        }
        #expect(savesSeen > 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".quire-") }
        #expect(leftovers.isEmpty, "leftovers after the last open: \(leftovers)")
        // Each worker's open collected the working folder of the one killed before it: only the last remains.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("quire-document-") }.count == min(kills, 1))
    }

    @Test(arguments: cases)
    func aFullDiskFailsTheSaveAndKeepsThePreviousVersion(kind: DocumentFixtures.Kind) throws {
        let worker = try #require(Self.worker)
        let folder = try TemporaryFolder()
        let harness = DocumentCrashHarness(format: kind.format, storeType: kind.storeType)
        let url = folder.file("Full.crashtest")
        try harness.createDocument(at: url)
        let process = Process()
        let output = Pipe()
        process.executableURL = worker
        process.arguments = ["fsize", url.path, kind.format.rawValue, kind.storeType.rawValue, String(256 << 10)]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.url.path]) { $1 }
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.hasPrefix("failed \(QuireError.Code.fileWriteOutOfSpace.rawValue)"), "\(text)")
        #expect(try harness.verify(at: url) == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".quire-") }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: [DocumentType.Format.package, .zipArchive])
    func anUnwritableFolderFailsTheSaveAndKeepsThePreviousVersion(format: DocumentType.Format) throws {
        let folder = try TemporaryFolder()
        let kind = DocumentFixtures.Kind(format: format, storeType: .sqlite)
        kind.register()
        let parent = folder.file("Locked")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let url = parent.appendingPathComponent("Doc.\(kind.fileExtension)")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["before"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        // Root ignores permissions, so the folder is made immutable (chattr +i) instead.
        let locked = Self.chattr("+i", parent)
        try #require(locked || getuid() != 0, "chattr +i is unavailable here and root ignores folder permissions")
        if !locked { chmod(parent.path, 0o555) }
        defer {
            _ = Self.chattr("-i", parent)
            chmod(parent.path, 0o755)
        }
        DocumentFixtures.fill(document, titles: ["after"])
        let error = expectQuireError(.fileWriteNoPermission) { try document.save() }
        #expect(error?.message.contains(parent.path) ?? false, "\(String(describing: error))")
        #expect(document.isDocumentEdited)
        _ = Self.chattr("-i", parent)
        chmod(parent.path, 0o755)
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["before"])
        try document.save()
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["after", "before"])
        document.close()
    }

    static func chattr(_ flag: String, _ url: URL) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, url.path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
