import Foundation

extension StoreFileOperations {
    /// XML: metadata and the embedded model in `<databaseInfo>`, read without parsing the objects.
    static let xml = StoreFileOperations(
        readContents: { url in
            let (head, _) = try XMLStoreParser.readHead(at: url)
            let metadata = try XMLStore.readMetadata(at: url)
            guard !head.modelBase64.isEmpty else { return Contents(metadata: metadata, model: nil) }
            guard head.modelBase64.utf8.count <= maximumModelSize * 4 / 3 + 4,
                let model = Data(base64Encoded: head.modelBase64, options: .ignoreUnknownCharacters)
            else {
                throw QuireError(
                    .fileReadCorruptFile, "The model embedded in the XML store '\(url.path)' is not valid base64 of a bounded size.",
                    context: .init(file: url))
            }
            return Contents(metadata: metadata, model: model)
        },
        writeMetadata: { url, metadata in try XMLStore.writeMetadata(metadata, at: url) },
        companionSuffixes: [],
        prepareForReplacement: { _ in },
        destinationOptions: writable)

    /// Binary: metadata from the header's slots, the embedded model from its checksummed section.
    static let binary = StoreFileOperations(
        readContents: { url in
            let metadata = try BinaryStore.readMetadata(at: url)
            let data: Data
            do {
                data = try Data(contentsOf: url, options: .mappedIfSafe)
            } catch {
                throw QuireError(.fileReadUnknown, "The binary store '\(url.path)' cannot be read.", context: .init(file: url))
            }
            let model = try data.withUnsafeBytes { bytes -> Data? in
                let header = try BinaryStoreFormat.Header.decode(bytes, file: url)
                guard bytes.count >= header.sectionsOffset else {
                    throw QuireError(
                        .fileReadCorruptFile, "The binary store '\(url.path)' is truncated (\(bytes.count) bytes).",
                        context: .init(file: url, position: bytes.count))
                }
                let sections = try BinaryStoreFormat.sections(bytes, header: header, file: url)
                guard let range = sections[BinaryStoreFormat.modelTag] else { return nil }
                guard range.count <= maximumModelSize else {
                    throw QuireError(
                        .fileReadCorruptFile,
                        "The model embedded in '\(url.path)' is \(range.count) bytes long, more than the \(maximumModelSize) allowed.",
                        context: .init(file: url))
                }
                return Data(bytes[range])
            }
            return Contents(metadata: metadata, model: model)
        },
        writeMetadata: { url, metadata in try BinaryStore.writeMetadata(metadata, at: url) },
        companionSuffixes: [],
        prepareForReplacement: { _ in },
        destinationOptions: writable)

    /// The options as given, made writable: atomic stores write a migration's new file whole, once.
    private static func writable(_ options: StoreOptions) -> StoreOptions {
        var options = options
        options.isReadOnly = false
        return options
    }
}
