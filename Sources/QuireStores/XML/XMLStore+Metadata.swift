import QuireCore
import Foundation

extension XMLStore {
    /// Reads the model embedded in a closed store file without parsing its objects.
    package static func readModel(at url: URL) throws -> Data? {
        let (head, _) = try XMLStoreParser.readHead(at: url)
        guard !head.modelBase64.isEmpty else { return nil }
        guard head.modelBase64.utf8.count <= StoreKind.maximumModelSize * 4 / 3 + 4,
            let model = Data(base64Encoded: head.modelBase64, options: .ignoreUnknownCharacters)
        else {
            throw QuireError(
                .fileReadCorruptFile, "The model embedded in the XML store '\(url.path)' is not valid base64 of a bounded size.",
                context: .init(file: url))
        }
        return model
    }

    /// Whether a file's first bytes are an XML document whose root is `<database>`.
    package static func recognizes(_ head: Data) -> Bool {
        let bytes = [UInt8](head)
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let text = String(decoding: bytes[start...], as: UTF8.self)
        return text.hasPrefix("<database") || text.hasPrefix("<?xml") || text.hasPrefix("<!DOCTYPE database")
    }

    /// Reads the metadata in `<databaseInfo>`, reading the file only up to `</databaseInfo>`.
    package static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        let (head, _) = try XMLStoreParser.readHead(at: url)
        guard var metadata = head.metadata else {
            throw QuireError(
                .fileReadCorruptFile, "The XML store '\(url.path)' has no <metadata> in its <databaseInfo>.", context: .init(file: url))
        }
        if metadata[StoreMetadataKey.storeUUID] == nil, let uuid = head.uuid { metadata[StoreMetadataKey.storeUUID] = .string(uuid) }
        return metadata
    }

    /// Rewrites `<databaseInfo>` with new metadata; the objects after it are copied as bytes, not parsed.
    package static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        let (head, headLength) = try XMLStoreParser.readHead(at: url)
        var existing = head.metadata ?? [:]
        if existing[StoreMetadataKey.storeUUID] == nil, let uuid = head.uuid { existing[StoreMetadataKey.storeUUID] = .string(uuid) }
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .xml)
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        var writer = XMLStoreWriter()
        writer.head(
            metadata: merged, uuid: merged[StoreMetadataKey.storeUUID]?.stringValue ?? head.uuid ?? "", nextKey: head.nextKey,
            modelBase64: head.modelBase64)
        try AtomicFileWriter.write([Data(writer.output), data.subdata(in: headLength..<data.count)], to: url)
    }
}
