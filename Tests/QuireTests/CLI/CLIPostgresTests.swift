import Foundation
import Quire
import QuirePostgres
import QuireTestSupport
import Testing

/// `quire` on PostgreSQL stores (issue 30): every command that reads a store takes a URL, and a dry run into
/// PostgreSQL writes nothing.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct CLIPostgresTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// Whether the schema holds any table.
    static func tableCount(_ url: URL) throws -> Int {
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        var base = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        base.queryItems = base.queryItems?.filter { $0.name != "schema" }
        process.arguments = [try #require(base.url?.absoluteString), "-tAc", "select count(*) from information_schema.tables where table_schema = '\(schema)'"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "\(text)")
    }

    @Test func aDryRunIntoPostgreSQLWritesNothingAndFileOptionsAreRefused() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "L.quiredoc")
        let url = try #require(PostgresTestServer.storeURL())
        let dry = try cli.run("convert", "L.quiredoc", url.absoluteString, "--dry-run")
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.hasPrefix("Would convert L.quiredoc (SQLite) to "), "\(dry)")
        #expect(try Self.tableCount(url) == 0)
        for option in [["--archive", "zip"], ["--force"], ["--package"], ["--to", "xml"]] {
            let refused = try cli.run(["convert", "L.quiredoc", url.absoluteString] + option)
            #expect(refused.status == 2, "\(option): \(refused)")
        }
        #expect(try Self.tableCount(url) == 0)
    }

    @Test func everyReadingCommandTakesAPostgreSQLURL() throws {
        let cli = try harness()
        try cli.copySample("Library-sqlite.quiredoc", as: "L.quiredoc")
        let url = try #require(PostgresTestServer.storeURL()).absoluteString
        let converted = try cli.run("convert", "L.quiredoc", url)
        #expect(converted.status == 0, "\(converted)")
        let info = try cli.run("info", url)
        #expect(info.status == 0, "\(info)")
        #expect(info.stdout.contains(": PostgreSQL database\n") && info.stdout.contains("  Author       3 objects\n"), "\(info)")
        #expect(try cli.run("dump", url).stdout == cli.run("dump", "L.quiredoc").stdout)
        #expect(try cli.run("diff", "L.quiredoc", url).status == 0)
        let verify = try cli.run("verify", url)
        #expect(verify.status == 0, "\(verify)")
        #expect(try cli.run("model", url).stdout.contains("Employee\n  name "))
        let metadata = try cli.run("metadata", url, "--set", "Owner=Ada")
        #expect(metadata.status == 0, "\(metadata)")
        #expect(metadata.stdout.contains("Owner = Ada\n"), "\(metadata)")
        let dump = try cli.run("dump", url, "--entity", "Employee", "--where", "salary > 121000")
        #expect(dump.stdout.hasPrefix("Employee#2\n  name = \"Barbara\""), "\(dump)")
        // And back into a file, with --dry-run writing nothing.
        #expect(try cli.run("convert", url, "Back.zip", "--dry-run").status == 0)
        #expect(try !cli.listing().contains("Back.zip"))
        #expect(try cli.run("convert", url, "Back.zip").status == 0)
        #expect(try cli.run("diff", "L.quiredoc", "Back.zip").status == 0)
    }
}
