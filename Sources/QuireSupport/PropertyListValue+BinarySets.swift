import Foundation

extension PropertyListValue {
    /// Whether a binary property list (`bplist00`) holds a set object (marker `0xC_`), or an object table that
    /// points outside the data. Foundation on Linux crashes bridging some sets it decodes (a null type metadata in
    /// `Set`'s bridge), so ``decodeDictionary(from:maximumSize:)`` refuses such lists before Foundation reads
    /// them; Core Data's metadata and Quire's records never hold sets. False for anything that is not a binary
    /// property list with a readable trailer (Foundation then judges it).
    static func binaryListHoldsSetOrBadOffsets(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else { return false }
        let trailer = bytes.count - 32
        func integer(at start: Int, size: Int) -> Int? {
            guard size > 0, size <= 8, start >= 0, start + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for index in start..<(start + size) { value = value << 8 | UInt64(bytes[index]) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }
        guard let offsetSize = integer(at: trailer + 6, size: 1), let objectCount = integer(at: trailer + 8, size: 8),
            let tableStart = integer(at: trailer + 24, size: 8)
        else { return true }
        // Every object takes at least one byte and one offset entry.
        guard offsetSize >= 1, offsetSize <= 8, objectCount <= bytes.count, tableStart < trailer else { return true }
        for object in 0..<objectCount {
            guard let offset = integer(at: tableStart + object * offsetSize, size: offsetSize), offset >= 8, offset < trailer
            else { return true }
            if bytes[offset] >> 4 == 0xC { return true }
        }
        return false
    }
}
