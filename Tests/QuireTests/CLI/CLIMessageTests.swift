import Foundation
import Quire
import QuireTestSupport
import Testing

/// Issue 30's message classes, one test each: what `quire` says names the user's file and the problem in plain
/// words, with the CLI's own advice; never a private working folder, a staging folder, Foundation's error dumps,
/// the library's advice to programmers or Swift's debug text.
@Suite(.serialized) struct CLIMessageTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// Text no message may hold.
    static let forbidden = [
        "quire-contents-", ".quire-", "NSCocoaErrorDomain", "UserInfo=", "Error Domain=", "migratesAutomatically",
        "read-only option", "archivedObject(", "QuireCore.", "not valid JSON",
    ]

    static func expectClean(_ result: CLIHarness.Result, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in forbidden {
            #expect(!result.stderr.contains(text) && !result.stdout.contains(text), "\(label): \(result)", sourceLocation: sourceLocation)
        }
    }

    // MARK: The private extraction path

    /// A store damaged inside an archive is named as the archive's entry, never as the folder it was extracted to,
    /// by every command that reads it.
    @Test func anArchivesDamagedStoreIsNamedAsItsEntry() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let store = cli.folder.file("Runs.quiredoc/StoreContent/persistentStore")
        var bytes = try Data(contentsOf: store)
        bytes.replaceSubrange(100..<4096, with: Data(repeating: 0xFF, count: 4096 - 100))
        try bytes.write(to: store)
        #expect(try cli.run("pack", "Runs.quiredoc", "doc.zip").status == 0)
        let expected = CLIHarness.Result(status: 3, stdout: "", stderr: """
            quire: The SQLite database '$TMP/doc.zip: entry StoreContent/persistentStore' is corrupt or truncated \
            (prepare 'SELECT Z_PLIST, Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1': database disk image is malformed, code 11).

            """)
        for command in [
            ["info", "doc.zip"], ["dump", "doc.zip"], ["verify", "doc.zip"], ["model", "doc.zip"], ["metadata", "doc.zip"],
            ["diff", "doc.zip", "Runs.quiredoc"], ["convert", "doc.zip", "x.xml"], ["convert", "doc.zip", "x.zip"],
        ] {
            #expect(try cli.run(command) == expected, "\(command)")
        }
    }

    // MARK: Foundation's error text on a folder that takes no new files

    /// Every command that writes beside its output, into a folder that refuses new files (immutable, so that root
    /// is refused too): the output, its folder and the reason, in words.
    @Test(.enabled(if: ImmutableFiles.available, "needs chattr +i on the temporary folder's file system"))
    func aFolderThatTakesNoNewFilesIsSaidInWords() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let locked = cli.folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: cli.folder.file("Runs.zip"), to: locked.appendingPathComponent("Runs.zip"))
        try ImmutableFiles.set(locked, immutable: true)
        do {
            defer { try? ImmutableFiles.set(locked, immutable: false) }
            for (command, output) in [
                (["convert", "Runs.zip", "locked/x.tar"], "locked/x.tar"),
                (["convert", "Runs.zip", "locked/x.sqlite"], "locked/x.sqlite"),
                (["convert", "Runs.zip", "locked/x.quiredoc"], "locked/x.quiredoc"),
                (["pack", "Runs.quiredoc", "locked/x.zip"], "locked/x.zip"),
                (["unpack", "Runs.zip", "locked/x.quiredoc"], "locked/x.quiredoc"),
                (["metadata", "locked/Runs.zip", "--set", "Owner=Ada"], "locked/Runs.zip"),
                (["metadata", "locked/Runs.zip", "--title", "Runs"], "locked/Runs.zip"),
                (["model", "Runs.zip", "--export", "locked/Runs.xcdatamodel"], "locked/Runs.xcdatamodel"),
                (["model", "Runs.zip", "--graph", "locked/Runs.dot"], "locked/Runs.dot"),
            ] {
                #expect(try cli.run(command) == .init(status: 4, stdout: "", stderr: """
                    quire: '$TMP/\(output)' cannot be written: its folder '$TMP/locked' does not take new files (operation not permitted).

                    """), "\(command)")
            }
        }
        #expect(try cli.listing() == ["Runs.quiredoc", "Runs.zip", "locked"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path) == ["Runs.zip"])
    }

    /// A file where the output's folder should be.
    @Test func aFileWhereAFolderShouldBeIsNamed() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        try Data("a file".utf8).write(to: cli.folder.file("notes"))
        for command in [["convert", "Runs.quiredoc", "notes/x.zip"], ["pack", "Runs.quiredoc", "notes/x.zip"]] {
            #expect(try cli.run(command) == .init(status: 4, stdout: "", stderr: """
                quire: '$TMP/notes/x.zip' cannot be written: '$TMP/notes' is a file, not a folder.

                """), "\(command)")
        }
        let result = try cli.run("model", "Runs.quiredoc", "--export", "notes/Runs.xcdatamodel")
        #expect(result == .init(status: 4, stdout: "", stderr: """
            quire: '$TMP/notes/Runs.xcdatamodel' cannot be written: its folder '$TMP/notes' does not take new files (not a directory).

            """), "\(result)")
    }

    /// As a user other than root, a folder without write permission: the reason is given.
    @Test(.enabled(if: getuid() != 0, "root writes into any folder; aFolderThatTakesNoNewFilesIsSaidInWords covers root"))
    func aFolderWithoutWritePermissionIsSaidInWords() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        let locked = cli.folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        #expect(chmod(locked.path, 0o500) == 0)
        defer { chmod(locked.path, 0o700) }
        #expect(try cli.run("convert", "Runs.zip", "locked/x.zip") == .init(status: 4, stdout: "", stderr: """
            quire: '$TMP/locked/x.zip' cannot be written: its folder '$TMP/locked' does not take new files (permission denied).

            """))
    }

    // MARK: Staging folders in output errors

    /// A write that fails while the output is being built (every file limited to 4 KiB, a real `EFBIG`): the
    /// message names the output, not the staging folder it was built in, nor a private working copy; the exit
    /// status is the output's; nothing is left behind.
    @Test func anOutputThatCannotBeFinishedIsNamedNotItsStagingFolder() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        try cli.copySample("Library-sqlite.zip", as: "Library.zip")
        for (command, output) in [
            (["convert", "Library.quiredoc", "big.zip"], "big.zip"), (["convert", "Library.quiredoc", "big.sqlite"], "big.sqlite"),
            (["convert", "Library.quiredoc", "big.quiredoc"], "big.quiredoc"), (["pack", "Library.quiredoc", "big.zip"], "big.zip"),
            (["unpack", "Library.zip", "big.quiredoc"], "big.quiredoc"),
        ] {
            let result = try cli.run(fileSizeLimit: 4, command)
            #expect(result.status == 4, "\(command): \(result)")
            #expect(result.stderr.hasPrefix("quire: ") && result.stderr.contains("'$TMP/\(output)'"), "\(command): \(result)")
            Self.expectClean(result, "\(command)")
            #expect(try cli.listing() == ["Library.quiredoc", "Library.zip"], "\(command)")
        }
    }

    // MARK: The library's advice

    /// A store opened with a model it was not written with: the model, what differs and the CLI's advice
    /// (`--model`), never the coordinator's migration options; the same from every command that reads it.
    @Test func aStoreWrittenWithAnotherModelGetsTheCLIsAdvice() throws {
        let cli = try harness()
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel_V1.sqlite"), to: cli.folder.file("Mac.sqlite"))
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2.xcdatamodeld"), to: cli.folder.file("Other.xcdatamodeld"))
        let expected = CLIHarness.Result(status: 3, stdout: "", stderr: """
            quire: The store '$TMP/Mac.sqlite' was written with another model than the model file '$TMP/Other.xcdatamodeld' \
            (entity Author added; entity Book added; entity Feedback added; entity GraphicNovel added; entity Page added; \
            entity Writer added; entity Car removed; entity ExpensiveSportCar removed; entity Person removed; entity SportCar \
            removed). Pass --model with the application's model of the version that wrote it.

            """)
        for command in [
            ["info", "Mac.sqlite"], ["dump", "Mac.sqlite"], ["verify", "Mac.sqlite"], ["diff", "Mac.sqlite", "Mac.sqlite"],
            ["convert", "Mac.sqlite", "Mac.xml"],
        ] {
            #expect(try cli.run(command + ["--model", "Other.xcdatamodeld"]) == expected, "\(command)")
        }
    }

    /// A store file that cannot be opened for writing: why, and the CLI's advice, never the library's "add it
    /// with the read-only option".
    @Test func aReadOnlyStoreGetsTheCLIsAdvice() throws {
        let cli = try harness()
        #expect(try cli.run("convert", CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc").path, "Runs.sqlite").status == 0)
        #expect(chmod(cli.folder.file("Runs.sqlite").path, 0o444) == 0)
        #expect(try cli.run("metadata", "Runs.sqlite", "--set", "Owner=Ada") == .init(status: 4, stdout: "", stderr: """
            quire: '$TMP/Runs.sqlite' cannot be written (its mode is 0444); make it writable (chmod u+w) or work on a copy.

            """))
    }

    // MARK: Permission errors without the reason

    /// A store that the system refuses to let anyone write (immutable): the reason in words.
    @Test(.enabled(if: ImmutableFiles.available, "needs chattr +i on the temporary folder's file system"))
    func aStoreThatCannotBeWrittenSaysWhy() throws {
        let cli = try harness()
        #expect(try cli.run("convert", CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc").path, "Runs.sqlite").status == 0)
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let store = cli.folder.file("Runs.quiredoc/StoreContent/persistentStore")
        for (document, file) in [("Runs.sqlite", cli.folder.file("Runs.sqlite")), ("Runs.quiredoc", store)] {
            let result = try ImmutableFiles.while(file) { try cli.run("metadata", document, "--set", "Owner=Ada") }
            #expect(result == .init(status: 4, stdout: "", stderr: """
                quire: '\(file.path.replacingOccurrences(of: cli.folder.url.path, with: "$TMP"))' cannot be written \
                (operation not permitted); make it writable (chmod u+w) or work on a copy.

                """), "\(document)")
        }
    }

    // MARK: "not valid JSON" for a model that is not a model

    /// A `--model` (or `quire model` argument) that is no model: said so, with what Quire reads.
    @Test func aModelFileThatIsNotAModelIsSaidSo() throws {
        let cli = try harness()
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel_V1.sqlite"), to: cli.folder.file("Mac.sqlite"))
        try Data("hello".utf8).write(to: cli.folder.file("Notes.txt"))
        try Data(#"{"not": "a model"}"#.utf8).write(to: cli.folder.file("Settings.json"))
        try Data("hello".utf8).write(to: cli.folder.file("App.mom"))
        let reads = "Quire reads Xcode models (.xcdatamodeld, .xcdatamodel), compiled models (.mom, .momd) and the JSON model files it writes."
        #expect(try cli.run("dump", "Mac.sqlite", "--model", "Notes.txt") == .init(status: 3, stdout: "", stderr: """
            quire: '$TMP/Notes.txt' is not a model file: \(reads)

            """))
        #expect(try cli.run("info", "Mac.sqlite", "--model", "Settings.json") == .init(status: 3, stdout: "", stderr: """
            quire: '$TMP/Settings.json' is not a model file: it is JSON, but not a model Quire wrote (it has no 'format').

            """))
        let mom = "quire: '$TMP/App.mom' is not a compiled model: a .mom file is a binary property list, and this file is not one.\n"
        #expect(try cli.run("dump", "Mac.sqlite", "--model", "App.mom") == .init(status: 3, stdout: "", stderr: mom))
        #expect(try cli.run("model", "App.mom") == .init(status: 3, stdout: "", stderr: mom))
    }

    // MARK: Swift debug text in info

    /// What a compiled model holds that Quire does not keep is said in words: an archived default value by its
    /// class, not Swift's `archivedObject(className:fields:)`.
    @Test func infoSaysWhatIsNotKeptInWords() throws {
        let cli = try harness()
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2_V1.sqlite"), to: cli.folder.file("Books.sqlite"))
        let info = try cli.run("info", "Books.sqlite")
        #expect(info.status == 0, "\(info)")
        #expect(info.stdout.contains("""
            Not supported yet:
              Book.cover: its default value (an archived CoreDataPlus_Tests.Cover) is not kept
            Model version hashes:
            """), "\(info)")
        Self.expectClean(info, "info")
        let json = try cli.run("info", "Books.sqlite", "--json")
        #expect(json.stdout.contains(#""Book.cover: its default value (an archived CoreDataPlus_Tests.Cover) is not kept""#), "\(json)")
        Self.expectClean(json, "info --json")
    }
}
