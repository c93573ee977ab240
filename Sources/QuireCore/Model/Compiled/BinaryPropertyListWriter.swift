import QuireSupport
import Foundation

/// Writes binary property lists (`bplist00`) whose objects refer to each other by index, `CF$UID`s included:
/// what ``KeyedArchiveWriter`` writes keyed archives with (Foundation's `PropertyListSerialization` writes no
/// `CF$UID`). Equal strings, numbers, Booleans and `CF$UID`s are written once and shared, as Foundation's writer
/// shares them; offsets and references take the fewest bytes that fit, as in Apple's files.
///
/// ```swift
/// var writer = BinaryPropertyListWriter()
/// let name = writer.string("Item")
/// let top = writer.dictionary([(writer.string("name"), name)])
/// let bytes = writer.data(top: top)
/// ```
struct BinaryPropertyListWriter {
    /// One object, its containers' elements as indexes of other objects.
    private enum Object {
        case string(String)
        case integer(Int64)
        case real(Double)
        case boolean(Bool)
        case data(Data)
        case date(Date)
        case uid(UInt64)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private var objects: [Object] = []
    private var shared: [String: Int] = [:]

    /// An empty list.
    init() {}

    private mutating func add(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    private mutating func shared(_ key: String, _ object: Object) -> Int {
        if let known = shared[key] { return known }
        let index = add(object)
        shared[key] = index
        return index
    }

    /// A string (shared).
    package mutating func string(_ text: String) -> Int { shared("s" + text, .string(text)) }
    /// An integer (shared).
    mutating func integer(_ value: Int64) -> Int { shared("i\(value)", .integer(value)) }
    /// A real (shared).
    mutating func real(_ value: Double) -> Int { shared("r\(value.bitPattern)", .real(value)) }
    /// A Boolean (shared).
    mutating func boolean(_ value: Bool) -> Int { shared("b\(value)", .boolean(value)) }
    /// A `CF$UID` (shared).
    mutating func uid(_ value: UInt64) -> Int { shared("u\(value)", .uid(value)) }
    /// Bytes.
    mutating func data(_ value: Data) -> Int { add(.data(value)) }
    /// A date.
    mutating func date(_ value: Date) -> Int { add(.date(value)) }
    /// An array of objects.
    mutating func array(_ elements: [Int]) -> Int { add(.array(elements)) }
    /// A dictionary of objects (keys are strings in every list Quire writes).
    mutating func dictionary(_ pairs: [(key: Int, value: Int)]) -> Int {
        add(.dictionary(keys: pairs.map(\.key), values: pairs.map(\.value)))
    }

    /// The bytes, with `top` as the top object.
    func data(top: Int) -> Data {
        let referenceSize = Self.byteCount(UInt64(max(objects.count - 1, 0)))
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        offsets.reserveCapacity(objects.count)
        func count(_ high: UInt8, _ value: Int) {
            if value < 15 {
                bytes.append(high | UInt8(value))
            } else {
                bytes.append(high | 0x0F)
                integer(Int64(value))
            }
        }
        func integer(_ value: Int64) {
            if value < 0 {
                bytes.append(0x13)
                bytes += Self.bigEndian(UInt64(bitPattern: value), 8)
                return
            }
            let size = Self.byteCount(UInt64(value))
            let power: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
            bytes.append(0x10 | power)
            bytes += Self.bigEndian(UInt64(value), 1 << Int(power))
        }
        func references(_ indexes: [Int]) {
            for index in indexes { bytes += Self.bigEndian(UInt64(index), referenceSize) }
        }
        for object in objects {
            offsets.append(UInt64(bytes.count))
            switch object {
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    count(0x50, text.utf8.count)
                    bytes += text.utf8
                } else {
                    let units = Array(text.utf16)
                    count(0x60, units.count)
                    for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                }
            case .integer(let value): integer(value)
            case .real(let value):
                bytes.append(0x23)
                bytes += Self.bigEndian(value.bitPattern, 8)
            case .boolean(let value): bytes.append(value ? 0x09 : 0x08)
            case .data(let value):
                count(0x40, value.count)
                bytes += value
            case .date(let value):
                bytes.append(0x33)
                bytes += Self.bigEndian(value.timeIntervalSinceReferenceDate.bitPattern, 8)
            case .uid(let value):
                let size = Self.byteCount(value)
                bytes.append(0x80 | UInt8(size - 1))
                bytes += Self.bigEndian(value, size)
            case .array(let elements):
                count(0xA0, elements.count)
                references(elements)
            case .dictionary(let keys, let values):
                count(0xD0, keys.count)
                references(keys)
                references(values)
            }
        }
        let tableOffset = UInt64(bytes.count)
        let offsetSize = Self.byteCount(tableOffset)
        for offset in offsets { bytes += Self.bigEndian(offset, offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bytes += Self.bigEndian(UInt64(objects.count), 8)
        bytes += Self.bigEndian(UInt64(top), 8)
        bytes += Self.bigEndian(tableOffset, 8)
        return Data(bytes)
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
