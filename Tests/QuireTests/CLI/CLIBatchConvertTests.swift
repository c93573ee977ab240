import Foundation
import Quire
import QuireTestSupport
import Testing

/// `quire convert` over many inputs, `--dry-run`, `--quiet`, `--verbose`, `--version`, JSON output and errors,
/// and the man page (issue 18).
@Suite(.serialized) struct CLIBatchConvertTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// `In/` with a document, another in a sub-folder and a file that is no document, and `Laps.quiredoc` beside it.
    private func makeInputs(_ cli: CLIHarness) throws {
        try FileManager.default.createDirectory(at: cli.folder.file("In/Sub"), withIntermediateDirectories: true)
        try cli.copySample("Library-sqlite.quiredoc", as: "In/Sub/Library.quiredoc")
        try cli.copySample("Runs-xml.tar", as: "In/Runs.tar")
        try Data("not a document\n".utf8).write(to: cli.folder.file("In/notes.txt"))
        try cli.copySample("Runs-binary.quiredoc", as: "Laps.quiredoc")
    }

    @Test func convertsFoldersAndFilesIntoAFolderWithOneSummaryLine() throws {
        let cli = try harness()
        try makeInputs(cli)
        let result = try cli.run("convert", "--to", "xml", "--archive", "zip", "In", "Laps.quiredoc", "Out")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Converted 3 of 3 files into Out: 26 objects, 3 external data files (6.0 KiB).\n", "\(result)")
        // Standard error is a pipe here: one line per file as it ends ("[2/3] …"), no redrawn bar.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.map { String($0.prefix(6)) } == ["[1/3] ", "[2/3] ", "[3/3] "], "\(result)")
        #expect(Set(lines.map { String($0.dropFirst(6)) }) == [
            "In/Runs.tar -> Out/Runs.zip: done", "In/Sub/Library.quiredoc -> Out/Sub/Library.zip: done",
            "Laps.quiredoc -> Out/Laps.zip: done",
        ], "\(result)")
        #expect(!result.stderr.contains("\u{1B}"), "no terminal codes in a pipe")
        #expect(FileManager.default.fileExists(atPath: cli.folder.file("Out/Sub/Library.zip").path))
        #expect(try cli.run("diff", "In/Sub/Library.quiredoc", "Out/Sub/Library.zip").status == 0)
        let info = try cli.run("info", "Out/Sub/Library.zip")
        #expect(info.stdout.contains("Out/Sub/Library.zip: zip archive"), "\(info)")
        #expect(info.stdout.contains("Store: XML"), "\(info)")
    }

    @Test func twoInputsWithTheSameOutputAreRefusedBeforeAnythingIsWritten() throws {
        let cli = try harness()
        try makeInputs(cli)
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let result = try cli.run("convert", "--archive", "zip", "In", "Runs.quiredoc", "Out")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr == "quire: 'In/Runs.tar' and 'Runs.quiredoc' would both be written to 'Out/Runs.zip'; convert them apart.\n")
        #expect(!FileManager.default.fileExists(atPath: cli.folder.file("Out").path))
    }

    @Test func aFailedFileDoesNotStopTheOthersAndSetsTheExitStatus() throws {
        let cli = try harness()
        try makeInputs(cli)
        try FileManager.default.createDirectory(at: cli.folder.file("Out"), withIntermediateDirectories: false)
        try Data("mine\n".utf8).write(to: cli.folder.file("Out/Runs.tar"))
        let result = try cli.run("convert", "--archive", "tar", "In/Runs.tar", "In/Sub", "Missing.sqlite", "Out/")
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout == "Converted 1 of 3 files into Out/ (2 failed): 16 objects, 3 external data files (6.0 KiB).\n", "\(result)")
        #expect(result.stderr.contains("quire: '$TMP/Out/Runs.tar' already exists; pass --force to replace it.\n"), "\(result)")
        #expect(result.stderr.contains("quire: There is no file at '$TMP/Missing.sqlite'.\n"), "\(result)")
        #expect(try String(contentsOf: cli.folder.file("Out/Runs.tar"), encoding: .utf8) == "mine\n")
        #expect(try cli.run("diff", "In/Sub/Library.quiredoc", "Out/Library.tar").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.folder.file("Out").path).sorted() == ["Library.tar", "Runs.tar"])
    }

    @Test func dryRunSaysWhatWouldBeDoneAndWritesNothing() throws {
        let cli = try harness()
        try makeInputs(cli)
        let before = try cli.listing()
        let result = try cli.run("convert", "-n", "--to", "sqlite", "In", "Out")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Would convert In/Runs.tar (tar archive, XML) to Out/Runs.tar (tar archive, SQLite).\n"), "\(result)")
        #expect(result.stdout.contains("Would convert In/Sub/Library.quiredoc (package, SQLite) to Out/Sub/Library.quiredoc (package, SQLite).\n"))
        #expect(result.stdout.hasSuffix("Would convert 2 of 2 files into Out.\n"), "\(result)")
        #expect(try cli.listing() == before)
        let single = try cli.run("convert", "--dry-run", "Laps.quiredoc", "Laps.zip")
        #expect(single == .init(status: 0, stdout: "Would convert Laps.quiredoc (package, Binary) to Laps.zip (zip archive, Binary).\n", stderr: ""))
        let refused = try cli.run("convert", "--dry-run", "Laps.quiredoc", "In")
        #expect(refused.status == 4, "\(refused)")
        #expect(try cli.listing() == before)
    }

    @Test func quietVerboseAndVersion() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        #expect(try cli.run("convert", "-q", "Runs.quiredoc", "Quiet.zip") == .init(status: 0, stdout: "", stderr: ""))
        let verbose = try cli.run("convert", "--verbose", "Runs.quiredoc", "Loud.tar", "--to", "xml")
        #expect(verbose.status == 0)
        let lines = verbose.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Converted Runs.quiredoc (package, SQLite) to Loud.tar (tar archive, XML): 5 objects, 0 external data files (0 bytes).")
        #expect(lines.dropFirst().map { $0.split(separator: ":").first.map(String.init) ?? "" } == [
            "  verifying the source", "  copying the store", "  assembling the output", "  writing the archive", "  finishing",
            "  total",
        ])
        #expect(try cli.run("convert", "-q", "-v", "Runs.quiredoc", "X.zip").status == 2)
        #expect(try cli.run("--version") == .init(status: 0, stdout: "0.9.0-dev\n", stderr: ""))
    }

    @Test func jsonCommandsReportErrorsAsJSONObjects() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        for arguments in [["info", "Missing.sqlite", "--json"], ["dump", "Missing.sqlite", "--json"], ["metadata", "Missing.sqlite", "--json"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr == "", "\(result)")
            let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["status"] as? Int == 3)
            #expect(error["kind"] as? String == "input")
            #expect((error["message"] as? String)?.contains("Missing.sqlite") == true)
        }
        let usage = try cli.run("convert", "Runs.quiredoc", "Runs.docx", "--json")
        #expect(usage.status == 2)
        let object = try #require(JSONSerialization.jsonObject(with: Data(usage.stdout.utf8)) as? [String: Any])
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "usage")
        let badOption = try cli.run("info", "Runs.quiredoc", "--json", "--frobnicate")
        #expect(badOption.status == 2)
        #expect(badOption.stdout.contains("\"kind\" : \"usage\""), "\(badOption)")
    }

    @Test func dumpJSONHasTypedValues() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.tar", as: "Runs.tar")
        try cli.copySample("Library-sqlite.zip", as: "Library.zip")
        let result = try cli.run("dump", "Runs.tar", "--json")
        #expect(result.status == 0, "\(result)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["formatVersion"] as? Int == 2)
        #expect((object["entities"] as? [String: [String: String]])?["Run"] == ["date": "date", "processID": "integer64"])
        let objects = try #require(object["objects"] as? [[String: Any]])
        let first = try #require(objects.first)
        #expect(first["key"] as? String == "Run#1")
        let attributes = try #require(first["attributes"] as? [String: Any])
        #expect(attributes["processID"] as? Int == -1)
        #expect(attributes["date"] as? String == "2025-11-28T05:20:00Z")
        #expect(result.stdout.contains("\"processID\" : -1"))
        // Binary data (external here) as base64 of its bytes.
        let library = try cli.run("dump", "Library.zip", "--json")
        let items = try #require(
            (JSONSerialization.jsonObject(with: Data(library.stdout.utf8)) as? [String: Any])?["objects"] as? [[String: Any]])
        let photos = items.compactMap { ($0["attributes"] as? [String: Any])?["photo"] as? String }
        let nils = items.filter { ($0["attributes"] as? [String: Any])?["photo"] is NSNull }
        #expect(photos.count == 3)
        #expect(nils.count == 1)
        #expect(photos.allSatisfy { Data(base64Encoded: $0)?.count == 2048 }, "\(photos.map(\.count))")
    }

    @Test func theManPageNamesEveryCommandAndOption() throws {
        let cli = try harness()
        let page = try cli.run("--generate-manual")
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.stdout.hasPrefix(".\\\" Generated by `quire --generate-manual`"))
        #expect(page.stdout.contains(".TH QUIRE 1 "))
        let dump = try cli.run("--experimental-dump-help")
        let root = try #require(
            (JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])?["command"] as? [String: Any])
        let commands = try #require(root["subcommands"] as? [[String: Any]]).filter { ($0["commandName"] as? String) != "help" }
        #expect(commands.count == 11)
        for command in commands {
            let name = try #require(command["commandName"] as? String)
            #expect(page.stdout.contains(".SS \"quire \(name)\""), "\(name)")
            let section = page.stdout.components(separatedBy: ".SS \"quire \(name)\"").last?.components(separatedBy: ".SS ").first ?? ""
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool != false {
                for option in argument["names"] as? [[String: Any]] ?? [] {
                    let optionName = try #require(option["name"] as? String)
                    let dashes = option["kind"] as? String == "short" ? "\\-" : "\\-\\-"
                    let written = dashes + optionName.replacingOccurrences(of: "-", with: "\\-")
                    #expect(section.contains("\\fB" + written + "\\fR"), "quire \(name) \(optionName)")
                }
            }
        }
        // man renders it without warnings.
        let file = cli.folder.file("quire.1")
        try Data(page.stdout.utf8).write(to: file)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let man = Process()
            man.executableURL = URL(fileURLWithPath: "/usr/bin/man")
            man.arguments = ["--warnings", "-l", file.path]
            man.environment = ["MANPAGER": "cat", "MANWIDTH": "100", "PATH": "/usr/bin:/bin"]
            let out = Pipe()
            let err = Pipe()
            man.standardOutput = out
            man.standardError = err
            try man.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let warnings = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            man.waitUntilExit()
            #expect(text.contains("   quire convert\n"), "\(text.prefix(2000))")
            #expect(text.contains("--to type"), "\(text.prefix(2000))")
            #expect(warnings.isEmpty, "\(warnings)")
        }
    }
}
