import Foundation
import Quire
import QuireTestSupport
import Testing

/// The `quire` tool on stores Core Data wrote on the Mac: opened with the model Core Data cached in them, or with
/// the application's model given as `--model`, converted to every other store type and container and back with no
/// difference `quire diff` can see.
@Suite(.serialized) struct CLIMacStoreTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// Copies a fixture under `Fixtures/CoreData/` into the harness's folder, writable.
    func copy(_ path: String, to cli: CLIHarness, as name: String) throws {
        let target = cli.folder.file(name)
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/" + path), to: target)
        _ = chmod(target.path, 0o755)
        for item in FileManager.default.enumerator(atPath: target.path)?.allObjects as? [String] ?? [] {
            _ = chmod(target.appendingPathComponent(item).path, 0o755)
        }
    }

    @Test(arguments: ["CoreDataPlus/SampleModel_V1.sqlite", "CoreDataPlus/SampleModel3_V1.sqlite", "CoreDataPlus/SampleModel2_V2.sqlite"])
    func aMacStoreOpensWithItsModelCacheAndConvertsBothWaysUnchanged(store: String) throws {
        let cli = try harness()
        try copy(store, to: cli, as: "Mac.sqlite")
        let info = try cli.run("info", "Mac.sqlite")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Model: the model Core Data cached in the store (Z_MODELCACHE)"))
        #expect(try cli.run("verify", "Mac.sqlite").stdout.contains("OK"))
        for (output, options) in [
            ("Mac.xml", ["--type", "xml"]), ("Mac.quire", ["--type", "binary"]), ("Mac.zip", ["--type", "xml"]),
            ("Mac.quiredoc", ["--package", "--type", "sqlite"]),
        ] {
            let converted = try cli.run(["convert", "Mac.sqlite", output] + options)
            #expect(converted.status == 0, "\(output): \(converted.stderr)")
            let diff = try cli.run("diff", "Mac.sqlite", output)
            #expect(diff.status == 0, "\(output): \(diff.stdout)\(diff.stderr)")
            let back = "Back-" + output + ".sqlite"
            #expect(try cli.run("convert", output, back, "--type", "sqlite").status == 0)
            #expect(try cli.run("diff", "Mac.sqlite", back).status == 0, "\(output) and back")
        }
    }

    @Test func aMacStoreWithoutAModelCacheNeedsTheAppsModel() throws {
        let cli = try harness()
        try copy("BookMigration/Model1.sqlite", to: cli, as: "Books.sqlite")
        try copy("BookMigration/Model.xcdatamodeld", to: cli, as: "Model.xcdatamodeld")
        let refused = try cli.run("info", "Books.sqlite")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("embeds no model and caches none"))
        // The bundle's version that wrote the store (Model1 of three) is chosen by the store's version hashes.
        let info = try cli.run("info", "Books.sqlite", "--model", "Model.xcdatamodeld")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Model: the model file"))
        #expect(info.stdout.contains("Book  4 objects"))
        #expect(try cli.run("convert", "Books.sqlite", "Books.quiredoc", "--package", "--model", "Model.xcdatamodeld").status == 0)
        #expect(try cli.run("diff", "Books.sqlite", "Books.quiredoc", "--model", "Model.xcdatamodeld").status == 0)
        // Every conversion opens alone afterwards: it embeds the model it was made with.
        for output in ["Books.quiredoc", "Books.zip", "Books.tar", "Books-copy.sqlite"] {
            if output != "Books.quiredoc" {
                #expect(try cli.run("convert", "Books.sqlite", output, "--model", "Model.xcdatamodeld").status == 0, "\(output)")
            }
            let alone = try cli.run("info", output)
            #expect(alone.status == 0, "\(output): \(alone.stderr)")
            #expect(alone.stdout.contains("Model: the model embedded by Quire"), "\(output)")
            #expect(try cli.run("verify", output).status == 0, "\(output)")
        }
    }

    @Test func verifyTellsWhatCoreDataWritesFromProblems() throws {
        let cli = try harness()
        try copy("AppleNotes/NoteStore-macOS-15-Seqoia.sqlite", to: cli, as: "NoteStore.sqlite")
        // Apple Notes keeps its objects' `cloudState` one-to-one on one side only: notes, and the store passes.
        let verified = try cli.run("verify", "NoteStore.sqlite")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.isEmpty)
        #expect(verified.stdout.hasPrefix(
            "NoteStore.sqlite: note: ICAccount 2.cloudState holds ICCloudState 3, whose inverse cloudSyncingObject is empty"))
        #expect(verified.stdout.hasSuffix("NoteStore.sqlite: OK (store file, SQLite store)\n"))
    }
}
