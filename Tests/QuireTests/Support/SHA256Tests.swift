import Foundation
import Testing

import Quire

@Suite("SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 examples and the NIST short-message vectors.
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                + "mnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test("NIST vectors", arguments: vectors.indices)
    func nistVector(index: Int) {
        let (message, digest) = Self.vectors[index]
        #expect(SHA256.hexHash(Data(message.utf8)) == digest)
    }

    @Test("One million 'a'")
    func millionA() {
        let data = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexHash(data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")

        // The same message fed in 1,000 updates of 1,000 bytes.
        var hasher = SHA256()
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 {
            hasher.update(data: chunk)
        }
        #expect(hasher.finalize() == SHA256.hash(data))
    }

    @Test("Padding boundaries: messages of 0 to 130 bytes, hashed whole and byte by byte")
    func paddingBoundaries() {
        // 1,000 bytes of 'x' (checked with coreutils sha256sum).
        let long = Data(repeating: UInt8(ascii: "x"), count: 1000)
        #expect(SHA256.hexHash(long) == "44f8354494a5ba03ba1792a8d3e9c534c47a9181980fde7a3f44b06ef2ae7c7f")

        for length in 0...130 {
            let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            var hasher = SHA256()
            for byte in message {
                hasher.update(data: Data([byte]))
            }
            #expect(hasher.finalize() == SHA256.hash(message), "length \(length)")
        }
    }

    @Test("Uneven chunks give the same digest as one update")
    func unevenChunks() {
        let message = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 3) })
        let expected = SHA256.hash(message)
        for chunkSize in [1, 3, 63, 64, 65, 127, 1000, 4096] {
            var hasher = SHA256()
            var offset = 0
            while offset < message.count {
                let end = min(offset + chunkSize, message.count)
                message[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            #expect(hasher.finalize() == expected, "chunk size \(chunkSize)")
        }
    }

    @Test("finalize leaves the hasher usable for a longer message")
    func finalizeIsNonDestructive() {
        var hasher = SHA256()
        hasher.update(data: Data("ab".utf8))
        #expect(hasher.finalize() == SHA256.hash(Data("ab".utf8)))
        hasher.update(data: Data("c".utf8))
        #expect(SHA256.hexString(hasher.finalize()) == SHA256Tests.vectors[1].digest)
        hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(SHA256.hexString(hasher.finalize()) == SHA256Tests.vectors[1].digest)
    }

    @Test("Hex formatting")
    func hex() {
        #expect(SHA256.hexString([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(SHA256.hexString([UInt8]()) == "")
        #expect(SHA256.hash(Data()).count == SHA256.digestByteCount)
    }
}
