import Foundation
import Quire
import QuireTestSupport
import Testing

/// Issue 30: conversions keep what the user had, diff says what changed, the model is shown, streams, messages.
@Suite(.serialized) struct CLIRound2Tests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber).intValue
    }

    /// A copy of the sample library package with a title, keywords, a description, a Thumbnails folder, extended
    /// attributes and mode 0750.
    static func decoratedPackage(_ cli: CLIHarness, name: String = "L.quiredoc") throws -> URL {
        try cli.copySample("Library-sqlite.quiredoc", as: name)
        let url = cli.folder.file(name)
        let meta = url.appendingPathComponent("Metadata/meta.xml")
        var xml = try String(contentsOf: meta, encoding: .utf8)
        xml = xml.replacingOccurrences(
            of: "<meta:generator>Quire</meta:generator>",
            with: "<meta:generator>Quire</meta:generator>\n  <dc:title>My Books</dc:title>\n  <dc:description>Reading list</dc:description>\n  <meta:keyword>books</meta:keyword>\n  <meta:keyword>2025</meta:keyword>")
        try Data(xml.utf8).write(to: meta)
        try FileManager.default.createDirectory(at: url.appendingPathComponent("Thumbnails"), withIntermediateDirectories: false)
        try Data("not really a png".utf8).write(to: url.appendingPathComponent("Thumbnails/page1.png"))
        try ExtendedAttributes.set("user.xdg.tags", to: Data("books,2025".utf8), on: url)
        try ExtendedAttributes.set("user.xdg.comment", to: Data("My Books\nReading list".utf8), on: url)
        #expect(chmod(url.path, 0o750) == 0)
        return url
    }

    // MARK: Data safety

    @Test func convertKeepsSearchMetadataPackageFilesExtendedAttributesAndMode() throws {
        let cli = try harness()
        _ = try Self.decoratedPackage(cli)
        let zip = try cli.run("convert", "L.quiredoc", "L.zip", "--to", "xml")
        #expect(zip.status == 0, "\(zip)")
        #expect(!zip.stdout.contains("not kept"), "\(zip)")
        let zipURL = cli.folder.file("L.zip")
        let search = try SearchMetadata(contentsOf: zipURL)
        #expect(search.title == "My Books")
        #expect(search.keywords == ["books", "2025"])
        #expect(search.comment == "Reading list")
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: zipURL) == Data("books,2025".utf8))
        #expect(try ExtendedAttributes.value("user.xdg.comment", of: zipURL) == Data("My Books\nReading list".utf8))
        // A folder's 0750 is a file's 0640.
        #expect(try Self.mode(zipURL) == 0o640)
        // And back into a package: the thumbnail is there, byte for byte.
        #expect(try cli.run("convert", "L.zip", "Back.quiredoc").status == 0)
        let back = cli.folder.file("Back.quiredoc")
        #expect(try Data(contentsOf: back.appendingPathComponent("Thumbnails/page1.png")) == Data("not really a png".utf8))
        #expect(try SearchMetadata(contentsOf: back).title == "My Books")
        #expect(try Self.mode(back) & 0o777 == 0o750)
        #expect(try cli.run("diff", "L.quiredoc", "Back.quiredoc").status == 0)
    }

    @Test func aStoreFileOutputSaysWhatItCouldNotKeep() throws {
        let cli = try harness()
        _ = try Self.decoratedPackage(cli)
        let result = try cli.run("convert", "L.quiredoc", "L.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("  not kept: search metadata (title, keywords, description): a store file has none\n"), "\(result)")
        #expect(result.stdout.contains("  not kept: package files Thumbnails/page1.png: a store file holds no other files\n"), "\(result)")
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: cli.folder.file("L.sqlite")) == Data("books,2025".utf8))
        let json = try cli.run("convert", "L.quiredoc", "J.sqlite", "--json")
        #expect(json.stdout.contains("\"notKept\" : ["), "\(json)")
    }

    @Test func aStoreFileKeepsItsMode() throws {
        let cli = try harness()
        #expect(try cli.run("convert", CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc").path, "Runs.sqlite").status == 0)
        #expect(chmod(cli.folder.file("Runs.sqlite").path, 0o600) == 0)
        for output in ["Runs.xml", "Runs.zip", "Runs.tar"] {
            #expect(try cli.run("convert", "Runs.sqlite", output).status == 0)
            #expect(try Self.mode(cli.folder.file(output)) == 0o600, "\(output)")
        }
    }

    @Test(arguments: ["zip", "tar"]) func metadataSetKeepsModeExtendedAttributesAndHardLinks(format: String) throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.\(format)", as: "Runs.\(format)")
        let url = cli.folder.file("Runs.\(format)")
        #expect(chmod(url.path, 0o640) == 0)
        try ExtendedAttributes.set("user.xdg.tags", to: Data("runs".utf8), on: url)
        let result = try cli.run("metadata", "Runs.\(format)", "--set", "Owner=Ada")
        #expect(result.status == 0, "\(result)")
        #expect(try Self.mode(url) == 0o640)
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: url) == Data("runs".utf8))
        // A second name for the same file sees the change.
        #expect(link(url.path, cli.folder.file("Alias.\(format)").path) == 0)
        #expect(try cli.run("metadata", "Runs.\(format)", "--set", "Owner=Grace").status == 0)
        let alias = try cli.run("metadata", "Alias.\(format)")
        #expect(alias.stdout.contains("Owner = Grace\n"), "\(alias)")
        var info = stat()
        #expect(stat(url.path, &info) == 0 && info.st_nlink == 2)
    }

    @Test func metadataSetsTitleAndKeywords() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        let result = try cli.run("metadata", "Runs.zip", "--title", "Morning runs", "--keyword", "sport", "--keyword", "2025")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("search title = Morning runs\nsearch keywords = sport, 2025\n"), "\(result)")
        let url = cli.folder.file("Runs.zip")
        let search = try SearchMetadata(contentsOf: url)
        #expect(search.title == "Morning runs")
        #expect(search.keywords == ["sport", "2025"])
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: url) == Data("sport,2025".utf8))
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        #expect(try cli.run("metadata", "Runs.quiredoc", "--title", "Runs").status == 0)
        #expect(try SearchMetadata(contentsOf: cli.folder.file("Runs.quiredoc")).title == "Runs")
        #expect(try cli.run("convert", "Runs.quiredoc", "Runs.sqlite").status == 0)
        let refused = try cli.run("metadata", "Runs.sqlite", "--title", "X")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("store file, which has no search metadata"), "\(refused)")
    }

    // MARK: Diff

    /// Renames one author and deletes one employee in a copy of the sample library (the same store).
    static func editedCopy(_ cli: CLIHarness) throws {
        try cli.copySample("Library-sqlite.quiredoc", as: "A.quiredoc")
        try cli.copySample("Library-sqlite.quiredoc", as: "B.quiredoc")
        let url = cli.folder.file("B.quiredoc/StoreContent/persistentStore")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel.embedded(inStoreAt: url, type: .sqlite))
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let authors = FetchRequest<ManagedObject>(entityName: "Author")
            authors.predicate = try QueryPredicate(format: "name == 'Ada Lovelace'")
            try context.fetch(authors).first?.setValue("Ada King", forKey: "name")
            let employees = FetchRequest<ManagedObject>(entityName: "Employee")
            employees.predicate = try QueryPredicate(format: "name == 'Barbara'")
            for employee in try context.fetch(employees) { context.delete(employee) }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    @Test func diffNamesObjectsByIdentityOneLinePerChange() throws {
        let cli = try harness()
        try Self.editedCopy(cli)
        let result = try cli.run("diff", "A.quiredoc", "B.quiredoc")
        #expect(result == .init(status: 1, stdout: """
            A.quiredoc and B.quiredoc differ ("-" only in A.quiredoc, "+" only in B.quiredoc, "old -> new"):
              Author[name="Ada Lovelace"].name: "Ada Lovelace" -> "Ada King"
              Department[name="Engineering"].employees: [Employee[name="Alan"], Employee[name="Barbara"]] -> [Employee[name="Alan"]]
              - Employee[name="Barbara"]

            """, stderr: ""))
        #expect(try cli.run("diff", "--stat", "A.quiredoc", "B.quiredoc") == .init(status: 1, stdout: """
            A.quiredoc and B.quiredoc differ:
              Author      1 changed, 0 added, 0 removed
              Department  1 changed, 0 added, 0 removed
              Employee    0 changed, 0 added, 1 removed

            """, stderr: ""))
        #expect(try cli.run("diff", "--brief", "A.quiredoc", "B.quiredoc") == .init(
            status: 1, stdout: "A.quiredoc and B.quiredoc differ.\n", stderr: ""))
        let limited = try cli.run("diff", "--max-lines", "1", "A.quiredoc", "B.quiredoc")
        #expect(limited.stdout.hasSuffix("  … 2 more (--max-lines 0 prints all, --stat counts them)\n"), "\(limited)")
        let json = try cli.run("diff", "--json", "A.quiredoc", "B.quiredoc")
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        #expect(changes.count == 3)
        #expect(changes.first?["second"] as? String == "\"Ada King\"")
        #expect(try cli.run("diff", "--stat", "--brief", "A.quiredoc", "B.quiredoc").status == 2)
    }

    @Test func diffAcrossStoresMatchesByKeyAttribute() throws {
        let cli = try harness()
        try Self.editedCopy(cli)
        // An XML copy has another store UUID: objects are matched by their names, not positions, and the renamed
        // author by its publications.
        #expect(try cli.run("convert", "B.quiredoc", "B.xml").status == 0)
        let result = try cli.run("diff", "A.quiredoc", "B.xml")
        #expect(result == .init(status: 1, stdout: """
            A.quiredoc and B.xml differ ("-" only in A.quiredoc, "+" only in B.xml, "old -> new"):
              Author[name="Ada Lovelace"].name: "Ada Lovelace" -> "Ada King"
              Department[name="Engineering"].employees: [Employee[name="Alan"], Employee[name="Barbara"]] -> [Employee[name="Alan"]]
              - Employee[name="Barbara"]

            """, stderr: ""))
    }

    /// Opens a store with the model it embeds or caches, runs `body` in a context and saves.
    static func edit(_ url: URL, _ body: (ManagedObjectContext) throws -> Void) throws {
        let model = try ManagedObjectModel.forStore(at: url, type: .sqlite).model
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try body(context)
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    static func objects(_ context: ManagedObjectContext, _ entity: String, _ format: String) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = try QueryPredicate(format: format)
        return try context.fetch(request)
    }

    /// The issue's first example, as it reads: renaming one author in a converted copy of the sample library is
    /// one changed value (the copy has its own store UUID; before, ten lines named objects by their position).
    @Test func renamingOneAuthorInAConvertedCopyIsOneChangedValue() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "Library.quiredoc")
        #expect(try cli.run("convert", "Library.quiredoc", "Copy.quiredoc").status == 0)
        try Self.edit(cli.folder.file("Copy.quiredoc/StoreContent/persistentStore")) { context in
            try Self.objects(context, "Author", "name == 'Ada Lovelace'").first?.setValue("Ada King", forKey: "name")
        }
        #expect(try cli.run("diff", "Library.quiredoc", "Copy.quiredoc") == .init(status: 1, stdout: """
            Library.quiredoc and Copy.quiredoc differ ("-" only in Library.quiredoc, "+" only in Copy.quiredoc, "old -> new"):
              Author[name="Ada Lovelace"].name: "Ada Lovelace" -> "Ada King"

            """, stderr: ""))
        #expect(try cli.run("diff", "--stat", "Library.quiredoc", "Copy.quiredoc") == .init(status: 1, stdout: """
            Library.quiredoc and Copy.quiredoc differ:
              Author  1 changed, 0 added, 0 removed

            """, stderr: ""))
    }

    /// The issue's second example: one edit and one delete in a store Core Data wrote on the Mac (before, 166
    /// lines). Cars are named by their uniqueness constraint, people by theirs; the edit is one line, the delete
    /// one line and the owner who lost a car one line. The same three lines across stores (a converted copy
    /// edited the same way).
    @Test(arguments: [false, true]) func oneEditAndOneDeleteInAMacStoreAreThreeLines(acrossStores: Bool) throws {
        let cli = try harness()
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel_V1.sqlite"), to: cli.folder.file("Mac.sqlite"))
        #expect(chmod(cli.folder.file("Mac.sqlite").path, 0o644) == 0)
        let edited: String
        if acrossStores {
            edited = "Copy.quiredoc"
            #expect(try cli.run("convert", "Mac.sqlite", "Copy.quiredoc", "--package").status == 0)
            try Self.edit(cli.folder.file("Copy.quiredoc/StoreContent/persistentStore"), Self.editCars)
        } else {
            edited = "Edited.sqlite"
            try FileManager.default.copyItem(at: cli.folder.file("Mac.sqlite"), to: cli.folder.file("Edited.sqlite"))
            try Self.edit(cli.folder.file("Edited.sqlite"), Self.editCars)
        }
        let result = try cli.run("diff", "Mac.sqlite", edited)
        #expect(result == .init(status: 1, stdout: """
            Mac.sqlite and \(edited) differ ("-" only in Mac.sqlite, "+" only in \(edited), "old -> new"):
              - Car[numberPlate="4"]
              Car[numberPlate="5"].model: "Giulia" -> "Giulia Quadrifoglio"
              Person[firstName="Darin", lastName="Meadow"].cars: [Car[numberPlate="4"]] -> []

            """, stderr: ""), "\(result)")
    }

    /// One edit (the Giulia's model) and one delete (the Giulietta) in the CoreDataPlus sample store.
    static func editCars(_ context: ManagedObjectContext) throws {
        try objects(context, "Car", "numberPlate == '5'").first?.setValue("Giulia Quadrifoglio", forKey: "model")
        for car in try objects(context, "Car", "numberPlate == '4'") { context.delete(car) }
    }

    // MARK: Model, dump

    @Test func modelPrintsEntitiesAttributesAndRelationships() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.zip", as: "L.zip")
        let text = try cli.run("model", "L.zip")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("Model: L.zip: the model embedded by Quire\nEntities: 5\n"), "\(text)")
        #expect(text.stdout.contains("""
            Employee
              name        String, required
              salary      Integer 64, optional, default 0
              department  -> to-one Department, inverse employees, delete nullify
            """), "\(text)")
        let json = try cli.run("model", "L.zip", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["entities"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Author", "Department", "Employee", "Item", "Publication"])
        let dot = try cli.run("model", "L.zip", "--graph")
        #expect(dot.stdout.hasPrefix("digraph model {"), "\(dot)")
        #expect(dot.stdout.contains("\"Department\" -> \"Employee\" [dir=both, arrowhead=crow, arrowtail=tee, headlabel=\"employees\", taillabel=\"department\"];"), "\(dot)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dot"), "needs Graphviz (apt-get install graphviz)"))
    func modelGraphRendersAPNG() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "L.quiredoc")
        let result = try cli.run("model", "L.quiredoc", "--graph", "Model.png")
        #expect(result == .init(status: 0, stdout: "Wrote the model graph of L.quiredoc to Model.png.\n", stderr: ""))
        let png = try Data(contentsOf: cli.folder.file("Model.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(try cli.run("model", "L.quiredoc", "--graph", "Model.svg").status == 0)
        #expect(try String(contentsOf: cli.folder.file("Model.svg"), encoding: .utf8).contains("<svg"))
    }

    @Test func modelExportReadsBackAsTheSameModel() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "L.quiredoc")
        let result = try cli.run("model", "L.quiredoc", "--export", "Library.xcdatamodel")
        #expect(result.status == 0, "\(result)")
        let original = try ManagedObjectModel.embedded(
            inStoreAt: cli.folder.file("L.quiredoc/StoreContent/persistentStore"), type: .sqlite)
        let exported = try ManagedObjectModel(contentsOf: cli.folder.file("Library.xcdatamodel"))
        #expect(exported.entityVersionHashesByName == original.entityVersionHashesByName)
        // The exported model opens the store.
        #expect(try cli.run("dump", "L.quiredoc").stdout == cli.run("dump", "L.quiredoc", "--model", "Library.xcdatamodel").stdout)
        #expect(try cli.run("model", "L.quiredoc", "--export", "Library.xcdatamodel").status == 4)
        #expect(try cli.run("model", "L.quiredoc", "--export", "Library.txt").status == 2)
    }

    @Test func dumpFiltersByEntityAndPredicate() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "L.quiredoc")
        let result = try cli.run("dump", "L.quiredoc", "--entity", "Employee", "--where", "name BEGINSWITH 'B'")
        #expect(result == .init(status: 0, stdout: """
            Employee#2
              name = "Barbara"
              salary = 125000
              department -> [Department#1]

            """, stderr: ""))
        let limited = try cli.run("dump", "L.quiredoc", "--entity", "Author", "--limit", "1")
        #expect(limited.stdout.hasPrefix("Author#1\n") && !limited.stdout.contains("Author#2"), "\(limited)")
        #expect(try cli.run("dump", "L.quiredoc", "--where", "name == 'x'").status == 2)
        let unknown = try cli.run("dump", "L.quiredoc", "--entity", "Car")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("has no entity 'Car'; it has Author, Department, Employee, Item, Publication"), "\(unknown)")
        let bad = try cli.run("dump", "L.quiredoc", "--entity", "Author", "--where", "name ==")
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.stderr.hasPrefix("quire: --where: "), "\(bad)")
    }

    // MARK: Streams, names, folders

    func runPiped(_ cli: CLIHarness, _ arguments: [String], input: Data) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = cli.executable
        process.arguments = arguments
        process.currentDirectoryURL = cli.folder.url
        let stdin = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = err
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: errors, as: UTF8.self))
    }

    @Test func dashMeansStandardInputAndOutput() throws {
        let cli = try harness()
        let zip = try Data(contentsOf: CLIHarness.samples.appendingPathComponent("Runs-sqlite.zip"))
        let info = try runPiped(cli, ["info", "-"], input: zip)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(String(decoding: info.stdout, as: UTF8.self).hasPrefix("standard input: zip archive (application/x-quire-sample)\n"))
        // convert - - : a zip in, a tar out.
        let converted = try runPiped(cli, ["convert", "-", "-", "--archive", "tar", "--to", "xml"], input: zip)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.hasPrefix("Converted standard input (zip archive, SQLite) to standard output (tar archive, XML)"), "\(converted.stderr)")
        try converted.stdout.write(to: cli.folder.file("Out.tar"))
        try cli.copySample("Runs-sqlite.zip", as: "Runs.zip")
        #expect(try cli.run("diff", "Runs.zip", "Out.tar").status == 0)
        // No file named '-' is ever made; the private copies are gone.
        #expect(try !cli.listing().contains("-"))
        let pack = try runPiped(cli, ["pack", CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc").path, "-"], input: Data())
        #expect(pack.status == 0 && pack.stdout.prefix(2) == Data("PK".utf8), "\(pack.stderr)")
        let refused = try runPiped(cli, ["convert", CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc").path, "-"], input: Data())
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("pass --archive zip or tar"), "\(refused.stderr)")
    }

    @Test func outputNamesThatSayAnotherKindAreRefused() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        let xml = try cli.run("convert", "Runs.quiredoc", "o.sqlite", "--to", "xml")
        #expect(xml == .init(status: 2, stdout: "", stderr: "quire: 'o.sqlite' is named like a SQLite store, but --to asks for XML: name it 'o.xml' or drop --to.\n"))
        let both = try cli.run("convert", "Runs.quiredoc", "o.xml", "--to", "xml", "--type", "binary")
        #expect(both.status == 2)
        #expect(both.stderr.contains("--to and --type name the same thing"), "\(both)")
        let tar = try cli.run("pack", "Runs.quiredoc", "Runs.zip", "--format", "tar")
        #expect(tar.status == 2)
        #expect(tar.stderr.contains("'Runs.zip' is named like a zip archive, but --format is tar"), "\(tar)")
        #expect(try cli.listing() == ["Runs.quiredoc"])
    }

    /// `--type` is a documented other name of `--to`: shown in the help, its wrong values answered with the
    /// valid ones (as `--to`'s are), and refused together with `--to`.
    @Test func typeIsADocumentedOtherNameOfTo() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        #expect(try cli.run("convert", "Runs.quiredoc", "o.xml", "--type", "csv") == .init(status: 2, stdout: "", stderr: """
            quire: The value 'csv' is invalid for '--type <type>'. Please provide one of 'sqlite', 'xml' or 'binary'. (see 'quire help')

            """))
        #expect(try cli.run("convert", "Runs.quiredoc", "o.xml", "--to", "csv").stderr.contains(
            "Please provide one of 'sqlite', 'xml' or 'binary'."))
        let help = try cli.run("convert", "--help")
        #expect(help.stdout.contains("--type <type>           Another name for --to (sqlite, xml or binary); give\n"), "\(help)")
        let both = try cli.run("convert", "Runs.quiredoc", "o.xml", "--to", "xml", "--type", "xml")
        #expect(both == .init(status: 2, stdout: "", stderr: """
            quire: --to and --type name the same thing; give one of them. (see 'quire help')

            """), "\(both)")
        #expect(try cli.run("convert", "Runs.quiredoc", "o.xml", "--type", "xml").status == 0)
        #expect(try cli.run("info", "o.xml").stdout.contains("XML"))
    }

    @Test func walkingAFolderSkipsXcodeModels() throws {
        let cli = try harness()
        let input = cli.folder.file("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: false)
        try FileManager.default.copyItem(
            at: CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc"), to: input.appendingPathComponent("Runs.quiredoc"))
        try FileManager.default.copyItem(
            at: FixtureFiles.url("XcodeModels/Journal.xcdatamodeld"), to: input.appendingPathComponent("Journal.xcdatamodeld"))
        // A loose XML file that is not a store either.
        try Data(#"<?xml version="1.0"?><model/>"#.utf8).write(to: input.appendingPathComponent("contents"))
        let result = try cli.run("convert", "in", "out/", "--archive", "zip")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Converted 1 of 1 files into out/"), "\(result)")
    }

    /// The side files stores keep beside their files (every registered kind's `sideFileSuffixes`: SQLite's
    /// `-wal`, `-shm`, `-journal`) are passed over by name, whatever they hold: here each holds a copy of a store
    /// (named after one that is not there, so that SQLite does not take them for the real store's), which read
    /// by content would be converted too.
    @Test func walkingAFolderSkipsStoresSideFiles() throws {
        let cli = try harness()
        let input = cli.folder.file("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: false)
        let store = CLIHarness.samples.appendingPathComponent("Runs-sqlite.quiredoc/StoreContent/persistentStore")
        for name in ["Runs.sqlite", "Gone.sqlite-wal", "Gone.sqlite-shm", "Gone.sqlite-journal"] {
            try FileManager.default.copyItem(at: store, to: input.appendingPathComponent(name))
        }
        let result = try cli.run("convert", "in", "out/", "--to", "xml")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Converted 1 of 1 files into out/"), "\(result)")
        let written = try FileManager.default.contentsOfDirectory(atPath: cli.folder.file("out").path).filter { !$0.hasPrefix(".") }
        #expect(written == ["Runs.xml"])
    }

    // MARK: Messages: see CLIMessageTests, one test per message class.

    // MARK: Signals

    @Test func sigtermRemovesThePrivateCopyOfStandardInput() throws {
        let cli = try harness()
        let temporary = cli.folder.file("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        let process = Process()
        process.executableURL = cli.executable
        process.arguments = ["info", "-"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { _, new in new }
        let stdin = Pipe()
        let err = Pipe()
        process.standardInput = stdin
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(repeating: 0x50, count: 4096))
        // Wait until the private copy exists, then stop the tool.
        let deadline = Date().addingTimeInterval(20)
        while try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, Date() < deadline { usleep(20_000) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).first?.hasPrefix("quire-stream-") == true)
        process.terminate()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? stdin.fileHandleForWriting.close()
        #expect(process.terminationStatus == 128 + SIGTERM, "\(errors)")
        #expect(errors.contains("quire: interrupted"), "\(errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }
}
