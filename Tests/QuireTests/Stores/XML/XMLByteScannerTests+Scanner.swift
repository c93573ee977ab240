// Unit tests of the XML scanner itself (its value-size limit, its tokens, lines and columns), which has no public face: uses QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireStores

extension XMLByteScannerTests {
    @Test func oversizedValuesAreRefusedByTheScanner() throws {
        let text = "<a b=\"\(String(repeating: "x", count: 100))\">\(String(repeating: "y", count: 100))</a>"
        func scan(_ limit: Int) throws {
            var bytes = Array(text.utf8)
            try bytes.withUnsafeMutableBytes { raw in
                var scanner = XMLByteScanner(UnsafeRawBufferPointer(raw), maximumValueSize: limit)
                while true {
                    if case .endOfInput = try scanner.next() { break }
                }
            }
        }
        try scan(100)
        let error = try #require(throws: XMLSyntaxError.self) { try scan(99) }
        #expect(error.reason.contains("longer than 99 bytes"))
        #expect(XMLStoreParser.maximumValueSize == 256 << 20)
    }

    @Test func scannerReportsLinesAndColumns() throws {
        var bytes = Array("<a>\n  <b x='1'>t&amp;u</b>\n</a>".utf8)
        try bytes.withUnsafeMutableBytes { raw in
            var scanner = XMLByteScanner(UnsafeRawBufferPointer(raw), maximumValueSize: 1 << 20)
            var tokens: [String] = []
            while true {
                let token = try scanner.next()
                switch token {
                case .start(let name, let selfClosing): tokens.append("<\(scanner.string(name))\(selfClosing ? "/" : "")>")
                case .end(let name): tokens.append("</\(scanner.string(name))>")
                case .text(let span, let kind):
                    var decoded: [UInt8] = []
                    try scanner.decode(span, kind: kind, into: &decoded)
                    tokens.append(String(decoding: decoded, as: UTF8.self))
                case .endOfInput:
                    #expect(tokens == ["<a>", "\n  ", "<b>", "t&u", "</b>", "\n", "</a>"])
                    #expect(scanner.lineAndColumn(at: 6) == (2, 3))
                    return
                }
            }
        }
    }
}
