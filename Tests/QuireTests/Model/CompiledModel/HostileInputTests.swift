import CZlib
import QuireCore
import Foundation
import Testing

/// Hostile input must end in a ``CompiledModelError``, never in a crash, a hang or unbounded memory.
@Suite("Hostile input")
struct HostileInputTests {
    // MARK: DEFLATE

    @Test("Truncated DEFLATE throws")
    func truncatedDeflate() throws {
        let blob = try CompiledModelFixtures.modelCache("SampleModel2_V2")
        #expect(throws: CompiledModelError.truncatedDeflate) { try RawInflate.inflate(blob.prefix(blob.count / 2)) }
        #expect(throws: CompiledModelError.truncatedDeflate) { try RawInflate.inflate(Data()) }
        for length in stride(from: 1, to: blob.count, by: 97) {
            #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeModelCache(blob.prefix(length)) }
        }
    }

    @Test("Corrupt DEFLATE and trailing bytes throw")
    func corruptDeflate() throws {
        #expect(throws: CompiledModelError.self) { try RawInflate.inflate(Data([0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01])) }
        // A zlib header is not raw DEFLATE.
        #expect(throws: CompiledModelError.self) { try RawInflate.inflate(Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])) }
        var trailing = try CompiledModelFixtures.modelCache("SampleModel3_V1")
        trailing.append(contentsOf: [1, 2, 3])
        #expect(throws: CompiledModelError.self) { try RawInflate.inflate(trailing) }
    }

    @Test("A DEFLATE bomb stops at the cap")
    func deflateBomb() throws {
        let bomb = try Self.rawDeflate(zeros: 80 * 1024 * 1024)
        #expect(bomb.count < 200 * 1024)
        #expect(throws: CompiledModelError.inflatedSizeLimitExceeded(limit: 64 * 1024 * 1024)) {
            try CompiledModelDecoder.decodeModelCache(bomb)
        }
        // A smaller cap applies to a real model too.
        let limits = DecodingLimits(maximumInflatedSize: 1000)
        #expect(throws: CompiledModelError.inflatedSizeLimitExceeded(limit: 1000)) {
            try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache("SampleModel_V1"), limits: limits)
        }
    }

    /// Raw DEFLATE of `zeros` zero bytes, made with zlib.
    static func rawDeflate(zeros: Int) throws -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CompiledModelFixtureError.malformed("deflateInit2")
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](repeating: 0, count: 1024 * 1024)
        var output = Data()
        var out = [UInt8](repeating: 0, count: 64 * 1024)
        var remaining = zeros
        while true {
            let chunk = min(remaining, input.count)
            remaining -= chunk
            let flush = remaining == 0 ? Z_FINISH : Z_NO_FLUSH
            var status: Int32 = Z_OK
            try input.withUnsafeMutableBufferPointer { inputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(chunk)
                repeat {
                    status = out.withUnsafeMutableBufferPointer { outBuffer in
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        return deflate(&stream, flush)
                    }
                    guard status != Z_STREAM_ERROR else { throw CompiledModelFixtureError.malformed("deflate") }
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                } while stream.avail_out == 0
            }
            if flush == Z_FINISH { break }
        }
        return output
    }

    // MARK: Binary property lists

    @Test("Malformed binary property lists throw")
    func malformedPropertyLists() throws {
        let good = TestPlistWriter.write([.string("a"), .array([0])], top: 1)
        #expect(throws: Never.self) { try BinaryPropertyList.parse(good) }
        // A container that contains itself.
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(TestPlistWriter.write([.array([0])], top: 0)) }
        #expect(throws: CompiledModelError.self) {
            try BinaryPropertyList.parse(TestPlistWriter.write([.string("k"), .dictionary([(0, 1)])], top: 1))
        }
        // References and trailers that lie.
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(TestPlistWriter.write([.array([7])], top: 0)) }
        #expect(throws: CompiledModelError.self) {
            try BinaryPropertyList.parse(TestPlistWriter.write([.string("a")], top: 0, trailer: .init(objectCount: UInt64.max)))
        }
        #expect(throws: CompiledModelError.self) {
            try BinaryPropertyList.parse(TestPlistWriter.write([.string("a")], top: 0, trailer: .init(objectCount: 3)))
        }
        #expect(throws: CompiledModelError.self) {
            try BinaryPropertyList.parse(TestPlistWriter.write([.string("a")], top: 0, trailer: .init(topObject: 5)))
        }
        #expect(throws: CompiledModelError.self) {
            try BinaryPropertyList.parse(TestPlistWriter.write([.string("a")], top: 0, trailer: .init(offsetTableOffset: 1 << 40)))
        }
        // A length that runs past the end.
        var long = TestPlistWriter.write([.data([1, 2, 3])], top: 0)
        long[8] = 0x4E
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(long) }
        // Not a binary property list at all.
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(Data("<?xml version=\"1.0\"?><plist/>".utf8)) }
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(Data("bplist15".utf8) + Data(count: 40)) }
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(Data()) }
    }

    @Test("Deep nesting throws instead of exhausting the stack")
    func deepNesting() throws {
        // 100,000 arrays, each holding the next.
        let depth = 100_000
        var objects: [TestPlistWriter.Raw] = (0..<depth).map { .array([$0 + 1]) }
        objects.append(.string("leaf"))
        #expect(throws: CompiledModelError.limitExceeded(what: "levels of property-list nesting", limit: 128)) {
            try BinaryPropertyList.parse(TestPlistWriter.write(objects, top: 0))
        }
        // The same in a keyed archive: NSEntities is an NSArray holding an NSArray holding … 10,000 deep.
        var archived: [PropertyListNode] = [.string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel")]
        let arrayClass = UInt64(3 + 10_000)
        for level in 0..<10_000 {
            archived.append(.dictionary(["$class": .uid(arrayClass), "NS.objects": .array([.uid(UInt64(4 + level))])]))
        }
        archived.append(TestPlistWriter.classEntry("NSArray"))
        #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(TestPlistWriter.keyedArchive(archived)) }
    }

    @Test("Shared containers cannot multiply the work")
    func sharedContainers() throws {
        // 60 levels of arrays that each hold the next twice: 2^60 paths.
        var objects: [TestPlistWriter.Raw] = (0..<60).map { .array([$0 + 1, $0 + 1]) }
        objects.append(.string("leaf"))
        #expect(throws: CompiledModelError.self) { try BinaryPropertyList.parse(TestPlistWriter.write(objects, top: 0)) }
    }

    // MARK: Keyed archives

    func modelObject(entities: PropertyListNode) -> PropertyListNode {
        .dictionary(["$class": .uid(2), "NSEntities": entities])
    }

    @Test("A CF$UID cycle throws")
    func uidCycle() throws {
        // NSEntities is an NSArray whose only element is itself.
        let selfContaining = TestPlistWriter.keyedArchive([
            .string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel"),
            .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(3)])]), TestPlistWriter.classEntry("NSArray"),
        ])
        #expect(throws: CompiledModelError.referenceCycle(3)) { try CompiledModelDecoder.decodeArchive(selfContaining) }
        // Two dictionaries holding each other.
        let mutual = TestPlistWriter.keyedArchive([
            .string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel"),
            .dictionary(["$class": .uid(5), "NS.keys": .array([.uid(6)]), "NS.objects": .array([.uid(4)])]),
            .dictionary(["$class": .uid(5), "NS.keys": .array([.uid(6)]), "NS.objects": .array([.uid(3)])]),
            TestPlistWriter.classEntry("NSDictionary"), .string("key"),
        ])
        #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(mutual) }
        // $top pointing outside $objects, and a reference outside $objects.
        let outside = TestPlistWriter.keyedArchive([.string("$null"), modelObject(entities: .uid(99)), TestPlistWriter.classEntry("NSManagedObjectModel")])
        #expect(throws: CompiledModelError.invalidReference(99)) { try CompiledModelDecoder.decodeArchive(outside) }
    }

    @Test("A wrong $class throws")
    func wrongClass() throws {
        // $class pointing at a string, at nothing, at itself; not a reference; a class without a name.
        let cases: [[PropertyListNode]] = [
            [.string("$null"), .dictionary(["$class": .uid(2)]), .string("NSManagedObjectModel")],
            [.string("$null"), .dictionary(["$class": .uid(40)])],
            [.string("$null"), .dictionary(["$class": .uid(1)])],
            [.string("$null"), .dictionary(["$class": .integer(2)]), TestPlistWriter.classEntry("NSManagedObjectModel")],
            [.string("$null"), .dictionary(["$class": .uid(2)]), .dictionary(["$classes": .array([])])],
            [.string("$null"), .dictionary(["$class": .uid(2)]), .dictionary(["$classname": .string("X"), "$classes": .string("X")])],
        ]
        for objects in cases {
            #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(TestPlistWriter.keyedArchive(objects)) }
        }
        // A root of another class.
        let other = TestPlistWriter.keyedArchive([.string("$null"), .dictionary(["$class": .uid(2)]), TestPlistWriter.classEntry("NSDate")])
        #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(other) }
        // An entity list holding a string, and one holding an object of another class.
        let stringEntity = TestPlistWriter.keyedArchive([
            .string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel"),
            .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(5)])]), TestPlistWriter.classEntry("NSArray"), .string("Entity"),
        ])
        #expect(throws: CompiledModelError.unexpectedClass(expected: "NSEntityDescription", found: "a string", context: "NSEntities")) {
            try CompiledModelDecoder.decodeArchive(stringEntity)
        }
        let fakeEntity = TestPlistWriter.keyedArchive([
            .string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel"),
            .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(5)])]), TestPlistWriter.classEntry("NSArray"),
            .dictionary(["$class": .uid(6), "NSEntityName": .uid(7)]), TestPlistWriter.classEntry("NSRelationshipDescription"), .string("E"),
        ])
        #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(fakeEntity) }
    }

    @Test("Values of the wrong kind throw; unknown keys warn")
    func wrongValues() throws {
        func archive(entityFields: [String: PropertyListNode], extra: [PropertyListNode] = []) -> Data {
            var fields = entityFields
            fields["$class"] = .uid(6)
            return TestPlistWriter.keyedArchive([
                .string("$null"), modelObject(entities: .uid(3)), TestPlistWriter.classEntry("NSManagedObjectModel"),
                .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(5)])]), TestPlistWriter.classEntry("NSArray"),
                .dictionary(fields), TestPlistWriter.classEntry("NSEntityDescription"), .string("E"),
            ] + extra)
        }
        let good = try CompiledModelDecoder.decodeArchive(archive(entityFields: ["NSEntityName": .uid(7), "NSSomethingNew": .integer(1)]))
        #expect(good.entities.map(\.name) == ["E"])
        #expect(good.warnings == [DecodingWarning(location: "E", message: "unknown key 'NSSomethingNew' of NSEntityDescription")])
        #expect(throws: CompiledModelError.missingKey(key: "NSEntityName", className: "NSEntityDescription")) {
            try CompiledModelDecoder.decodeArchive(archive(entityFields: [:]))
        }
        #expect(throws: CompiledModelError.self) {
            try CompiledModelDecoder.decodeArchive(archive(entityFields: ["NSEntityName": .integer(3)]))
        }
        #expect(throws: CompiledModelError.self) {
            try CompiledModelDecoder.decodeArchive(archive(entityFields: ["NSEntityName": .uid(7), "NSIsAbstract": .uid(7)]))
        }
        #expect(throws: CompiledModelError.self) {
            try CompiledModelDecoder.decodeArchive(archive(entityFields: ["NSEntityName": .uid(7), "NSProperties": .uid(7)]))
        }
        // A keyed archive that is not one.
        #expect(throws: CompiledModelError.self) { try KeyedArchive(data: TestPlistWriter.write(.dictionary(["$objects": .array([])]))) }
        #expect(throws: CompiledModelError.self) { try KeyedArchive(data: TestPlistWriter.write(.array([]))) }
    }

    // MARK: Fuzzing

    @Test("Mutated real archives never crash", arguments: ["SampleModel2_V2", "SampleModel_V1", "Recipes"])
    func mutations(source: String) throws {
        let original = source == "Recipes"
            ? try CompiledModelFixtures.data("Elements/Recipes.elements")
            : try RawInflate.inflate(try CompiledModelFixtures.modelCache(source))
        var generator = SplitMix64(seed: 0xC0DE_DA7A ^ UInt64(original.count))
        var thrown = 0
        for _ in 0..<500 {
            var bytes = [UInt8](original)
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                _ = try CompiledModelDecoder.decodeArchive(Data(bytes))
            } catch is CompiledModelError {
                thrown += 1
            }
        }
        for length in stride(from: 0, to: original.count, by: max(1, original.count / 300)) {
            #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decodeArchive(original.prefix(length)) }
        }
        #expect(thrown > 0)
    }
}

/// A small deterministic generator, so fuzzing failures reproduce.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
