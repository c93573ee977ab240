import QuireCore
/// Exact fast paths for the decimal numbers Quire's XML writer produces (`Double.description`: digits with
/// an optional sign and point, such as `633.1831102544943` or `-0.75`).
///
/// A decimal with at most 2^53 as its digits and at most 22 digits after the point is one correctly rounded
/// division of two exactly representable doubles, so it gives the very double `strtod` (and so
/// `Double(_: String)`) gives; anything else (exponents, longer mantissas, `inf`, `nan`, hexadecimal) gets nil
/// and is left to `Double(_: String)`.
package enum XMLDecimalNumber {
    /// The double of `[-+]digits[.digits]` (at least one digit), or nil when the bytes are anything else or
    /// outside the exact range.
    package static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let count = bytes.count
        guard count > 0, count <= 40 else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative || bytes[0] == UInt8(ascii: "+") { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var sawPoint = false
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10, digits < 19 else { return nil }
                mantissa = mantissa * 10 + UInt64(digit)
                digits += 1
                if sawPoint { fractionDigits += 1 }
            }
            index += 1
        }
        guard digits > 0, mantissa <= 1 << 53, fractionDigits <= 22 else { return nil }
        // 10^k for k ≤ 22 is exact, and so is every step of this product.
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        let magnitude = Double(mantissa) / scale
        return negative ? -magnitude : magnitude
    }
}
