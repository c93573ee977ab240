// Unit tests of the XML reader's number and base64 fast paths, which have no public face: uses QuireCore's and QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// The XML reader's fast paths for doubles and base64 decode exactly as `Double(_: String)` and Foundation's
/// base64 decoder do, and leave everything else to them.
@Suite struct XMLValueFastPathTests {
    private func fast(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { XMLDecimalNumber.double($0) }
    }

    @Test func decimalsMatchStrtod() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Double] = [0, -0.0, 0.75, 633.1831102544943, 615722645.047, 1, -1, 9_007_199_254_740_992, 0.1, 0.3, 1e-22, 123456.789]
        for _ in 0..<20_000 {
            samples.append(Double(bitPattern: generator.next()))
            samples.append(Double.random(in: -1e9...1e9, using: &generator))
            samples.append((Double.random(in: 0...1e6, using: &generator) * 1000).rounded() / 1000)
        }
        var hits = 0
        for sample in samples where sample.isFinite {
            let text = sample.description
            guard let value = fast(text) else { continue }
            hits += 1
            #expect(value.bitPattern == Double(text)?.bitPattern, "\(text)")
            #expect(value.bitPattern == sample.bitPattern, "\(text)")
        }
        #expect(hits > 20_000)
        for text in ["5.", ".5", "+2.5", "-0", "007", "0.000123"] {
            #expect(fast(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test func otherNumbersAreLeftToStrtod() {
        for text in ["", "-", ".", "1e5", "1.5E-3", "inf", "nan", "0x1p3", "1.2.3", " 1", "1 ", "12345678901234567890", "9007199254740993",
                     "0.00000000000000000000001", "1,5", "--1"]
        {
            #expect(fast(text) == nil, "\(text)")
        }
    }

    @Test func doublesAndDatesStillReadEveryForm() {
        func value(_ text: String, _ type: AttributeType) -> AttributeValue? {
            Array(text.utf8).withUnsafeBytes { XMLStoreParser.value($0, type, base64: false) }
        }
        #expect(value(" 2.5\n", .double) == .double(2.5))
        #expect(value("1e3", .double) == .double(1000))
        #expect(value("-inf", .double) == .double(-.infinity))
        #expect(value("1.5.", .double) == nil)
        #expect(value("10.25", .date) == .date(Date(timeIntervalSinceReferenceDate: 10.25)))
        #expect(value("2.5e1", .date) == .date(Date(timeIntervalSinceReferenceDate: 25)))
        #expect(value("soon", .date) == nil)
    }

    private func fastData(_ text: String) -> Data? {
        Array(text.utf8).withUnsafeBytes { Base64Bytes.decodeCanonical($0) }
    }

    @Test func base64MatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let text = bytes.base64EncodedString()
            if length == 0 {
                #expect(fastData(text) == nil)
            } else {
                #expect(fastData(text) == bytes)
            }
        }
    }

    @Test func nonCanonicalBase64IsLeftToFoundation() {
        for text in ["QQ", "QR==", "QUI=QUI=", "QU J=", "QUJ", "QUJD\n", "Q===", "====", "QUI-", "QUIx=", "=QUI"] {
            #expect(fastData(text) == nil, "\(text)")
        }
        // The reader still decodes them as Foundation does.
        for text in ["QUJD\nRA==", " QUJD ", "QU JD"] {
            let read = Array(text.utf8).withUnsafeBytes { XMLStoreParser.value($0, .binaryData, base64: false) }
            let foundation = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines), options: .ignoreUnknownCharacters)
            #expect(read == foundation.map { .data($0) }, "\(text)")
        }
    }
}
