// Unit tests of the Xcode model reader's parts (natural version order, XML limits, the decoder on damaged bytes),
// which have no public face: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

/// The Xcode model reader below `ManagedObjectModel(contentsOf:)`: its version order, its XML parser's limits, and
/// its decoder on truncated and corrupted bytes.
@Suite struct XcodeModelReaderTests {
    @Test func versionsSortWithNumbersComparedAsNumbers() {
        let names = ["Model 10", "Model 2", "Model", "Model 3"]
        #expect(names.sorted(by: XcodeModelReader.naturalOrder) == ["Model", "Model 2", "Model 3", "Model 10"])
    }

    @Test func oversizedAndDeeplyNestedFilesAreRefused() throws {
        let file = URL(fileURLWithPath: "/tmp/contents")
        var limits = XcodeModelXML.Limits()
        limits.maximumSize = 64
        let big = Data(repeating: UInt8(ascii: " "), count: 65)
        #expect(throws: QuireError.self) { try XcodeModelXML.parse(big, file: file, limits: limits) }
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        let error = try #require(throws: QuireError.self) { try XcodeModelXML.parse(Data(deep.utf8), file: file) }
        #expect(error.message.contains("nests deeper than 32 levels"))
        let latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><model/>".utf8)
        #expect(throws: QuireError.self) { try XcodeModelXML.parse(latin1, file: file) }
    }

    @Test func truncatedAndCorruptedFilesThrowAndNeverCrash() throws {
        let url = try FixtureFiles.url("XcodeModels/Library.xcdatamodel/contents")
        let whole = try Data(contentsOf: url)
        var outcomes = (models: 0, errors: 0)
        func decode(_ data: Data) {
            do {
                let document = try XcodeModelDecoder(file: url).decode(try XcodeModelXML.parse(data, file: url))
                try document.apply(to: ManagedObjectModel())
                outcomes.models += 1
            } catch is QuireError {
                outcomes.errors += 1
            } catch {
                Issue.record("an error that is not a QuireError: \(error)")
            }
        }
        for length in stride(from: 0, to: whole.count, by: 61) { decode(whole.prefix(length)) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = [UInt8](whole)
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 32...126, using: &generator) }
            decode(Data(bytes))
        }
        #expect(outcomes.errors > 0 && outcomes.models + outcomes.errors == 200 + (whole.count + 60) / 61)
    }
}
