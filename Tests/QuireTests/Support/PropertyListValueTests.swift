import Foundation
import Testing

import Quire

@Suite("Property-list values")
struct PropertyListValueTests {
    /// The formats store metadata is written in.
    static let formats: [PropertyListSerialization.PropertyListFormat] = [.binary, .xml]

    /// Metadata shaped like a store's, with every kind of value; dates are whole seconds so XML keeps them.
    static let metadata: [String: PropertyListValue] = [
        "NSStoreType": "SQLite",
        "NSStoreUUID": "4F0C1B5E-2D7A-4C59-9E0B-6A1D3F2E8C47",
        "NSStoreModelVersionHashes": [
            "Item": .data(Data(repeating: 0xab, count: 32)),
            "Folder": .data(Data((0..<32).map { UInt8($0) })),
        ],
        "NSStoreModelVersionIdentifiers": [""],
        "NSPersistenceFrameworkVersion": 1,
        "trueFlag": true,
        "falseFlag": false,
        "one": 1,
        "zero": 0,
        "minusOne": -1,
        "largest": .integer(.max),
        "smallest": .integer(.min),
        "ratio": 0.25,
        "wholeReal": 2.0,
        "negativeReal": -1e300,
        "created": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
        "empty": .data(Data()),
        "emptyString": "",
        "unicode": "Caf\u{e9} \u{1F4DA} \u{65e5}\u{672c}",
        "list": [1, true, 0, false, "x", 1.5, [:], []],
        "nested": ["a": ["b": ["c": [true]]]],
    ]

    @Test("Metadata round-trips, Booleans and integers kept apart", arguments: formats)
    func roundTrip(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = try PropertyListValue.encode(Self.metadata, format: format)
        let decoded = try PropertyListValue.decodeDictionary(from: data)
        #expect(decoded == Self.metadata)
        #expect(decoded["trueFlag"] == .boolean(true))
        #expect(decoded["one"] == .integer(1))
        #expect(decoded["zero"] == .integer(0))
        #expect(decoded["falseFlag"] == .boolean(false))
        #expect(decoded["wholeReal"] == .real(2))
        #expect(decoded["list"]?.arrayValue?.prefix(4) == [.integer(1), .boolean(true), .integer(0), .boolean(false)])
    }

    @Test("The encoded format is the one asked for")
    func formatsOnDisk() throws {
        let binary = try PropertyListValue.encode(["flag": true, "n": 1], format: .binary)
        #expect(binary.prefix(8) == Data("bplist00".utf8))

        let xml = try PropertyListValue.encode(["flag": true, "n": 1], format: .xml)
        let text = String(decoding: xml, as: UTF8.self)
        #expect(text.hasPrefix("<?xml"))
        #expect(text.contains("<true/>"))
        #expect(text.contains("<integer>1</integer>"))
    }

    @Test("Binary property lists keep fractional seconds; XML keeps whole seconds")
    func datePrecision() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.25)
        let binary = try PropertyListValue.decodeDictionary(
            from: PropertyListValue.encode(["d": .date(date)], format: .binary)
        )
        #expect(binary["d"] == .date(date))

        let xml = try PropertyListValue.decodeDictionary(
            from: PropertyListValue.encode(["d": .date(date)], format: .xml)
        )
        let seconds = try #require(xml["d"]?.dateValue).timeIntervalSinceReferenceDate
        #expect(seconds.rounded(.down) == 12)
    }

    @Test("A Core Data-style XML property list decodes")
    func handWrittenXML() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>NSStoreType</key><string>XML</string>
                <key>NSStoreModelVersionHashes</key>
                <dict><key>Item</key><data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</data></dict>
                <key>flag</key><true/>
                <key>count</key><integer>1</integer>
                <key>when</key><date>2001-01-01T00:00:10Z</date>
                <key>ratio</key><real>0.5</real>
            </dict>
            </plist>
            """
        let decoded = try PropertyListValue.decodeDictionary(from: Data(text.utf8))
        #expect(decoded["NSStoreType"] == "XML")
        #expect(decoded["NSStoreModelVersionHashes"] == ["Item": .data(Data((0..<32).map { UInt8($0) }))])
        #expect(decoded["flag"] == true)
        #expect(decoded["count"] == 1)
        #expect(decoded["when"] == .date(Date(timeIntervalSinceReferenceDate: 10)))
        #expect(decoded["ratio"] == 0.5)
    }

    @Test(
        "Garbage and non-dictionary roots throw fileReadCorruptFile",
        arguments: [
            Data(),
            Data("hello".utf8),
            Data("bplist00".utf8) + Data(repeating: 0xff, count: 40),
            Data("<plist version=\"1.0\"><dict><key>a</key>".utf8),
            Data("<plist version=\"1.0\"><array><integer>1</integer></array></plist>".utf8),
            Data("<plist version=\"1.0\"><string>root</string></plist>".utf8),
            Data("{a = b;}".utf8),
            Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }),
        ]
    )
    func garbage(data: Data) {
        #expect(throws: QuireError.self) {
            try PropertyListValue.decodeDictionary(from: data)
        }
        do {
            _ = try PropertyListValue.decodeDictionary(from: data)
        } catch {
            #expect((error as? QuireError)?.code == .fileReadCorruptFile)
        }
    }

    @Test("A binary array root throws fileReadCorruptFile")
    func binaryArrayRoot() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: [1, 2] as [Any], format: .binary, options: 0)
        #expect(throws: QuireError.self) {
            try PropertyListValue.decodeDictionary(from: data)
        }
    }

    @Test("Input larger than maximumSize is refused before parsing")
    func sizeBound() throws {
        let data = try PropertyListValue.encode(["blob": .data(Data(count: 2000))], format: .binary)
        #expect(try PropertyListValue.decodeDictionary(from: data, maximumSize: data.count)["blob"] != nil)
        do {
            _ = try PropertyListValue.decodeDictionary(from: data, maximumSize: data.count - 1)
            Issue.record("an oversized property list was accepted")
        } catch let error as QuireError {
            #expect(error.code == .fileReadCorruptFile)
        }
    }

    @Test("Nesting beyond maximumDepth is refused when encoding and converting")
    func depthBound() throws {
        var deep: PropertyListValue = []
        for _ in 0..<PropertyListValue.maximumDepth {
            deep = [deep]
        }
        #expect(throws: QuireError.self) {
            try PropertyListValue.encode(["deep": deep], format: .binary)
        }
        #expect(PropertyListValue(propertyListObject: ["deep": deep.propertyListObject] as [String: Any]) == nil)

        var allowed: PropertyListValue = []
        for _ in 0..<(PropertyListValue.maximumDepth - 2) {
            allowed = [allowed]
        }
        let data = try PropertyListValue.encode(["allowed": allowed], format: .binary)
        #expect(try PropertyListValue.decodeDictionary(from: data)["allowed"] == allowed)
    }

    @Test("Foundation objects convert, NSNumber Booleans apart from integers")
    func foundationObjects() throws {
        #expect(PropertyListValue(propertyListObject: NSNumber(value: true)) == .boolean(true))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: false)) == .boolean(false))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: 1)) == .integer(1))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: 0)) == .integer(0))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: Int8(1))) == .integer(1))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: 1.5)) == .real(1.5))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: Float(0.5))) == .real(0.5))
        #expect(PropertyListValue(propertyListObject: NSNumber(value: UInt64.max)) == nil)
        #expect(PropertyListValue(propertyListObject: true) == .boolean(true))
        #expect(PropertyListValue(propertyListObject: 7) == .integer(7))
        #expect(PropertyListValue(propertyListObject: UInt8(7)) == .integer(7))
        #expect(PropertyListValue(propertyListObject: 2.5) == .real(2.5))
        #expect(PropertyListValue(propertyListObject: NSString(string: "s")) == .string("s"))
        #expect(PropertyListValue(propertyListObject: NSData(data: Data([1, 2]))) == .data(Data([1, 2])))
        let date = Date(timeIntervalSinceReferenceDate: 5)
        #expect(PropertyListValue(propertyListObject: NSDate(timeIntervalSinceReferenceDate: 5)) == .date(date))
        #expect(PropertyListValue(propertyListObject: NSArray(array: [1, "a"])) == [1, "a"])
        #expect(PropertyListValue(propertyListObject: NSDictionary(dictionary: ["k": true])) == ["k": true])
        #expect(PropertyListValue(propertyListObject: [1: "a"] as [Int: String]) == nil)
        #expect(PropertyListValue(propertyListObject: URL(fileURLWithPath: "/tmp")) == nil)
        #expect(PropertyListValue(propertyListObject: [NSNull()] as [Any]) == nil)
    }

    @Test("propertyListObject converts back to an equal value")
    func objectRoundTrip() {
        let value = PropertyListValue.dictionary(Self.metadata)
        #expect(PropertyListValue(propertyListObject: value.propertyListObject) == value)
        #expect(value.propertyListObject is [String: Any])
        #expect(PropertyListValue.boolean(true).propertyListObject is Bool)
        #expect(PropertyListValue.integer(1).propertyListObject is Int64)
    }

    @Test("Literals and accessors")
    func literals() {
        let value: PropertyListValue = ["s": "x", "i": 3, "r": 0.5, "b": false, "a": [1], "d": ["k": "v"]]
        let entries = value.dictionaryValue ?? [:]
        #expect(entries["s"]?.stringValue == "x")
        #expect(entries["i"]?.integerValue == 3)
        #expect(entries["i"]?.realValue == 3)
        #expect(entries["r"]?.realValue == 0.5)
        #expect(entries["b"]?.booleanValue == false)
        #expect(entries["b"]?.integerValue == nil)
        #expect(entries["a"]?.arrayValue == [.integer(1)])
        #expect(entries["d"]?.dictionaryValue == ["k": .string("v")])
        #expect(value.nestingDepth == 2)
        #expect(PropertyListValue.string("x").nestingDepth == 0)
    }

    /// A binary property list whose root is a set (a record the fuzzer mutated: its root dictionary became
    /// `0xCE`, a set of 14) made Foundation on Linux crash while bridging the set; it is refused as damaged instead.
    @Test func aBinaryListHoldingASetIsRefusedNotDecoded() throws {
        let base64 = "YnBsaXN0MDDOAQIDBAUGBwgJCgsMDg9Vc2NvcmVUcmFua1V0aXRsZVRkb25lVHRhZ3NVcGhvdG9XY3JlYXRlZCNABAAAAAAAABADXEJ1eSB6dWNjaGluaQmhDV8QNHgtY29yZWRhdGE6Ly84RThCNDU3QS0xMjA4LTQ2NjItODNGQS0zQTgzMUFBNTVBMUQvVGFnL3AxQwECAABBx9eEAAAAAAgXHSIoLTI4QElLWFlblpoAAAAAAAABAQAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAow=="
        let data = try #require(Data(base64Encoded: base64))
        let error = #expect(throws: QuireError.self) { try PropertyListValue.decodeDictionary(from: data) }
        #expect(error?.code == .fileReadCorruptFile)
        #expect(error?.message.contains("holds a set") == true)
    }
}
