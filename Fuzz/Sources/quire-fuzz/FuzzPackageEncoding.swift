import Foundation

/// The few files of a document package as one fuzz input: records of a name length (1 byte), the name (its
/// path in the package, `/` between folders), a content length (4 bytes, little-endian) and the content.
/// Names are kept to letters, digits, `.`, `_` and `-` per component (`..` and empty components dropped), so an
/// input never writes outside its folder; the input ends at the first incomplete record.
enum FuzzPackageEncoding {
    /// At most this many files are written.
    static let maximumFiles = 64
    /// The characters a name component may hold.
    private static let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".unicodeScalars)

    /// Writes the files an input encodes into a new folder.
    static func write(_ data: Data, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bytes = [UInt8](data)
        var index = 0
        var files = 0
        while index < bytes.count, files < maximumFiles {
            let nameLength = Int(bytes[index])
            index += 1
            guard index + nameLength + 4 <= bytes.count else { return }
            let name = String(decoding: bytes[index..<index + nameLength], as: UTF8.self)
            index += nameLength
            var length = 0
            for shift in 0..<4 { length |= Int(bytes[index + shift]) << (8 * shift) }
            index += 4
            let content = Data(bytes[index..<min(bytes.count, index + length)])
            index += content.count
            let components = name.split(separator: "/").map { component in
                String(component.unicodeScalars.filter { allowed.contains($0) })
            }.filter { !$0.isEmpty && $0 != "." && $0 != ".." }
            guard !components.isEmpty else { continue }
            let file = components.reduce(folder) { $0.appendingPathComponent($1) }
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? content.write(to: file)
            files += 1
        }
    }

    /// Encodes the files below a folder (at most ``maximumFiles``, names of at most 255 bytes).
    static func encode(folder: URL) throws -> Data {
        var result = Data()
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var files = 0
        let base = folder.standardizedFileURL.path
        while let url = enumerator?.nextObject() as? URL, files < maximumFiles {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let name = Array(String(url.standardizedFileURL.path.dropFirst(base.count + 1)).utf8)
            guard name.count <= 255 else { continue }
            let content = try Data(contentsOf: url)
            result.append(UInt8(name.count))
            result.append(contentsOf: name)
            for shift in 0..<4 { result.append(UInt8(truncatingIfNeeded: content.count >> (8 * shift))) }
            result.append(content)
            files += 1
        }
        return result
    }
}
