import Foundation

extension XMLStore {
    /// Reads the metadata in `<databaseInfo>`, reading the file only up to `</databaseInfo>`.
    static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        let (head, _) = try XMLStoreParser.readHead(at: url)
        guard var metadata = head.metadata else {
            throw QuireError(
                .fileReadCorruptFile, "The XML store '\(url.path)' has no <metadata> in its <databaseInfo>.", context: .init(file: url))
        }
        if metadata[StoreMetadataKey.storeUUID] == nil, let uuid = head.uuid { metadata[StoreMetadataKey.storeUUID] = .string(uuid) }
        return metadata
    }

    /// Rewrites `<databaseInfo>` with new metadata; the objects after it are copied as bytes, not parsed.
    static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
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
