import QuireSupport
import Foundation

/// A bounded reader of binary property lists (`bplist00`), the container format of keyed archives.
///
/// Foundation's `PropertyListSerialization` parses these on Linux too, but it hands `CF$UID` references back
/// as an internal class whose value no public API exposes, so keyed archives cannot be resolved through it.
/// This reader keeps references as ``PropertyListNode/uid(_:)`` and checks every offset, length and count
/// against the data and against ``DecodingLimits``: malformed input throws, it never traps.
///
/// An object the list refers to more than once (writers share equal strings, and hostile lists share anything) is
/// read once: every reference shares the node, and charges the ``DecodingBudget`` with the node's whole size.
package enum BinaryPropertyList {
    /// Parses a binary property list.
    ///
    /// - Parameters:
    ///   - data: The bytes, starting with `bplist00`.
    ///   - limits: Bounds on size, object count, nesting and collection sizes.
    /// - Returns: The top object.
    /// - Throws: ``CompiledModelError/malformedPropertyList(_:)`` naming what is wrong,
    ///   ``CompiledModelError/unsupportedPropertyListFormat(_:)`` for XML or other versions,
    ///   ``CompiledModelError/limitExceeded(what:limit:)`` and ``CompiledModelError/inputTooLarge(size:limit:)``.
    package static func parse(_ data: Data, limits: DecodingLimits = .default, budget: DecodingBudget? = nil) throws -> PropertyListNode {
        guard data.count <= limits.maximumInputSize else {
            throw CompiledModelError.inputTooLarge(size: data.count, limit: limits.maximumInputSize)
        }
        var reader = try Reader(bytes: [UInt8](data), limits: limits, budget: budget ?? DecodingBudget(limits: limits))
        return try reader.readTop()
    }

    /// Whether the bytes start like a binary property list.
    static func hasBinaryHeader(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(6).elementsEqual("bplist".utf8)
    }
}

/// The parsing state: the bytes, the trailer's fields, and the work done so far.
private struct Reader {
    let bytes: [UInt8]
    let limits: DecodingLimits
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableStart: Int
    /// Where the object area ends (the offset table's start).
    let objectAreaEnd: Int
    /// Objects being read, to catch a container that contains itself.
    var inProgress = Set<Int>()
    /// What the pass may still produce; every reference charges the whole object it reaches.
    let budget: DecodingBudget
    /// The objects read so far, by index, with the values and bytes each charged when it was read: a reference
    /// to an object read before shares its node and charges the same again.
    var cache: [Int: (node: PropertyListNode, values: Int, bytes: Int)] = [:]

    init(bytes: [UInt8], limits: DecodingLimits, budget: DecodingBudget) throws {
        self.bytes = bytes
        self.limits = limits
        self.budget = budget
        let headerSize = 8
        let trailerSize = 32
        guard bytes.count >= headerSize else { throw CompiledModelError.malformedPropertyList("shorter than its header") }
        guard bytes[0..<6].elementsEqual("bplist".utf8) else {
            let start = bytes.prefix(64).drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF })
            if start.first == UInt8(ascii: "<") {
                throw CompiledModelError.unsupportedPropertyListFormat("XML property lists are not read here; keyed archives of models are binary")
            }
            throw CompiledModelError.malformedPropertyList("no bplist header")
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw CompiledModelError.unsupportedPropertyListFormat("binary property list version '\(version)'")
        }
        guard bytes.count >= headerSize + trailerSize + 1 else {
            throw CompiledModelError.malformedPropertyList("too short for a trailer")
        }
        let trailer = bytes.count - trailerSize
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw CompiledModelError.malformedPropertyList("offset size \(offsetSize) or reference size \(referenceSize) is not 1 to 8")
        }
        let rawCount = Reader.bigEndian(bytes, at: trailer + 8, size: 8)
        let rawTop = Reader.bigEndian(bytes, at: trailer + 16, size: 8)
        let rawTable = Reader.bigEndian(bytes, at: trailer + 24, size: 8)
        guard rawCount >= 1 else { throw CompiledModelError.malformedPropertyList("no objects") }
        guard rawCount <= UInt64(max(0, limits.maximumObjectCount)), rawCount <= UInt64(Int32.max) else {
            throw CompiledModelError.limitExceeded(what: "property-list objects", limit: limits.maximumObjectCount)
        }
        guard rawTop < rawCount else { throw CompiledModelError.malformedPropertyList("the top object \(rawTop) is not one of \(rawCount)") }
        guard rawTable >= UInt64(headerSize), rawTable < UInt64(trailer) else {
            throw CompiledModelError.malformedPropertyList("the offset table starts outside the file")
        }
        objectCount = Int(rawCount)
        topObject = Int(rawTop)
        offsetTableStart = Int(rawTable)
        // The table must fit between its start and the trailer.
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
        guard !overflow, tableSize <= trailer - offsetTableStart else {
            throw CompiledModelError.malformedPropertyList("the offset table of \(objectCount) entries runs into the trailer")
        }
        objectAreaEnd = offsetTableStart
    }

    /// Reads an unsigned big-endian integer of 1 to 8 bytes; the caller checks the bounds.
    static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = (value << 8) | UInt64(bytes[index]) }
        return value
    }

    /// Reads `size` bytes at `offset` as an unsigned integer, checking they lie in the object area.
    func unsigned(at offset: Int, size: Int) throws -> UInt64 {
        guard offset >= 8, size >= 0, offset <= objectAreaEnd - size else {
            throw CompiledModelError.malformedPropertyList("a value at byte \(offset) runs past the object area")
        }
        return Reader.bigEndian(bytes, at: offset, size: size)
    }

    /// The file offset of object `index`.
    func offset(ofObject index: Int) throws -> Int {
        guard index >= 0, index < objectCount else {
            throw CompiledModelError.malformedPropertyList("object reference \(index) is not one of \(objectCount)")
        }
        let raw = Reader.bigEndian(bytes, at: offsetTableStart + index * offsetSize, size: offsetSize)
        guard raw >= 8, raw < UInt64(objectAreaEnd) else {
            throw CompiledModelError.malformedPropertyList("object \(index) starts at \(raw), outside the object area")
        }
        return Int(raw)
    }

    mutating func readTop() throws -> PropertyListNode {
        try readObject(topObject, depth: 0)
    }

    /// Reads the count that follows a marker whose low nibble is `0xF`, or the nibble itself; returns the
    /// count and where the payload starts.
    func count(marker: UInt8, at offset: Int) throws -> (count: Int, payload: Int) {
        let nibble = Int(marker & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        let intMarker = try unsigned(at: offset + 1, size: 1)
        guard intMarker & 0xF0 == 0x10 else {
            throw CompiledModelError.malformedPropertyList("the length at byte \(offset + 1) is not an integer")
        }
        let size = 1 << Int(intMarker & 0x0F)
        guard size <= 8 else { throw CompiledModelError.malformedPropertyList("a length of \(size) bytes at byte \(offset + 1)") }
        let value = try unsigned(at: offset + 2, size: size)
        guard value <= UInt64(Int32.max) else {
            throw CompiledModelError.malformedPropertyList("a length of \(value) at byte \(offset + 1)")
        }
        return (Int(value), offset + 2 + size)
    }

    /// Checks that `count` items of `itemSize` bytes fit from `start` to the end of the object area.
    func checkFits(_ start: Int, _ count: Int, _ itemSize: Int) throws {
        let (total, overflow) = count.multipliedReportingOverflow(by: itemSize)
        guard !overflow, start <= objectAreaEnd, total <= objectAreaEnd - start else {
            throw CompiledModelError.malformedPropertyList("\(count) items at byte \(start) run past the object area")
        }
    }

    /// Object `index`: read once, shared by every later reference, each of which charges the budget with the
    /// object's whole size.
    mutating func readObject(_ index: Int, depth: Int) throws -> PropertyListNode {
        if let known = cache[index] {
            try budget.charge(values: known.values, bytes: known.bytes)
            return known.node
        }
        guard depth <= limits.maximumDepth else {
            throw CompiledModelError.limitExceeded(what: "levels of property-list nesting", limit: limits.maximumDepth)
        }
        let (values, bytes) = (budget.values, budget.bytes)
        let node = try readNew(index, depth: depth)
        cache[index] = (node, budget.values - values, budget.bytes - bytes)
        return node
    }

    /// Reads object `index` from its bytes.
    mutating func readNew(_ index: Int, depth: Int) throws -> PropertyListNode {
        try budget.charge()
        let start = try offset(ofObject: index)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw CompiledModelError.malformedPropertyList("unknown marker 0x\(String(marker, radix: 16)) at byte \(start)")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            switch size {
            case 1, 2, 4:
                return .integer(Int64(try unsigned(at: start + 1, size: size)))
            case 8:
                return .integer(Int64(bitPattern: try unsigned(at: start + 1, size: 8)))
            case 16:
                let high = try unsigned(at: start + 1, size: 8)
                let low = try unsigned(at: start + 9, size: 8)
                guard high == 0, low <= UInt64(Int64.max) else {
                    throw CompiledModelError.malformedPropertyList("a 128-bit integer at byte \(start) does not fit 64 bits")
                }
                return .integer(Int64(low))
            default:
                throw CompiledModelError.malformedPropertyList("an integer of \(size) bytes at byte \(start)")
            }
        case 0x2:
            switch marker & 0x0F {
            case 2: return .real(Double(Float(bitPattern: UInt32(try unsigned(at: start + 1, size: 4)))))
            case 3: return .real(Double(bitPattern: try unsigned(at: start + 1, size: 8)))
            default: throw CompiledModelError.malformedPropertyList("a real of unknown size at byte \(start)")
            }
        case 0x3:
            guard marker == 0x33 else { throw CompiledModelError.malformedPropertyList("a date marker 0x\(String(marker, radix: 16)) at byte \(start)") }
            let seconds = Double(bitPattern: try unsigned(at: start + 1, size: 8))
            guard seconds.isFinite else { throw CompiledModelError.malformedPropertyList("a date that is not finite at byte \(start)") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (length, payload) = try count(marker: marker, at: start)
            try checkFits(payload, length, 1)
            try budget.charge(values: 0, bytes: length)
            return .data(Data(bytes[payload..<(payload + length)]))
        case 0x5:
            let (length, payload) = try count(marker: marker, at: start)
            try checkFits(payload, length, 1)
            try budget.charge(values: 0, bytes: length)
            // ASCII by definition; bytes above 0x7F are read as Latin-1 rather than refused.
            let ascii = bytes[payload..<(payload + length)]
            if ascii.allSatisfy({ $0 < 0x80 }) { return .string(String(decoding: ascii, as: UTF8.self)) }
            return .string(String(String.UnicodeScalarView(ascii.map { Unicode.Scalar($0) })))
        case 0x6:
            let (length, payload) = try count(marker: marker, at: start)
            try checkFits(payload, length, 2)
            try budget.charge(values: 0, bytes: 2 * length)
            var units = [UInt16]()
            units.reserveCapacity(length)
            for unit in 0..<length {
                units.append(UInt16(bytes[payload + 2 * unit]) << 8 | UInt16(bytes[payload + 2 * unit + 1]))
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            return .uid(try unsigned(at: start + 1, size: size))
        case 0xA, 0xB, 0xC:
            let (length, payload) = try count(marker: marker, at: start)
            guard length <= limits.maximumCollectionCount else {
                throw CompiledModelError.limitExceeded(what: "elements in one array", limit: limits.maximumCollectionCount)
            }
            try checkFits(payload, length, referenceSize)
            guard inProgress.insert(index).inserted else {
                throw CompiledModelError.malformedPropertyList("object \(index) contains itself")
            }
            defer { inProgress.remove(index) }
            var elements = [PropertyListNode]()
            elements.reserveCapacity(length)
            for element in 0..<length {
                let reference = Reader.bigEndian(bytes, at: payload + element * referenceSize, size: referenceSize)
                guard reference < UInt64(objectCount) else {
                    throw CompiledModelError.malformedPropertyList("object reference \(reference) is not one of \(objectCount)")
                }
                elements.append(try readObject(Int(reference), depth: depth + 1))
            }
            return .array(elements)
        case 0xD:
            let (length, payload) = try count(marker: marker, at: start)
            guard length <= limits.maximumCollectionCount else {
                throw CompiledModelError.limitExceeded(what: "entries in one dictionary", limit: limits.maximumCollectionCount)
            }
            try checkFits(payload, length, 2 * referenceSize)
            guard inProgress.insert(index).inserted else {
                throw CompiledModelError.malformedPropertyList("object \(index) contains itself")
            }
            defer { inProgress.remove(index) }
            var entries = [String: PropertyListNode](minimumCapacity: length)
            for entry in 0..<length {
                let keyReference = Reader.bigEndian(bytes, at: payload + entry * referenceSize, size: referenceSize)
                let valueReference = Reader.bigEndian(bytes, at: payload + (length + entry) * referenceSize, size: referenceSize)
                guard keyReference < UInt64(objectCount), valueReference < UInt64(objectCount) else {
                    throw CompiledModelError.malformedPropertyList("a dictionary entry at byte \(payload) refers past \(objectCount) objects")
                }
                guard case .string(let key) = try readObject(Int(keyReference), depth: depth + 1) else {
                    throw CompiledModelError.malformedPropertyList("a dictionary key at byte \(payload) is not a string")
                }
                entries[key] = try readObject(Int(valueReference), depth: depth + 1)
            }
            return .dictionary(entries)
        default:
            throw CompiledModelError.malformedPropertyList("unknown marker 0x\(String(marker, radix: 16)) at byte \(start)")
        }
    }
}
