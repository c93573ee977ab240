import QuireCore
import Foundation

/// An XML attribute's text made straight into its binary encoding (as ``BinaryObjectCoding/encode(_:into:)``
/// writes the value it stands for), without a value in between: integers, booleans, doubles, dates, strings
/// and canonical base64 data on fast paths, anything else through ``XMLStoreParser/value(_:_:base64:)`` and
/// the encoder, so that every text encodes as the value the parser would have read from it.
enum XMLPackedValue {
    private typealias Tag = BinaryObjectCoding.ValueTag

    /// Appends the encoding of the value of `text` as an attribute of `type`; false (and `output` as it was,
    /// or longer by what is to be dropped) when the text is not a valid value of the type.
    static func append(_ text: UnsafeRawBufferPointer, _ type: AttributeType, base64: Bool, to output: inout [UInt8]) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = XMLStoreParser.integer(XMLStoreParser.trimmed(text)), type.integerRange?.contains(value) == true
            else { return false }
            output.append(Tag.integer.rawValue)
            append(value, to: &output)
            return true
        case .string where !base64:
            guard isValidUTF8(text) else { return false }
            output.append(Tag.string.rawValue)
            append(UInt32(truncatingIfNeeded: text.count), to: &output)
            output.append(contentsOf: text)
            return true
        case .boolean:
            let trimmed = XMLStoreParser.trimmed(text)
            if trimmed.count == 1, trimmed[0] == UInt8(ascii: "1") || trimmed[0] == UInt8(ascii: "0") {
                output.append((trimmed[0] == UInt8(ascii: "1") ? Tag.trueValue : Tag.falseValue).rawValue)
                return true
            }
        case .double, .date:
            if let value = XMLDecimalNumber.double(XMLStoreParser.trimmed(text)) {
                output.append((type == .double ? Tag.double : Tag.date).rawValue)
                append(value.bitPattern, to: &output)
                return true
            }
        case .binaryData, .transformable:
            let trimmed = XMLStoreParser.trimmed(text)
            if let count = Base64Bytes.canonicalDecodedCount(trimmed) {
                let start = output.count
                output.append(Tag.data.rawValue)
                append(UInt64(count), to: &output)
                let dataStart = output.count
                output.append(contentsOf: repeatElement(0, count: count))
                let decoded = output.withUnsafeMutableBytes {
                    Base64Bytes.decodeCanonical(trimmed, into: UnsafeMutableRawBufferPointer(rebasing: $0[dataStart...]))
                }
                if decoded { return true }
                output.removeSubrange(start...)
            }
        default:
            break
        }
        guard let value = XMLStoreParser.value(text, type, base64: base64) else { return false }
        var writer = ByteWriter(taking: &output)
        BinaryObjectCoding.encode(value, into: &writer)
        output = writer.takeBytes()
        return true
    }

    /// Whether the bytes are valid UTF-8 (ASCII takes a fast path), as a string read from them would need.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        // Eight bytes at a time while they are ASCII.
        if let base = bytes.baseAddress {
            while index + 8 <= count, base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
        }
        while index < count, bytes[index] < 0x80 { index += 1 }
        guard index < count else { return true }
        return XMLStoreParser.string(UnsafeRawBufferPointer(rebasing: bytes[index...])) != nil
    }

    @inline(__always) private static func append<T: FixedWidthInteger>(_ value: T, to output: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
    }
}
