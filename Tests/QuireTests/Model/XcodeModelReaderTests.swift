// Unit tests of the Xcode model XML parser's limits (a size limit set below the default), which have no public face: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

/// The XML parser below `ManagedObjectModel(contentsOf:)`: its size and depth limits and its encodings.
@Suite struct XcodeModelReaderTests {
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
}
