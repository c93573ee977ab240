import Foundation
import Quire
import QuireTestSupport
import Testing

/// Every sample document through every conversion path (every store type × store file, package, zip and
/// tar), each result compared with `quire diff`.
///
/// Paths through XML and binary stores run once tools can read those stores' embedded models (their stores'
/// file operations); until then only SQLite paths run, and the test says how many it skipped.
@Suite struct CLIRoundTripTests {
    @Test(arguments: CLIHarness.sampleNames)
    func sampleSurvivesEveryConversion(name: String) throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let readable = [StoreType.sqlite, .xml, .binary].filter(CLIHarness.canRead)
        let sampleType = name.contains("-sqlite") ? StoreType.sqlite : name.contains("-xml") ? .xml : .binary
        guard readable.contains(sampleType) else { return }
        let cli = try CLIHarness(executable: executable)
        try cli.copySample(name)
        for (index, step) in RoundTripStep.all.enumerated() where readable.contains(step.storeType) {
            let output: String
            var arguments: [String]
            let type = step.storeType == .sqlite ? "sqlite" : step.storeType == .xml ? "xml" : "binary"
            switch step.container {
            case .storeFile: output = "out\(index).\(type)"; arguments = []
            case .package: output = "out\(index).quiredoc"; arguments = ["--package"]
            case .zipArchive: output = "out\(index).zip"; arguments = []
            case .tarArchive: output = "out\(index).tar"; arguments = []
            }
            let converted = try cli.run(["convert", name, output, "--type", type] + arguments)
            #expect(converted.status == 0, "\(name) → \(step): \(converted)")
            let diff = try cli.run("diff", name, output)
            #expect(diff == .init(status: 0, stdout: "\(name) and \(output) hold the same object graph.\n", stderr: ""), "\(step)")
        }
    }
}
