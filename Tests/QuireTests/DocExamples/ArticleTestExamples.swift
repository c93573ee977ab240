import Foundation
import Quire

import QuireTestSupport
import Testing

// The articles' examples of tests (GettingStarted.md, InspectionAndRoundTrips.md), word for word: compiled, never
// run (the documents they name are the reader's).
@Suite(.disabled("documentation examples: compiled to check them, not run"))
struct ArticleTestExamples {
    let libraryURL = URL(fileURLWithPath: "Library.quiredoc")
    let exportedURL = URL(fileURLWithPath: "Library.zip")

    @Test func runsRoundTrip() throws {
        try assertRoundTrip(URL(fileURLWithPath: "Runs.sqlite"), through: RoundTripStep.all)
    }

    @Test func libraryRoundTrips() throws {
        try assertRoundTrip(libraryURL, through: [
            RoundTripStep(.zipArchive, .xml), RoundTripStep(.package, .binary), RoundTripStep(.storeFile, .sqlite),
        ])
        #expect(try graphDifferences(between: libraryURL, and: exportedURL).isEmpty)
    }
}
