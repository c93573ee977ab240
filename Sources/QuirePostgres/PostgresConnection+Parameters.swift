import QuireCore
import QuireStores
import Foundation

extension PostgresConnection {
    /// Calls `body` with libpq's parameter arrays for `values` (count, value pointers, lengths, formats): numbers
    /// and strings in text form, each ending in a NUL as libpq reads text parameters (a string holding a NUL is
    /// refused, never cut short); bytes in binary form with
    /// their length; a null as a null pointer. Every value is written into one buffer, freed when `body`
    /// returns (libpq copies the parameters into its output buffer before returning).
    func withParameters<T>(
        _ values: [Value],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> T
    ) throws -> T {
        var size = 0
        for value in values {
            switch value {
            case .null: break
            case .integer: size += 21  // "-9223372036854775808" and its NUL
            case .double: size += 40  // the shortest round-trip text is at most 24 bytes
            case .text(let v): size += v.utf8.count + 1
            case .bytes(let v): size += v.count
            }
        }
        let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 1)
        defer { arena.deallocate() }
        var offsets = [Int](repeating: -1, count: values.count)
        var lengths = [Int32](repeating: 0, count: values.count)
        var formats = [Int32](repeating: 0, count: values.count)
        var used = 0
        func appendText(_ bytes: UnsafeBufferPointer<UInt8>) {
            // Safe: `size` counted every text's bytes and its NUL before the arena was allocated.
            if let base = bytes.baseAddress, bytes.count > 0 {
                arena.baseAddress?.advanced(by: used).copyMemory(from: base, byteCount: bytes.count)
            }
            arena[used + bytes.count] = 0
            used += bytes.count + 1
        }
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                continue
            case .integer(let v):
                offsets[index] = used
                lengths[index] = Int32(Self.writeDecimal(v, into: arena, at: used))
                used += Int(lengths[index]) + 1
            case .double(let v):
                offsets[index] = used
                var text = Value.text(of: v)
                lengths[index] = Int32(text.utf8.count)
                text.withUTF8 { appendText($0) }
            case .text(var v):
                offsets[index] = used
                lengths[index] = Int32(v.utf8.count)
                // libpq reads a text parameter up to its first NUL, which would cut the text short without a word;
                // PostgreSQL's text cannot hold U+0000 at all.
                guard !v.withUTF8({ $0.contains(0) }) else {
                    throw QuireError(
                        .postgres,
                        "Parameter \(index + 1) is text holding a NUL character (U+0000), which PostgreSQL's text cannot "
                            + "store (the store '\(url.redacted)').")
                }
                v.withUTF8 { appendText($0) }
            case .bytes(let v):
                offsets[index] = used
                lengths[index] = Int32(v.count)
                formats[index] = 1
                // Safe: `size` counted these bytes.
                if let base = arena.baseAddress { v.copyBytes(to: base.advanced(by: used).assumingMemoryBound(to: UInt8.self), count: v.count) }
                used += v.count
            }
        }
        guard let base = arena.baseAddress else { return try body(Int32(values.count), nil, nil, nil) }
        let pointers = offsets.map { $0 < 0 ? nil : UnsafePointer<CChar>(base.advanced(by: $0).assumingMemoryBound(to: CChar.self)) }
        return try pointers.withUnsafeBufferPointer { p in
            try lengths.withUnsafeBufferPointer { l in
                try formats.withUnsafeBufferPointer { f in
                    try body(Int32(values.count), p.baseAddress, l.baseAddress, f.baseAddress)
                }
            }
        }
    }

    /// Writes an integer's decimal text and a NUL at `offset` (21 bytes at most); returns the text's length.
    private static func writeDecimal(_ value: Int64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var magnitude = value.magnitude
        var length = 0
        repeat {
            length += 1
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { length += 1 }
        // Digits from the last, right to left: safe, as the caller reserved 21 bytes and `length` is at most 20.
        magnitude = value.magnitude
        var position = offset + length
        buffer[position] = 0
        repeat {
            position -= 1
            buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { buffer[offset] = UInt8(ascii: "-") }
        return length
    }
}
