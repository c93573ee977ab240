import QuireCore
import Foundation

/// Decodes base64 straight from bytes, for the canonical form Quire (and Foundation) write: alphabet
/// characters only, a length that is a multiple of four, at most two `=` at the end, and zero bits where the
/// padding leaves some unused.
///
/// Anything else gets nil and is left to Foundation's more lenient decoder, so this is a fast path that never
/// decodes differently from `Data(base64Encoded:options:)`: it accepts only input that decoder reads the
/// standard way.
package enum Base64Bytes {
    /// The 6-bit value of each byte of the standard alphabet; 0xFF for every other byte. A pointer rather than an
    /// array: reading it touches no reference count, which two threads decoding at once would contend for.
    /// `nonisolated(unsafe)`: written once by the initializer, then only read, and never freed.
    nonisolated(unsafe) private static let values: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0xFF, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return UnsafePointer(table)
    }()

    /// The decoded bytes of canonical base64, or nil when `bytes` are empty or not canonical base64.
    package static func decodeCanonical(_ bytes: UnsafeRawBufferPointer) -> Data? {
        guard let decodedCount = canonicalDecodedCount(bytes) else { return nil }
        var data = Data(count: decodedCount)
        let decoded = data.withUnsafeMutableBytes { decodeCanonical(bytes, into: $0) }
        return decoded ? data : nil
    }

    /// The number of bytes canonical base64 of this length and padding decodes to; nil when `bytes` are empty
    /// or their length is not a multiple of four (their characters are checked by
    /// ``decodeCanonical(_:into:)``).
    static func canonicalDecodedCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard count > 0, count % 4 == 0 else { return nil }
        let equals = UInt8(ascii: "=")
        let padding = bytes[count - 1] == equals ? (bytes[count - 2] == equals ? 2 : 1) : 0
        return count / 4 * 3 - padding
    }

    /// Decodes canonical base64 into `output`, which holds ``canonicalDecodedCount(_:)`` bytes; false (with
    /// `output` partly written) when `bytes` are not canonical base64.
    package static func decodeCanonical(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard let decodedCount = canonicalDecodedCount(bytes), output.count == decodedCount else { return false }
        let count = bytes.count
        let equals = UInt8(ascii: "=")
        let padding = bytes[count - 1] == equals ? (bytes[count - 2] == equals ? 2 : 1) : 0
        let values = Self.values
        let whole = padding > 0 ? count - 4 : count
        var index = 0
        var out = 0
        while index < whole {
            let a = values[Int(bytes[index])]
            let b = values[Int(bytes[index + 1])]
            let c = values[Int(bytes[index + 2])]
            let d = values[Int(bytes[index + 3])]
            guard (a | b | c | d) & 0xC0 == 0 else { return false }
            output[out] = a << 2 | b >> 4
            output[out + 1] = b << 4 | c >> 2
            output[out + 2] = c << 6 | d
            index += 4
            out += 3
        }
        guard padding > 0 else { return true }
        let a = values[Int(bytes[index])]
        let b = values[Int(bytes[index + 1])]
        guard (a | b) & 0xC0 == 0 else { return false }
        output[out] = a << 2 | b >> 4
        if padding == 2 { return b & 0x0F == 0 }
        let c = values[Int(bytes[index + 2])]
        guard c & 0xC0 == 0, c & 0x03 == 0 else { return false }
        output[out + 1] = b << 4 | c >> 2
        return true
    }
}
