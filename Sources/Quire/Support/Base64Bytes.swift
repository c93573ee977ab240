import Foundation

/// Decodes base64 straight from bytes, for the canonical form Quire (and Foundation) write: alphabet
/// characters only, a length that is a multiple of four, at most two `=` at the end, and zero bits where the
/// padding leaves some unused.
///
/// Anything else gets nil and is left to Foundation's more lenient decoder, so this is a fast path that never
/// decodes differently from `Data(base64Encoded:options:)`: it accepts only input that decoder reads the
/// standard way.
enum Base64Bytes {
    /// The 6-bit value of a byte of the standard alphabet; 0xFF for every other byte. (Computed rather than
    /// looked up: a shared table's reference count would be contended when two threads decode at once.)
    @inline(__always) private static func value(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return 0xFF
        }
    }

    /// The decoded bytes of canonical base64, or nil when `bytes` are empty or not canonical base64.
    static func decodeCanonical(_ bytes: UnsafeRawBufferPointer) -> Data? {
        let count = bytes.count
        guard count > 0, count % 4 == 0 else { return nil }
        let equals = UInt8(ascii: "=")
        let padding = bytes[count - 1] == equals ? (bytes[count - 2] == equals ? 2 : 1) : 0
        var data = Data(count: count / 4 * 3 - padding)
        let decoded = data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Bool in
            let whole = padding > 0 ? count - 4 : count
            var index = 0
            var out = 0
            while index < whole {
                let a = value(bytes[index])
                let b = value(bytes[index + 1])
                let c = value(bytes[index + 2])
                let d = value(bytes[index + 3])
                guard (a | b | c | d) & 0xC0 == 0 else { return false }
                output[out] = a << 2 | b >> 4
                output[out + 1] = b << 4 | c >> 2
                output[out + 2] = c << 6 | d
                index += 4
                out += 3
            }
            guard padding > 0 else { return true }
            let a = value(bytes[index])
            let b = value(bytes[index + 1])
            guard (a | b) & 0xC0 == 0 else { return false }
            output[out] = a << 2 | b >> 4
            if padding == 2 { return b & 0x0F == 0 }
            let c = value(bytes[index + 2])
            guard c & 0xC0 == 0, c & 0x03 == 0 else { return false }
            output[out + 1] = b << 4 | c >> 2
            return true
        }
        return decoded ? data : nil
    }
}
