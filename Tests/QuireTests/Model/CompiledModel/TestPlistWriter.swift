import QuireCore
import Foundation

/// Writes binary property lists for hostile-input tests, including ones no honest writer makes (containers
/// that contain themselves, lying trailers, `CF$UID`s anywhere).
enum TestPlistWriter {
    /// One object of the object table; containers refer to other objects by index.
    enum Raw {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case real(Double)
        case data([UInt8])
        case uid(UInt64)
        case array([Int])
        case dictionary([(key: Int, value: Int)])
    }

    /// Trailer fields to override, to make the trailer lie.
    struct Trailer {
        var objectCount: UInt64?
        var topObject: UInt64?
        var offsetTableOffset: UInt64?
    }

    static func write(_ objects: [Raw], top: Int, trailer: Trailer = Trailer()) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        func length(_ marker: UInt8, _ count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes.append(marker | 0x0F)
                bytes.append(0x13)
                bytes.append(contentsOf: bigEndian(UInt64(count), 8))
            }
        }
        for object in objects {
            offsets.append(UInt64(bytes.count))
            switch object {
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    length(0x50, text.utf8.count)
                    bytes.append(contentsOf: text.utf8)
                } else {
                    let units = Array(text.utf16)
                    length(0x60, units.count)
                    for unit in units { bytes.append(UInt8(unit >> 8)); bytes.append(UInt8(unit & 0xFF)) }
                }
            case .integer(let value):
                bytes.append(0x13)
                bytes.append(contentsOf: bigEndian(UInt64(bitPattern: value), 8))
            case .boolean(let value):
                bytes.append(value ? 0x09 : 0x08)
            case .real(let value):
                bytes.append(0x23)
                bytes.append(contentsOf: bigEndian(value.bitPattern, 8))
            case .data(let value):
                length(0x40, value.count)
                bytes.append(contentsOf: value)
            case .uid(let value):
                bytes.append(0x83)
                bytes.append(contentsOf: bigEndian(value, 4))
            case .array(let references):
                length(0xA0, references.count)
                for reference in references { bytes.append(contentsOf: bigEndian(UInt64(reference), 4)) }
            case .dictionary(let entries):
                length(0xD0, entries.count)
                for entry in entries { bytes.append(contentsOf: bigEndian(UInt64(entry.key), 4)) }
                for entry in entries { bytes.append(contentsOf: bigEndian(UInt64(entry.value), 4)) }
            }
        }
        let tableOffset = UInt64(bytes.count)
        for offset in offsets { bytes.append(contentsOf: bigEndian(offset, 4)) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0])
        bytes.append(4)  // offset size
        bytes.append(4)  // reference size
        bytes.append(contentsOf: bigEndian(trailer.objectCount ?? UInt64(objects.count), 8))
        bytes.append(contentsOf: bigEndian(trailer.topObject ?? UInt64(top), 8))
        bytes.append(contentsOf: bigEndian(trailer.offsetTableOffset ?? tableOffset, 8))
        return Data(bytes)
    }

    static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// Writes a tree of nodes (no sharing).
    static func write(_ node: PropertyListNode) -> Data {
        var objects: [Raw] = []
        let top = flatten(node, into: &objects)
        return write(objects, top: top)
    }

    private static func flatten(_ node: PropertyListNode, into objects: inout [Raw]) -> Int {
        let index = objects.count
        switch node {
        case .null: objects.append(.string("$null"))
        case .boolean(let value): objects.append(.boolean(value))
        case .integer(let value): objects.append(.integer(value))
        case .real(let value): objects.append(.real(value))
        case .date(let value): objects.append(.real(value.timeIntervalSinceReferenceDate))
        case .data(let value): objects.append(.data([UInt8](value)))
        case .string(let value): objects.append(.string(value))
        case .uid(let value): objects.append(.uid(value))
        case .array(let elements):
            objects.append(.array([]))
            let references = elements.map { flatten($0, into: &objects) }
            objects[index] = .array(references)
        case .dictionary(let entries):
            objects.append(.dictionary([]))
            var pairs: [(key: Int, value: Int)] = []
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                let keyIndex = flatten(.string(key), into: &objects)
                pairs.append((keyIndex, flatten(value, into: &objects)))
            }
            objects[index] = .dictionary(pairs)
        }
        return index
    }

    /// A keyed archive around `$objects` entries (index 0 should be `"$null"`, the root is 1).
    static func keyedArchive(_ objects: [PropertyListNode]) -> Data {
        write(.dictionary([
            "$archiver": .string("NSKeyedArchiver"),
            "$version": .integer(100000),
            "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array(objects),
        ]))
    }

    /// A `$classname`/`$classes` entry.
    static func classEntry(_ name: String, _ superclasses: [String] = ["NSObject"]) -> PropertyListNode {
        .dictionary(["$classname": .string(name), "$classes": .array(([name] + superclasses).map { .string($0) })])
    }
}
