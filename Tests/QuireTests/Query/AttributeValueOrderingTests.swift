import Foundation
import Testing

import Quire

@Suite("AttributeValue ordering")
struct AttributeValueOrderingTests {
    @Test("Compares numbers across cases")
    func numbers() {
        let cases: [(AttributeValue, AttributeValue, ComparisonResult?)] = [
            (.integer(1), .integer(2), .orderedAscending),
            (.integer(2), .double(2.0), .orderedSame),
            (.double(2.5), .integer(2), .orderedDescending),
            (.float(0.5), .double(0.5), .orderedSame),
            (.decimal(Decimal(string: "0.1")!), .integer(0), .orderedDescending),
            (.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "0.10")!), .orderedSame),
            (.boolean(true), .integer(1), .orderedSame),
            (.boolean(false), .boolean(true), .orderedAscending),
            (.integer(.max), .double(9223372036854775807.0), .orderedAscending),
            (.integer(.max - 1), .integer(.max), .orderedAscending),
            (.integer(9_007_199_254_740_993), .double(9007199254740992.0), .orderedDescending),
            (.double(.nan), .double(1), nil),
            (.integer(1), .double(.nan), nil),
            (.double(-.infinity), .integer(.min), .orderedAscending),
        ]
        for (a, b, expected) in cases {
            #expect(a.compare(b) == expected, "\(a) vs \(b)")
        }
    }

    @Test("Compares strings with options")
    func strings() {
        let cases: [(String, String, String.CompareOptions, ComparisonResult)] = [
            ("a", "b", [], .orderedAscending),
            ("B", "a", [], .orderedAscending),
            ("B", "a", .caseInsensitive, .orderedDescending),
            ("straße", "strasse", [], .orderedDescending),
            ("é", "e\u{301}", [], .orderedSame),
            ("é", "e", [], .orderedDescending),
            ("É", "e", [.caseInsensitive, .diacriticInsensitive], .orderedSame),
            ("file9", "file10", [], .orderedDescending),
            ("file9", "file10", .numeric, .orderedAscending),
            ("a007", "a7", .numeric, .orderedSame),
            ("x99999999999999999999999", "x100000000000000000000000", .numeric, .orderedAscending),
        ]
        for (a, b, options, expected) in cases {
            #expect(AttributeValue.string(a).compare(.string(b), options: options) == expected, "\(a) vs \(b)")
        }
    }

    @Test("Compares dates, data, UUIDs, URIs and nil")
    func otherKinds() {
        let early = Date(timeIntervalSinceReferenceDate: 0)
        let late = Date(timeIntervalSinceReferenceDate: 1)
        #expect(AttributeValue.date(early).compare(.date(late)) == .orderedAscending)
        #expect(AttributeValue.data(Data([1, 2])).compare(.data(Data([1, 2, 0]))) == .orderedAscending)
        #expect(AttributeValue.data(Data([2])).compare(.data(Data([1, 9]))) == .orderedDescending)
        #expect(AttributeValue.data(Data([1])).compare(.data(Data([1]))) == .orderedSame)
        let low = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let high = UUID(uuidString: "10000000-0000-0000-0000-000000000000")!
        #expect(AttributeValue.uuid(low).compare(.uuid(high)) == .orderedAscending)
        #expect(AttributeValue.uri(URL(string: "a:b")!).compare(.uri(URL(string: "a:c")!)) == .orderedAscending)
        #expect(AttributeValue.null.compare(.null) == .orderedSame)
        #expect(AttributeValue.null.compare(.integer(.min)) == .orderedAscending)
        #expect(AttributeValue.string("").compare(.null) == .orderedDescending)
    }

    @Test("Returns nil for kinds that do not compare")
    func incomparable() {
        #expect(AttributeValue.string("1").compare(.integer(1)) == nil)
        #expect(AttributeValue.date(Date()).compare(.double(0)) == nil)
        #expect(AttributeValue.uuid(UUID()).compare(.string("x")) == nil)
        #expect(AttributeValue.data(Data()).compare(.boolean(false)) == nil)
    }
}
