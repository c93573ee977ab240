import Foundation
import Quire
import QuireTestSupport
import Testing

/// Golden output of every `quire` command and every error path, run as a child process.
@Suite(.serialized) struct CLIGoldenTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    @Test func infoPrintsKindStoreModelEntitiesAndLayout() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let result = try cli.run("info", "Runs.quiredoc")
        #expect(result == .init(status: 0, stdout: """
            Runs.quiredoc: package (application/x-quire-sample)
            Store: SQLite, UUID <UUID>
            Model: the model embedded by Quire
            Model version hashes:
              Run  bUDBLn7GVAK9HPTpNV6HK+1m76/O/ezANTP7HZnu6CQ=
            Entities:
              Run  5 objects
            External data: 0 files, 0 bytes
            Layout:
              Metadata/
              Metadata/meta.xml
              Metadata/summary.txt
              StoreContent/
              StoreContent/persistentStore
              mimetype

            """, stderr: ""))
        let json = try cli.run("info", "Runs.quiredoc", "--json")
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"entities\" : {\n    \"Run\" : 5\n  }"))
        #expect(json.stdout.contains("\"container\" : \"package\""))
        #expect(json.stdout.contains("\"model\" : \"the model embedded by Quire\""))
    }

    @Test func infoCountsExternalData() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.zip", as: "Library.zip")
        let result = try cli.run("info", "Library.zip")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Library.zip: zip archive (application/x-quire-sample)\nStore: SQLite"))
        #expect(result.stdout.contains("  Item         4 objects\n"))
        #expect(result.stdout.contains("External data: 3 files, 6.0 KiB\n"))
    }

    @Test func dumpIsCanonical() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.tar", as: "Runs.tar")
        let result = try cli.run("dump", "Runs.tar")
        #expect(result == .init(status: 0, stdout: """
            Run#1
              date = date(786000000.0)
              processID = -1
            Run#2
              date = date(786003600.0)
              processID = 1001
            Run#3
              date = date(786007200.0)
              processID = 1002
            Run#4
              date = date(786010800.0)
              processID = 1003
            Run#5
              date = date(786014400.0)
              processID = 1004

            """, stderr: ""))
        let json = try cli.run("dump", "Runs.tar", "--json")
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"key\" : \"Run#5\""))
    }

    @Test func diffReportsEqualityAndDifferences() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "A.quiredoc")
        try cli.copySample("Runs-sqlite.zip", as: "B.zip")
        #expect(try cli.run("diff", "A.quiredoc", "B.zip") == .init(
            status: 0, stdout: "A.quiredoc and B.zip hold the same object graph.\n", stderr: ""))

        // Change one run in a store file copy.
        #expect(try cli.run("convert", "A.quiredoc", "C.sqlite").status == 0)
        let url = cli.folder.file("C.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel.embedded(inStoreAt: url, type: .sqlite))
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Run")
            request.predicate = try QueryPredicate(format: "processID == 1004")
            try context.fetch(request).first?.setValue(Int64(9), forKey: "processID")
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try cli.run("diff", "A.quiredoc", "C.sqlite") == .init(status: 1, stdout: """
            A.quiredoc and C.sqlite differ ("-" only in A.quiredoc, "+" only in C.sqlite, "old -> new"):
              Run#96ac5316.processID: 1004 -> 9

            """, stderr: ""))
    }

    @Test func metadataReadsSetsAndRemovesKeys() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        let set = try cli.run("metadata", "Runs.zip", "--set", "Owner=Ada Lovelace", "--set", "Draft=yes")
        #expect(set == .init(status: 0, stdout: """
            Draft = yes
            NSPersistenceFrameworkVersion = 1
            NSStoreModelVersionHashes = {Run: <32 bytes> bUDBLn7GVAK9HPTpNV6HK+1m76/O/ezANTP7HZnu6CQ=}
            NSStoreModelVersionHashesVersion = 3
            NSStoreModelVersionIdentifiers = []
            NSStoreType = SQLite
            NSStoreUUID = <UUID>
            Owner = Ada Lovelace
            SampleDocument = Runs

            """, stderr: ""))
        let removed = try cli.run("metadata", "Runs.zip", "--remove", "Draft", "--json")
        #expect(removed.status == 0)
        #expect(removed.stdout.contains("\"Owner\" : \"Ada Lovelace\""))
        #expect(!removed.stdout.contains("Draft"))
        #expect(try cli.run("diff", "Runs.zip", CLIHarness.samples.appendingPathComponent("Runs-sqlite.zip").path).status == 0)
        #expect(try cli.listing() == ["Runs.zip"])
    }

    @Test func verifyPassesSoundDocumentsAndNamesProblems() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        #expect(try cli.run("verify", "Library.quiredoc") == .init(
            status: 0, stdout: "Library.quiredoc: OK (package, SQLite store)\n", stderr: ""))
        let blobs = cli.folder.file("Library.quiredoc/" + DocumentPackageLayout.externalDataPath)
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).sorted().first)
        try FileManager.default.removeItem(at: blobs.appendingPathComponent(first))
        let result = try cli.run("verify", "Library.quiredoc")
        #expect(result.status == 3)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("quire: Library.quiredoc: Item "))
        #expect(result.stderr.hasSuffix(".photo: the external data file <UUID> is missing.\n"))
    }

    @Test func convertWritesEveryContainerAndJSON() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        #expect(try cli.run("convert", "Library.quiredoc", "Library.tar") == .init(status: 0, stdout: """
            Converted Library.quiredoc (package, SQLite) to Library.tar (tar archive, SQLite): 16 objects, 3 external data files (6.0 KiB).

            """, stderr: ""))
        #expect(try cli.run("convert", "Library.tar", "Library.sqlite") == .init(status: 0, stdout: """
            Converted Library.tar (tar archive, SQLite) to Library.sqlite (store file, SQLite): 16 objects, 3 external data files (6.0 KiB).

            """, stderr: ""))
        let json = try cli.run("convert", "Library.sqlite", "Copy", "--archive", "zip", "--json")
        #expect(json == .init(status: 0, stdout: """
            {
              "externalDataBytes" : 6144,
              "externalDataFiles" : 3,
              "input" : {
                "container" : "store file",
                "path" : "Library.sqlite",
                "storeType" : "SQLite"
              },
              "objects" : 16,
              "output" : {
                "container" : "zip archive",
                "path" : "Copy",
                "storeType" : "SQLite"
              }
            }

            """, stderr: ""))
        #expect(try cli.listing() == [".Library_SUPPORT", "Copy", "Library.quiredoc", "Library.sqlite", "Library.tar"])
        #expect(try cli.run("diff", "Library.quiredoc", "Copy").status == 0)
        #expect(try cli.run("verify", "Library.sqlite").status == 0)
        #expect(try cli.run("convert", "Library.sqlite", "Library.tar", "--force").status == 0)
    }

    @Test func packAndUnpack() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        #expect(try cli.run("pack", "Library.quiredoc", "Library.tar") == .init(
            status: 0, stdout: "Packed Library.quiredoc into Library.tar (tar).\n", stderr: ""))
        #expect(try cli.run("unpack", "Library.tar", "Again.quiredoc") == .init(
            status: 0, stdout: "Unpacked Library.tar (tar archive) into Again.quiredoc.\n", stderr: ""))
        #expect(try cli.run("pack", "Again.quiredoc", "Again.zip") == .init(
            status: 0, stdout: "Packed Again.quiredoc into Again.zip (zip).\n", stderr: ""))
        #expect(try cli.run("diff", "Library.quiredoc", "Again.zip").status == 0)
        let first = try FileManager.default.contentsOfDirectory(atPath: cli.folder.file("Library.quiredoc").path).sorted()
        let again = try FileManager.default.contentsOfDirectory(atPath: cli.folder.file("Again.quiredoc").path).sorted()
        #expect(first == again)
    }

    @Test func helpOfTheNewCommandsAndOptions() throws {
        let cli = try harness()
        let model = try cli.run("model", "--help")
        #expect(model.status == 0)
        #expect(model.stdout.hasPrefix("OVERVIEW: Show the model of a document, store or model file"), "\(model)")
        for text in ["--graph <file>", "--export <path>", "quire model Library.quiredoc --graph Library.png", "--json"] {
            #expect(model.stdout.contains(text), "\(text): \(model)")
        }
        let diff = try cli.run("diff", "--help")
        for text in ["--stat", "--brief", "--json", "--max-lines <max-lines>", "quire diff --stat Before.quiredoc After.zip"] {
            #expect(diff.stdout.contains(text), "\(text): \(diff)")
        }
        let dump = try cli.run("dump", "--help")
        for text in ["--entity <entity>", "--where <predicate>", "--limit <limit>", "--entity Car --where \"maker == 'FIAT'\""] {
            #expect(dump.stdout.contains(text), "\(text): \(dump)")
        }
        let metadata = try cli.run("metadata", "--help")
        for text in ["--title <title>", "--keyword <keyword>"] { #expect(metadata.stdout.contains(text), "\(text): \(metadata)") }
        let top = try cli.run("help")
        #expect(top.stdout.contains("  model "), "\(top)")
        #expect(try cli.run("convert", "--help").stdout.contains("Examples:"))
    }

    // MARK: Errors

    @Test func usageErrorsExitTwo() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let cases: [([String], String)] = [
            (["convert", "Runs.quiredoc"],
             "quire: convert needs an input and an output (INPUT OUTPUT or SOURCE... OUTDIR). (see 'quire help')\n"),
            (["convert", "Runs.quiredoc", "X", "--package", "--archive", "zip"],
             "quire: --package and --archive cannot be used together. (see 'quire help')\n"),
            (["convert", "Runs.quiredoc", "X.db", "--type", "csv"],
             "quire: The value 'csv' is invalid for '--type <type>'. Please provide one of 'sqlite', 'xml' or 'binary'. (see 'quire help')\n"),
            (["metadata", "Runs.quiredoc", "--set", "Owner"], "quire: --set takes KEY=VALUE, not 'Owner'. (see 'quire help')\n"),
            (["metadata", "Runs.quiredoc", "--remove", "NSStoreUUID"],
             "quire: The key 'NSStoreUUID' belongs to the store and cannot be changed. (see 'quire help')\n"),
            (["frobnicate"],
             "quire: 'frobnicate' is not a quire command. Commands: convert, info, metadata, dump, diff, model, verify, pack, "
                + "unpack, samples, demo (see 'quire help').\n"),
            (["conver", "Runs.quiredoc", "Runs.zip"],
             "quire: 'conver' is not a quire command. Did you mean 'convert'? Commands: convert, info, metadata, dump, "
                + "diff, model, verify, pack, unpack, samples, demo (see 'quire help').\n"),
            (["convert", "Runs.quiredoc", "Runs.docx"],
             "quire: Cannot tell what to write to 'Runs.docx': the extension '.docx' is unknown; known: store files "
                + ".sqlite, .sqlite3, .db (SQLite), .binary, .bin, .quire (Binary), .xml (XML); archives .zip, .tar; "
                + "packages .quiredoc; zip documents .quirenb. Or pass --package or --archive zip|tar.\n"),
            (["convert", "Runs.quiredoc", "Runs.tar.gz"],
             "quire: Cannot tell what to write to 'Runs.tar.gz': compressed archives are not supported; known: store "
                + "files .sqlite, .sqlite3, .db (SQLite), .binary, .bin, .quire (Binary), .xml (XML); archives .zip, "
                + ".tar; packages .quiredoc; zip documents .quirenb. Or pass --package or --archive zip|tar.\n"),
            (["convert", "Runs.quiredoc", "Runs.zip", "--package"],
             "quire: 'Runs.zip' is named like a zip archive, but --package writes a folder: name it 'Runs.quiredoc' "
                + "or drop --package.\n"),
            (["convert", "Runs.quiredoc", "Runs.sqlite", "--archive", "tar"],
             "quire: 'Runs.sqlite' is named like a store file, but --archive tar writes a tar archive: name it "
                + "'Runs.tar' or drop --archive.\n"),
            (["convert", "Runs.quiredoc", "Runs.quiredoc"], "quire: '$TMP/Runs.quiredoc' is the input; convert to a new location.\n"),
        ]
        for (arguments, stderr) in cases {
            #expect(try cli.run(arguments) == .init(status: 2, stdout: "", stderr: stderr), "\(arguments)")
        }
        #expect(try cli.listing() == ["Runs.quiredoc"])
    }

    @Test func unreadableInputsExitThree() throws {
        let cli = try harness()
        try Data("not a document\n".utf8).write(to: cli.folder.file("notes.txt"))
        try FileManager.default.createDirectory(at: cli.folder.file("Empty.quiredoc"), withIntermediateDirectories: false)
        try Data("application/x-quire-sample\n".utf8).write(to: cli.folder.file("Empty.quiredoc/mimetype"))
        let cases: [([String], String)] = [
            (["info", "missing.quiredoc"], "quire: There is no file at '$TMP/missing.quiredoc'.\n"),
            (["dump", "notes.txt"], "quire: The file '$TMP/notes.txt' is neither a store (SQLite, XML, binary) nor a document archive.\n"),
            (["diff", "notes.txt", "missing"], "quire: The file '$TMP/notes.txt' is neither a store (SQLite, XML, binary) nor a document archive.\n"),
            (["verify", "Empty.quiredoc"], "quire: The document '$TMP/Empty.quiredoc' has no store at StoreContent/persistentStore.\n"),
            (["metadata", "Empty.quiredoc"], "quire: The document '$TMP/Empty.quiredoc' has no store at StoreContent/persistentStore.\n"),
            (["convert", "notes.txt", "out.zip"], "quire: The file '$TMP/notes.txt' is neither a store (SQLite, XML, binary) nor a document archive.\n"),
            (["pack", "notes.txt", "out.zip"], "quire: The file '$TMP/notes.txt' is neither a store (SQLite, XML, binary) nor a document archive.\n"),
            (["unpack", "Empty.quiredoc", "out.quiredoc"], "quire: '$TMP/Empty.quiredoc' is a package, not a document archive.\n"),
        ]
        for (arguments, stderr) in cases {
            #expect(try cli.run(arguments) == .init(status: 3, stdout: "", stderr: stderr), "\(arguments)")
        }
        #expect(try cli.listing() == ["Empty.quiredoc", "notes.txt"])
    }

    @Test func failedConversionsLeaveNothingBehind() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        // A missing external data file makes the copy fail halfway.
        let blobs = cli.folder.file("Library.quiredoc/" + DocumentPackageLayout.externalDataPath)
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).sorted().first)
        try FileManager.default.removeItem(at: blobs.appendingPathComponent(first))
        for output in ["Out.zip", "Out.quiredoc", "Out.sqlite"] {
            let result = try cli.run("convert", "Library.quiredoc", output)
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.hasPrefix("quire: "))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(try cli.listing() == ["Library.quiredoc"])
    }

    @Test func unwritableOutputsExitFour() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        let cases: [([String], String)] = [
            (["convert", "Runs.quiredoc", "Runs.zip"], "quire: '$TMP/Runs.zip' already exists; pass --force to replace it.\n"),
            (["convert", "Runs.quiredoc", "no/such/folder/Runs.xml"], "quire: The folder of '$TMP/no/such/folder/Runs.xml' does not exist.\n"),
            (["pack", "Runs.quiredoc", "Runs.zip"], "quire: '$TMP/Runs.zip' already exists; pass --force to replace it.\n"),
            (["unpack", "Runs.zip", "Runs.quiredoc"], "quire: '$TMP/Runs.quiredoc' already exists; pass --force to replace it.\n"),
        ]
        for (arguments, stderr) in cases {
            #expect(try cli.run(arguments) == .init(status: 4, stdout: "", stderr: stderr), "\(arguments)")
        }
        #expect(try cli.listing() == ["Runs.quiredoc", "Runs.zip"])
    }
}
