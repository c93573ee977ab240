import Foundation
import Quire
import QuireTestSupport
import Testing

/// The round-trip assertion users call from their own suites.
struct RoundTripTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocuments")

    @Test func librarySurvivesSQLiteContainers() throws {
        let steps = RoundTripStep.all.filter { $0.storeType == .sqlite }
        try assertRoundTrip(Self.samples.appendingPathComponent("Library-sqlite.quiredoc"), through: steps)
    }

    @Test func dumpAndDifferencesWorkAcrossContainers() throws {
        let package = Self.samples.appendingPathComponent("Runs-sqlite.quiredoc")
        let archive = Self.samples.appendingPathComponent("Runs-sqlite.tar")
        #expect(try canonicalDump(of: package).counts == ["Run": 5])
        #expect(try graphDifferences(between: package, and: archive).isEmpty)
        #expect(try graphDifferences(between: package, and: Self.samples.appendingPathComponent("Library-sqlite.zip")).count > 0)
    }

    @Test func aChangedGraphFailsWithTheStepAndTheDifferences() throws {
        let folder = try TemporaryFolder()
        let failure = RoundTripFailure(steps: [RoundTripStep(.zipArchive, .sqlite)], differences: ["Run#5.processID: 1004 here, 9 there"])
        #expect(failure.description == "The object graph changed after zip archive (SQLite):\n  Run#5.processID: 1004 here, 9 there")
        #expect(throws: QuireError.self) { try assertRoundTrip(folder.file("missing.quiredoc"), through: []) }
    }
}
