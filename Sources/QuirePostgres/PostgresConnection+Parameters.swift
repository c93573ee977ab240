import QuireCore
import QuireStores
import Foundation

extension PostgresConnection {
    /// PostgreSQL's type numbers (`pg_type.oid`) of the parameters this connection sends in binary form.
    enum TypeOID {
        static let unknown: UInt32 = 0
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let varchar: UInt32 = 1043
        static let numeric: UInt32 = 1700
    }

    /// The parameter types a statement is prepared with, from the first values it runs with: integers `bigint`,
    /// reals `double precision`, strings `text`, bytes `bytea`; nulls and decimals left to the server to infer
    /// from the statement (a decimal goes as text into a `NUMERIC` column). A parameter whose type this side
    /// declared is sent in binary form; one whose type the server inferred goes as text (or as bytes for
    /// `bytea`), which is right whatever type the server chose.
    static func declaredTypes(_ values: [Value]) -> [UInt32] {
        values.map { value in
            switch value {
            case .null, .numeric: return TypeOID.unknown
            case .integer: return TypeOID.int8
            case .double: return TypeOID.float8
            case .text: return TypeOID.text
            case .bytes: return TypeOID.bytea
            }
        }
    }

    /// Calls `body` with libpq's parameter arrays for `values` (count, value pointers, lengths, formats):
    /// integers and reals in binary form (big-endian, 8 bytes) where `types` declares `bigint` and `double
    /// precision`, strings as their UTF-8 bytes where it declares `text`, bytes always in binary form; any other
    /// value in text form ending in a NUL as libpq reads text parameters. A string holding a NUL is refused,
    /// never cut short. A null is a null pointer. The values are written into the connection's parameter buffer
    /// (``PostgresParameterBuffer``), reused from statement to statement: libpq copies the parameters into its
    /// output buffer before the call in `body` returns.
    func withParameters<T>(
        _ values: [Value], types: [UInt32],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> T
    ) throws -> T {
        // A statement run while another's parameters are being built (never today) gets a buffer of its own.
        let buffer = parameterBuffer.isInUse ? PostgresParameterBuffer() : parameterBuffer
        buffer.isInUse = true
        defer {
            buffer.isInUse = false
            buffer.shrinkIfLarge()
        }
        try buffer.encode(values, types: types, url: url)
        return try body(Int32(values.count), buffer.pointers, buffer.lengths, buffer.formats)
    }
}

/// The memory a connection writes its parameters into, kept from statement to statement so that sending a row
/// allocates nothing once the buffer has grown to the largest row: the value bytes (one arena) and libpq's three
/// arrays (value pointers, lengths, formats). Confined to its connection, which is not thread-safe.
final class PostgresParameterBuffer {
    private var arena: UnsafeMutableRawPointer
    private var arenaCapacity: Int
    private(set) var pointers: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private(set) var lengths: UnsafeMutablePointer<Int32>
    private(set) var formats: UnsafeMutablePointer<Int32>
    private var slotCapacity: Int
    /// Offsets into the arena while values are written (pointers are set once the arena stops moving).
    private var offsets: UnsafeMutablePointer<Int>
    /// Whether a statement's parameters are being built in this buffer now.
    var isInUse = false

    init() {
        arenaCapacity = 4096
        arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 8)
        slotCapacity = 16
        pointers = .allocate(capacity: slotCapacity)
        lengths = .allocate(capacity: slotCapacity)
        formats = .allocate(capacity: slotCapacity)
        offsets = .allocate(capacity: slotCapacity)
    }

    deinit {
        arena.deallocate()
        pointers.deallocate()
        lengths.deallocate()
        formats.deallocate()
        offsets.deallocate()
    }

    /// The arena's size kept between statements: one that grew past it for a large value (a `bytea` of many
    /// megabytes) is given back after that statement.
    static let keptArenaBytes = 1 << 20

    /// Gives back an arena that grew past ``keptArenaBytes``.
    func shrinkIfLarge() {
        guard arenaCapacity > Self.keptArenaBytes * 2 else { return }
        arena.deallocate()
        arenaCapacity = Self.keptArenaBytes
        arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 8)
    }

    /// Makes room for `count` parameters (their slots' contents are rewritten before use).
    private func reserveSlots(_ count: Int) {
        guard count > slotCapacity else { return }
        let capacity = max(count, slotCapacity * 2)
        pointers.deallocate()
        lengths.deallocate()
        formats.deallocate()
        offsets.deallocate()
        pointers = .allocate(capacity: capacity)
        lengths = .allocate(capacity: capacity)
        formats = .allocate(capacity: capacity)
        offsets = .allocate(capacity: capacity)
        slotCapacity = capacity
    }

    /// Makes room for `bytes` more bytes after the first `used`, keeping those.
    @inline(__always)
    private func reserveBytes(_ bytes: Int, used: Int) {
        guard used + bytes > arenaCapacity else { return }
        let capacity = max(used + bytes, arenaCapacity * 2)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        // Safe: `used` bytes were written into the old arena, and the new one holds more than that.
        grown.copyMemory(from: arena, byteCount: used)
        arena.deallocate()
        arena = grown
        arenaCapacity = capacity
    }

    /// Writes the parameters (see ``PostgresConnection/withParameters(_:types:_:)``) and sets the three arrays.
    func encode(_ values: [PostgresConnection.Value], types: [UInt32], url: PostgresURL) throws {
        reserveSlots(values.count)
        var used = 0
        // Every write below first reserves the bytes it writes, so it stays inside the arena.
        func appendText(_ bytes: UnsafeBufferPointer<UInt8>, terminated: Bool) {
            reserveBytes(bytes.count + 1, used: used)
            if let base = bytes.baseAddress, bytes.count > 0 { (arena + used).copyMemory(from: base, byteCount: bytes.count) }
            if terminated { arena.storeBytes(of: 0, toByteOffset: used + bytes.count, as: UInt8.self) }
            used += bytes.count + (terminated ? 1 : 0)
        }
        func appendTextForm(_ text: String) {
            var text = text
            text.withUTF8 { appendText($0, terminated: true) }
        }
        for index in values.indices {
            let declared = index < types.count ? types[index] : PostgresConnection.TypeOID.unknown
            formats[index] = 1
            offsets[index] = used
            switch values[index] {
            case .null:
                offsets[index] = -1
                lengths[index] = 0
                formats[index] = 0
            case .integer(let v):
                if declared == PostgresConnection.TypeOID.int8 {
                    reserveBytes(8, used: used)
                    arena.storeBytes(of: v.bigEndian, toByteOffset: used, as: Int64.self)
                    lengths[index] = 8
                    used += 8
                } else {
                    formats[index] = 0
                    reserveBytes(21, used: used)
                    let length = Self.writeDecimal(v, into: arena + used)
                    lengths[index] = Int32(length)
                    used += length + 1
                }
            case .double(let v):
                if declared == PostgresConnection.TypeOID.float8 {
                    reserveBytes(8, used: used)
                    arena.storeBytes(of: v.bitPattern.bigEndian, toByteOffset: used, as: UInt64.self)
                    lengths[index] = 8
                    used += 8
                } else {
                    formats[index] = 0
                    let text = PostgresConnection.Value.text(of: v)
                    lengths[index] = Int32(text.utf8.count)
                    appendTextForm(text)
                }
            case .text(var v):
                // libpq reads a text parameter up to its first NUL, which would cut the text short without a word;
                // PostgreSQL's text cannot hold U+0000 at all.
                guard !v.withUTF8({ $0.contains(0) }) else {
                    throw QuireError(
                        .postgres,
                        "Parameter \(index + 1) is text holding a NUL character (U+0000), which PostgreSQL's text cannot "
                            + "store (the store '\(url.redacted)').")
                }
                let binary = declared == PostgresConnection.TypeOID.text
                formats[index] = binary ? 1 : 0
                guard let length = Int32(exactly: v.utf8.count) else { throw Self.tooLarge(index, v.utf8.count, url) }
                lengths[index] = length
                v.withUTF8 { appendText($0, terminated: !binary) }
            case .numeric(let v):
                formats[index] = 0
                guard let length = Int32(exactly: v.utf8.count) else { throw Self.tooLarge(index, v.utf8.count, url) }
                lengths[index] = length
                appendTextForm(v)
            case .bytes(let v):
                guard v.count <= Int(Int32.max) else { throw Self.tooLarge(index, v.count, url) }
                reserveBytes(v.count, used: used)
                lengths[index] = Int32(v.count)
                v.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress, bytes.count > 0 { (arena + used).copyMemory(from: base, byteCount: bytes.count) }
                }
                used += v.count
            }
        }
        // The arena no longer moves: point at the values.
        for index in values.indices {
            let offset = offsets[index]
            pointers[index] = offset < 0 ? nil : UnsafePointer((arena + offset).assumingMemoryBound(to: CChar.self))
        }
    }

    /// The error of a value longer than libpq's lengths (32-bit) can say.
    private static func tooLarge(_ index: Int, _ count: Int, _ url: PostgresURL) -> QuireError {
        QuireError(
            .postgres,
            "Parameter \(index + 1) holds \(count) bytes, more than one PostgreSQL value can take (the store '\(url.redacted)').")
    }

    /// Writes an integer's decimal text and a NUL at `start` (21 bytes at most, reserved by the caller); returns
    /// the text's length.
    private static func writeDecimal(_ value: Int64, into start: UnsafeMutableRawPointer) -> Int {
        var magnitude = value.magnitude
        var length = 0
        repeat {
            length += 1
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { length += 1 }
        // Digits from the last, right to left: `length` is at most 20, plus the NUL.
        magnitude = value.magnitude
        var position = length
        start.storeBytes(of: 0, toByteOffset: position, as: UInt8.self)
        repeat {
            position -= 1
            start.storeBytes(of: UInt8(ascii: "0") + UInt8(magnitude % 10), toByteOffset: position, as: UInt8.self)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { start.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 0, as: UInt8.self) }
        return length
    }
}
