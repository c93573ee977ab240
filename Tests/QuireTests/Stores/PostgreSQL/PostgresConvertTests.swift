import Foundation
import Testing

import Quire
import QuirePostgres
import QuireTestSupport

/// `quire convert` into a PostgreSQL database and back; `quire diff` finds no difference.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConvertTests {
    @Test(arguments: ["Library-sqlite.quiredoc", "Runs-xml.zip"])
    func aDocumentGoesToTheDatabaseAndBack(sample: String) throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        try cli.copySample(sample)
        let database = try #require(PostgresTestServer.storeURL()).absoluteString
        let there = try cli.run("convert", sample, database)
        #expect(there.status == 0, "\(there)")
        #expect(there.stdout.contains("(PostgreSQL)"))
        let back = try cli.run("convert", database, "Back.quiredoc")
        #expect(back.status == 0, "\(back)")
        let diff = try cli.run("diff", sample, "Back.quiredoc")
        #expect(diff.status == 0, "\(diff)")
        #expect(diff.stdout.contains("hold the same object graph"))
    }
}
