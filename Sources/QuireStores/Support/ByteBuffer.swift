import QuireCore
import Foundation

/// Appends little-endian numbers, strings and bytes to a growing buffer (the binary store's writer).
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package var count: Int { bytes.count }

    package mutating func reserve(_ extra: Int) { bytes.reserveCapacity(bytes.count + extra) }

    @inline(__always) package mutating func append(_ value: UInt8) { bytes.append(value) }

    @inline(__always) package mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func append(_ value: Double) { append(value.bitPattern) }

    package mutating func append(bytes other: some Collection<UInt8>) {
        if other.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: other)
        }
    }

    /// A 32-bit length followed by the UTF-8 bytes.
    package mutating func append(string: String) {
        var string = string
        string.withUTF8 { utf8 in
            append(UInt32(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A 64-bit length followed by the bytes.
    package mutating func append(data: Data) {
        append(UInt64(data.count))
        data.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Overwrites a 32-bit value at an offset already written.
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }

    /// Overwrites a 64-bit value at an offset already written.
    mutating func patch(_ value: UInt64, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<8 { bytes[offset + index] = raw[index] }
        }
    }

    package var data: Data { Data(bytes) }

    /// Empties the buffer, keeping its capacity (a writer that streams its bytes out in pieces).
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// A writer that appends to `buffer`'s bytes, which it takes (leaving `buffer` empty) until
    /// ``takeBytes()`` hands them back: appending then copies nothing.
    package init(taking buffer: inout [UInt8]) {
        bytes = buffer
        buffer = []
    }

    /// The bytes written, handed over (the writer is left empty).
    mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes = []
        return taken
    }
}

/// Reads little-endian values from bytes, every read bounds-checked: running past the end throws an error
/// naming the file, what was being read and the offset.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    package private(set) var offset: Int
    let end: Int
    let file: URL
    /// What is being read, for messages (`"the objects section"`).
    var what: String

    init(_ buffer: UnsafeRawBufferPointer, from start: Int = 0, to end: Int? = nil, file: URL, what: String) {
        self.buffer = buffer
        self.offset = start
        self.end = end ?? buffer.count
        self.file = file
        self.what = what
    }

    var remaining: Int { end - offset }

    func truncated(_ needed: Int) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "The file '\(file.path)' is truncated or corrupt: \(what) needs \(needed) more bytes at offset \(offset).",
            context: .init(file: file, position: offset))
    }

    func corrupt(_ problem: String) -> QuireError {
        QuireError(
            .fileReadCorruptFile, "The file '\(file.path)' is corrupt: \(what) \(problem) (offset \(offset)).",
            context: .init(file: file, position: offset))
    }

    @inline(__always) mutating func read<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard end - offset >= size else { throw truncated(size) }
        let value = T(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += size
        return value
    }

    @inline(__always) mutating func readByte() throws -> UInt8 {
        guard offset < end else { throw truncated(1) }
        let value = buffer[offset]
        offset += 1
        return value
    }

    @inline(__always) mutating func readDouble() throws -> Double { Double(bitPattern: try read(UInt64.self)) }

    /// A count that must not exceed what the remaining bytes can hold at `minimumSize` bytes per item.
    mutating func readCount(minimumSize: Int) throws -> Int {
        let raw = try read(UInt64.self)
        guard raw <= UInt64(Int.max), minimumSize == 0 || Int(raw) <= remaining / max(1, minimumSize) else {
            throw corrupt("declares \(raw) items, more than its bytes can hold")
        }
        return Int(raw)
    }

    mutating func readString() throws -> String {
        let length = Int(try read(UInt32.self))
        guard end - offset >= length else { throw truncated(length) }
        let start = buffer.baseAddress.map { $0 + offset }
        offset += length
        guard let start else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: length).bindMemory(to: UInt8.self), as: UTF8.self)
    }

    mutating func readBytes(_ length: Int) throws -> UnsafeRawBufferPointer {
        guard length >= 0, end - offset >= length else { throw truncated(length) }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length])
        offset += length
        return slice
    }

    mutating func readData() throws -> Data {
        let raw = try read(UInt64.self)
        guard raw <= UInt64(remaining) else { throw truncated(Int(clamping: raw)) }
        return Data(try readBytes(Int(raw)))
    }

    mutating func skip(to position: Int) { offset = position }
}
