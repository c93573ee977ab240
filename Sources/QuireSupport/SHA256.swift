import Foundation

/// A SHA-256 hash function (FIPS 180-4), written in Swift so Quire needs no crypto library.
///
/// Quire uses it for model version hashes and content fingerprints, not for secrets: it makes no attempt at
/// constant-time behaviour.
///
/// Hash a value in one call, or feed the bytes in pieces:
///
/// ```swift
/// let digest = SHA256.hash(Data("abc".utf8))        // 32 bytes
/// print(SHA256.hexString(digest))                    // "ba7816bf…"
///
/// var hasher = SHA256()
/// hasher.update(data: header)
/// hasher.update(data: body)
/// let same = hasher.finalize()
/// ```
public struct SHA256: Sendable {
    /// The size of a digest, in bytes.
    public static let digestByteCount = 32

    /// The size of a block, in bytes.
    public static let blockByteCount = 64

    /// The hash state: the eight working words H0…H7.
    private var h0: UInt32 = 0x6a09_e667
    private var h1: UInt32 = 0xbb67_ae85
    private var h2: UInt32 = 0x3c6e_f372
    private var h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f
    private var h5: UInt32 = 0x9b05_688c
    private var h6: UInt32 = 0x1f83_d9ab
    private var h7: UInt32 = 0x5be0_cd19

    /// Bytes waiting for a full block (always fewer than 64 between calls).
    private var pending: [UInt8] = []

    /// The number of message bytes hashed so far.
    private var messageLength: UInt64 = 0

    /// Creates a hasher in its initial state.
    public init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// Adds bytes to the message.
    ///
    /// - Parameter bytes: The next bytes of the message; the buffer may be empty.
    /// - Complexity: O(*n*) in the number of bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        messageLength &+= UInt64(bytes.count)
        var offset = 0
        let count = bytes.count

        // Complete a partial block first.
        if !pending.isEmpty {
            let take = min(Self.blockByteCount - pending.count, count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            offset = take
            guard pending.count == Self.blockByteCount else { return }
            let block = pending
            block.withUnsafeBytes { compress(blocks: $0) }
            pending.removeAll(keepingCapacity: true)
        }

        // Hash the whole blocks in place, then keep the tail.
        let wholeBlocks = (count - offset) / Self.blockByteCount
        if wholeBlocks > 0 {
            let length = wholeBlocks * Self.blockByteCount
            compress(blocks: UnsafeRawBufferPointer(start: base + offset, count: length))
            offset += length
        }
        if offset < count {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: count - offset))
        }
    }

    /// Adds the bytes of `data` to the message.
    ///
    /// - Parameter data: The next bytes of the message.
    /// - Complexity: O(*n*) in the number of bytes.
    public mutating func update(data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Returns the digest of the message added so far.
    ///
    /// The hasher itself is left unchanged, so more bytes may be added afterwards to hash a longer message.
    ///
    /// - Returns: The 32-byte digest.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = messageLength &* 8
        // Padding: 0x80, zeros up to 56 mod 64, then the length in bits as a big-endian 64-bit integer.
        let padCount = (pending.count < 56 ? 56 : 120) - pending.count
        var tail = [UInt8](repeating: 0, count: padCount + 8)
        tail[0] = 0x80
        for index in 0..<8 {
            tail[padCount + index] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * UInt64(index)))
        }
        var block = copy.pending
        block.append(contentsOf: tail)
        block.withUnsafeBytes { copy.compress(blocks: $0) }

        var digest = [UInt8]()
        digest.reserveCapacity(Self.digestByteCount)
        for word in [copy.h0, copy.h1, copy.h2, copy.h3, copy.h4, copy.h5, copy.h6, copy.h7] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Returns the digest of `data`.
    ///
    /// ```swift
    /// let digest = SHA256.hash(Data())    // e3b0c442…
    /// ```
    ///
    /// - Parameter data: The whole message.
    /// - Returns: The 32-byte digest.
    /// - Complexity: O(*n*) in the number of bytes.
    public static func hash(_ data: Data) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// Returns bytes as lowercase hexadecimal, two digits a byte.
    ///
    /// ```swift
    /// SHA256.hexString([0x0f, 0xa0])    // "0fa0"
    /// ```
    ///
    /// - Parameter bytes: The bytes to format, usually a digest.
    /// - Returns: A string of `2 * bytes.count` characters.
    public static func hexString(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters = [UInt8]()
        characters.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Returns the digest of `data` as lowercase hexadecimal.
    ///
    /// - Parameter data: The whole message.
    /// - Returns: A 64-character string.
    public static func hexHash(_ data: Data) -> String {
        hexString(hash(data))
    }

    // MARK: Compression

    /// The round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Runs the compression function over each 64-byte block of `blocks`, whose length is a multiple of 64.
    private mutating func compress(blocks: UnsafeRawBufferPointer) {
        precondition(blocks.count % Self.blockByteCount == 0, "SHA256.compress takes whole blocks")
        Self.roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var blockStart = 0
                while blockStart < blocks.count {
                    for t in 0..<16 {
                        let word = blocks.loadUnaligned(fromByteOffset: blockStart + 4 * t, as: UInt32.self)
                        w[t] = UInt32(bigEndian: word)
                    }
                    for t in 16..<64 {
                        let x = w[t - 15]
                        let y = w[t - 2]
                        let sigma0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
                        let sigma1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
                        w[t] = w[t - 16] &+ sigma0 &+ w[t - 7] &+ sigma1
                    }

                    var a = h0
                    var b = h1
                    var c = h2
                    var d = h3
                    var e = h4
                    var f = h5
                    var g = h6
                    var h = h7
                    for t in 0..<64 {
                        let sum1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let temp1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                        let sum0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = sum0 &+ majority
                        h = g
                        g = f
                        f = e
                        e = d &+ temp1
                        d = c
                        c = b
                        b = a
                        a = temp1 &+ temp2
                    }
                    h0 &+= a
                    h1 &+= b
                    h2 &+= c
                    h3 &+= d
                    h4 &+= e
                    h5 &+= f
                    h6 &+= g
                    h7 &+= h
                    blockStart += Self.blockByteCount
                }
            }
        }
    }
}

/// `value` rotated right by `count` bits (0 < count < 32).
@inline(__always)
private func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value >> count) | (value << (32 &- count))
}
