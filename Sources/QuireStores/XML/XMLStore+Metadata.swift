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

    /// The metadata of a store's head as Core Data reads it: the `<metadata>` property list (none, or an empty
    /// element, is an empty one), `NSStoreType` `XML` where it is missing (Core Data's own files often lack it),
    /// and `NSStoreUUID` from `<UUID>`, or `generatedUUID` when the file has none (the oldest stores have no
    /// `<databaseInfo>` at all).
    static func completedMetadata(_ head: XMLStoreParser.Result, generatedUUID: String) -> [String: PropertyListValue] {
        var metadata = head.metadata ?? [:]
        if metadata[StoreMetadataKey.storeType] == nil { metadata[StoreMetadataKey.storeType] = .string(StoreType.xml.rawValue) }
        if metadata[StoreMetadataKey.storeUUID]?.stringValue?.isEmpty ?? true {
            let uuid = head.uuid.flatMap { $0.isEmpty ? nil : $0 } ?? generatedUUID
            metadata[StoreMetadataKey.storeUUID] = .string(uuid)
        }
        return metadata
    }

    /// Reads the metadata in `<databaseInfo>`, reading the file only up to `</databaseInfo>` (see
    /// ``completedMetadata(_:generatedUUID:)``: a store without a UUID answers a new one each time).
    package static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        let (head, _) = try XMLStoreParser.readHead(at: url)
        return completedMetadata(head, generatedUUID: UUID().uuidString)
    }

    /// Rewrites `<databaseInfo>` with new metadata; the objects after it are copied as bytes, not parsed.
    package static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        let (head, headLength) = try XMLStoreParser.readHead(at: url)
        let existing = completedMetadata(head, generatedUUID: UUID().uuidString)
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .xml)
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        var writer = XMLStoreWriter()
        writer.head(
            metadata: merged, uuid: merged[StoreMetadataKey.storeUUID]?.stringValue ?? head.uuid ?? "", nextKey: head.nextKey,
            modelBase64: head.modelBase64)
        try AtomicFileWriter.write([Data(writer.output), data.subdata(in: headLength..<data.count)], to: url)
    }
}
