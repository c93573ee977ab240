import Foundation
import Testing

/// Dispatch's main queue inside GLib's main loop (`GLibMainQueue`, on Quire's `MainQueueEventSource`): the probe
/// runs GLib's loop on its main thread, as a GTK app does, and reports what of the work sent to the main queue
/// ran: a view context's `perform`, the merge of a background save into the view context, the view context's
/// fetched-results controller reporting it, a `@MainActor` task.
@Suite struct MainQueueTests {
    struct Report: Decodable {
        var source: Bool
        var perform: Bool
        var merged: [String]
        var controllerInsertions: Int
        var mainActorTask: Bool
    }

    func probe(_ arguments: [String]) throws -> Report {
        let probe = try #require(Products.executable("main-queue-probe"), "main-queue-probe is not built; run swift build --build-tests")
        let (status, output) = try Products.run(probe, arguments)
        #expect(status == 0)
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }

    @Test func withTheSourceTheMainQueueRunsInGLibsLoop() throws {
        let report = try probe([])
        #expect(report.source)
        #expect(report.perform)
        #expect(report.merged == ["Merged from the background"])
        #expect(report.controllerInsertions == 1)
        #expect(report.mainActorTask)
    }

    /// The same process without the source: GLib's loop goes idle and nothing sent to the main queue ever ran.
    /// This is what a GTK app on Quire meets without `GLibMainQueue`.
    @Test func withoutTheSourceNothingSentToTheMainQueueRuns() throws {
        let report = try probe(["--without-source"])
        #expect(!report.source)
        #expect(!report.perform)
        #expect(report.merged.isEmpty)
        #expect(report.controllerInsertions == 0)
        #expect(!report.mainActorTask)
    }
}
