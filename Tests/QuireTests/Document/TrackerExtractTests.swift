import Foundation
import Testing

import Quire

/// What GNOME's Tracker really reads from a Quire document: `tracker3 extract` (Debian's `tracker-extract`, 3.4)
/// on a saved sample notebook, with the shipped shared-mime-info type and Tracker rule installed in a private
/// data folder (never the machine's), on a private session bus.
@Suite struct TrackerExtractTests {
    /// The tools the test runs, found on the PATH.
    static let tools = ["tracker3", "dbus-daemon", "update-mime-database"]

    /// Where a tool is, or nil.
    static func path(of tool: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let trackerIsInstalled = tools.allSatisfy { path(of: $0) != nil }
        && FileManager.default.fileExists(atPath: systemRules.path)

    /// Debian's extract rules, copied beside Quire's: `TRACKER_EXTRACTOR_RULES_DIR` replaces the whole folder.
    static let systemRules = URL(fileURLWithPath: "/usr/share/tracker3-miners/extract-rules")

    /// `Resources/freedesktop/` of this checkout.
    static let freedesktop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources/freedesktop")

    /// Runs a tool and returns its standard output (through a file: a pipe would stay open as long as any
    /// process the tool left behind holds it); throws on a non-zero exit or after two minutes.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:], in folder: TemporaryFolder) throws -> Data {
        let output = folder.file("\(tool)-\(UUID().uuidString).out")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path(of: tool)))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) \(arguments) exited with \(process.terminationStatus)")
        return try Data(contentsOf: output)
    }

    /// A private D-Bus session bus for the test's lifetime: `tracker3 extract` needs one, and as root without a
    /// session (a server, CI) there is none. Started and stopped here, so that no daemon outlives the test
    /// (`dbus-run-session` stops its daemon with SIGTERM, which a test's child may have blocked).
    final class SessionBus {
        let process = Process()
        let address: String

        init() throws {
            process.executableURL = URL(fileURLWithPath: try #require(TrackerExtractTests.path(of: "dbus-daemon")))
            process.arguments = ["--session", "--nofork", "--print-address=1"]
            process.standardInput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !address.isEmpty else {
                kill(process.processIdentifier, SIGKILL)
                throw QuireError(.fileReadUnknown, "dbus-daemon printed no bus address.")
            }
        }

        deinit {
            // SIGKILL: a child of a test process starts with SIGTERM blocked (Foundation spawns it from a thread
            // that blocks it), so terminate() would leave the daemon running.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs `tracker3 extract --output-format json-ld` on `file` as the SearchIndexing article sets Tracker up, in a
    /// private folder: the shipped shared-mime-info types and Tracker rules named (files of `Resources/freedesktop/`)
    /// installed beside Debian's rules, on a private session bus. Returns the JSON-LD object Tracker printed.
    static func extract(_ file: URL, mimeTypes: [String], rules ruleFiles: [String], in folder: TemporaryFolder) throws -> [String: Any] {
        let rules = folder.file("extract-rules")
        let mime = folder.file("share/mime")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mime.appendingPathComponent("packages"), withIntermediateDirectories: true)
        for rule in try FileManager.default.contentsOfDirectory(atPath: systemRules.path) where rule.hasSuffix(".rule") {
            try FileManager.default.copyItem(at: systemRules.appendingPathComponent(rule), to: rules.appendingPathComponent(rule))
        }
        for rule in ruleFiles {
            try FileManager.default.copyItem(at: freedesktop.appendingPathComponent(rule), to: rules.appendingPathComponent(rule))
        }
        for type in mimeTypes {
            try FileManager.default.copyItem(at: freedesktop.appendingPathComponent(type), to: mime.appendingPathComponent("packages/\(type)"))
        }
        _ = try run("update-mime-database", [mime.path], in: folder)

        // Without a session bus (as root on a server, in CI) tracker3 extract prints nothing and still exits 0.
        let bus = try SessionBus()
        let output = try run(
            "tracker3", ["extract", "--output-format", "json-ld", file.path],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": folder.file("share").path,
                "TRACKER_EXTRACTOR_RULES_DIR": rules.path,
            ], in: folder)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(String(decoding: output, as: UTF8.self))")
    }

    @Test(.enabled(if: trackerIsInstalled, "needs tracker3, dbus-daemon and update-mime-database (apt-get install tracker tracker-extract dbus-daemon shared-mime-info)"))
    func trackerReadsTitleKeywordsAndIndexedValuesOfANotebook() throws {
        let folder = try TemporaryFolder()
        DocumentTypeRegistry.shared.register(.sampleNotebook)
        let document = try PersistentDocument(type: DocumentType.sampleNotebook.name, model: DocumentFixtures.model())
        document.searchMetadata = SearchMetadata(title: "Errands", keywords: ["home", "weekly"], authors: ["Ann Lee"], comment: "Things to do")
        DocumentFixtures.fill(document, titles: ["Buy zucchini", "Call the plumber"])
        let url = folder.file("Errands.quirenb")
        try document.save(to: url, ofType: DocumentType.sampleNotebook.name, for: .saveAs)
        document.close()

        let json = try Self.extract(url, mimeTypes: ["quire-notebook.xml"], rules: ["10-quire-notebook.rule"], in: folder)
        #expect(json["nie:title"] as? String == "Errands")
        let keywords = (json["nie:keyword"] as? [String]) ?? [json["nie:keyword"] as? String].compactMap { $0 }
        #expect(Set(keywords) == ["home", "weekly"])
        #expect(json["nie:comment"] as? String == "Things to do")
        // The values of Note.title (indexed for search) reach Tracker's full-text index through nie:subject.
        let subject = try #require(json["nie:subject"] as? String)
        #expect(subject.components(separatedBy: "\n").sorted() == ["Buy zucchini", "Call the plumber"])
    }
}

extension TrackerExtractTests {
    /// Issue 30: a notebook `quire convert` wrote keeps the title Tracker reads, and `quire metadata --title` sets
    /// the one it reads next.
    @Test(.enabled(if: trackerIsInstalled, "needs tracker3, dbus-daemon and update-mime-database (apt-get install tracker tracker-extract dbus-daemon shared-mime-info)"))
    func trackerReadsTheTitleOfANotebookQuireConverted() throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let folder = try TemporaryFolder()
        DocumentTypeRegistry.shared.register(.sampleNotebook)
        let document = try PersistentDocument(type: DocumentType.sampleNotebook.name, model: DocumentFixtures.model())
        document.searchMetadata = SearchMetadata(title: "Errands", keywords: ["home"])
        DocumentFixtures.fill(document, titles: ["Buy zucchini"])
        try document.save(to: folder.file("Errands.quirenb"), ofType: DocumentType.sampleNotebook.name, for: .saveAs)
        document.close()
        let cli = CLIHarness(folder: folder, executable: executable)
        let converted = try cli.run("convert", "Errands.quirenb", "Copy.quirenb", "--to", "xml")
        #expect(converted.status == 0, "\(converted)")

        let rules = folder.file("extract-rules")
        let mime = folder.file("share/mime")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mime.appendingPathComponent("packages"), withIntermediateDirectories: true)
        for rule in try FileManager.default.contentsOfDirectory(atPath: Self.systemRules.path) where rule.hasSuffix(".rule") {
            try FileManager.default.copyItem(at: Self.systemRules.appendingPathComponent(rule), to: rules.appendingPathComponent(rule))
        }
        try FileManager.default.copyItem(
            at: Self.freedesktop.appendingPathComponent("10-quire-notebook.rule"), to: rules.appendingPathComponent("10-quire-notebook.rule"))
        try FileManager.default.copyItem(
            at: Self.freedesktop.appendingPathComponent("quire-notebook.xml"), to: mime.appendingPathComponent("packages/quire-notebook.xml"))
        _ = try Self.run("update-mime-database", [mime.path], in: folder)
        let bus = try SessionBus()
        func extract() throws -> [String: Any] {
            let output = try Self.run(
                "tracker3", ["extract", "--output-format", "json-ld", folder.file("Copy.quirenb").path],
                environment: [
                    "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": folder.file("share").path,
                    "TRACKER_EXTRACTOR_RULES_DIR": rules.path,
                ], in: folder)
            return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(String(decoding: output, as: UTF8.self))")
        }
        #expect(try extract()["nie:title"] as? String == "Errands")
        #expect(try cli.run("metadata", "Copy.quirenb", "--title", "Chores", "--keyword", "house").status == 0)
        let json = try extract()
        #expect(json["nie:title"] as? String == "Chores")
        let keywords = (json["nie:keyword"] as? [String]) ?? [json["nie:keyword"] as? String].compactMap { $0 }
        #expect(keywords == ["house"])
    }
}
