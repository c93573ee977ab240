import Foundation
import Quire
import QuireCore
import QuireStores
import QuireTestSupport
import Testing

/// `--force` replaces documents, never a folder of the user's (issue 14, item 2).
@Suite(.serialized) struct CLIForceTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// A folder of the user's with a file in it.
    private func makeUserFolder(_ cli: CLIHarness, _ name: String) throws -> URL {
        let folder = cli.folder.file(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data("precious\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    private func expectUntouched(_ folder: URL) throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("notes.txt")) == Data("precious\n".utf8))
    }

    @Test func convertForceRefusesAPlainFolder() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        for name in ["Mine", "Mine.sqlite", "Mine.zip"] {
            let folder = try makeUserFolder(cli, name)
            let result = try cli.run("convert", "Runs.quiredoc", name, "--force")
            #expect(result.status == 4, "\(result)")
            #expect(result.stderr.contains("'$TMP/\(name)' is a folder, not a document package"), "\(result)")
            try expectUntouched(folder)
        }
        let folder = try makeUserFolder(cli, "Packed")
        let packed = try cli.run("pack", "Runs.quiredoc", "Packed", "--format", "zip", "--force")
        #expect(packed.status == 4, "\(packed)")
        try expectUntouched(folder)
        #expect(try cli.run("pack", "Runs.quiredoc", "Runs.zip").status == 0)
        let unpackFolder = try makeUserFolder(cli, "Unpacked")
        let unpacked = try cli.run("unpack", "Runs.zip", "Unpacked", "--force")
        #expect(unpacked.status == 4, "\(unpacked)")
        try expectUntouched(unpackFolder)
    }

    @Test func convertForceReplacesADocument() throws {
        let cli = try harness()
        try cli.copySample("Runs-sqlite.quiredoc", as: "Runs.quiredoc")
        try cli.copySample("Library-xml.quiredoc", as: "Old.quiredoc")
        #expect(try cli.run("convert", "Runs.quiredoc", "Old.quiredoc", "--force").status == 0)
        #expect(try cli.run("diff", "Runs.quiredoc", "Old.quiredoc").status == 0)
        #expect(try cli.run("convert", "Runs.quiredoc", "Old.sqlite").status == 0)
        #expect(try cli.run("convert", "Runs.quiredoc", "Old.sqlite", "--type", "sqlite", "--force").status == 0)
        #expect(try cli.run("diff", "Runs.quiredoc", "Old.sqlite").status == 0)
    }
}
