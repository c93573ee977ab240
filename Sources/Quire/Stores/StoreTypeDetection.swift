import Foundation

/// Tells a store's type from its file's first bytes: SQLite's header, the binary store's magic, or an XML
/// document whose root is `<database>`; registered custom types may recognize their own files.
enum StoreTypeDetection {
    /// The type of the store file at `url`.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` for a missing file,
    ///   ``QuireError/Code/persistentStoreInvalidType`` for a file of no known store type.
    static func detect(at url: URL) throws -> StoreType {
        let handle = try BinaryStoreFormat.openForReading(url)
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        if let type = detect(head) { return type }
        if let type = StoreRegistry.detectCustomType(head) { return type }
        throw QuireError(
            .persistentStoreInvalidType,
            head.isEmpty
                ? "The file '\(url.path)' is empty, so its store type cannot be told; name the type."
                : "The file '\(url.path)' is not a store of any type Quire knows (SQLite, XML, binary).",
            context: .init(file: url))
    }

    static func detect(_ head: Data) -> StoreType? {
        let bytes = [UInt8](head)
        if bytes.starts(with: SQLiteFileCheck.headerMagic) { return .sqlite }
        if bytes.starts(with: BinaryStoreFormat.magic) { return .binary }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let text = String(decoding: bytes[start...], as: UTF8.self)
        if text.hasPrefix("<database") { return .xml }
        if text.hasPrefix("<?xml") || text.hasPrefix("<!DOCTYPE database") { return .xml }
        return nil
    }
}
