/// CRC-32 (IEEE 802.3, the checksum of zip, gzip and PNG), computed eight bytes at a time.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(Data("123456789".utf8))
/// crc.value   // 0xCBF43926
/// ```
public struct CRC32: Sendable {
    /// The checksum of the bytes seen so far.
    public var value: UInt32 { ~state }
    private var state: UInt32 = 0xFFFF_FFFF

    /// Starts a checksum.
    public init() {}

    /// Adds bytes to the checksum.
    ///
    /// - Complexity: O(*n*) for *n* bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress else { return }
        var count = bytes.count
        var crc = state
        Self.tables.withUnsafeBufferPointer { table in
            while count >= 8 {
                let low = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)) ^ crc
                let high = UInt32(littleEndian: (pointer + 4).loadUnaligned(as: UInt32.self))
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                pointer += 8
                count -= 8
            }
            while count > 0 {
                crc = table[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                pointer += 1
                count -= 1
            }
        }
        state = crc
    }

    /// Adds bytes to the checksum.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The checksum of some bytes.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Eight tables of 256 entries for the slice-by-8 algorithm (reflected polynomial 0xEDB88320).
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            table[index] = crc
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = table[(slice - 1) * 256 + index]
                table[slice * 256 + index] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()
}
