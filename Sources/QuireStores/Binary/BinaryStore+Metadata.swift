import QuireCore
import Foundation

extension BinaryStore {
    /// Reads the model embedded in a closed store file, from its checksummed section.
    static func readModel(at url: URL) throws -> Data? {
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
            guard range.count <= StoreKind.maximumModelSize else {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The model embedded in '\(url.path)' is \(range.count) bytes long, more than the \(StoreKind.maximumModelSize) allowed.",
                    context: .init(file: url))
            }
            return Data(bytes[range])
        }
        return model
    }

    /// Reads the metadata from the header block: the header and the two metadata slots, whatever the size.
    static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        try BinaryStoreFormat.readMetadata(at: url)
    }

    /// Writes new metadata into the older of the two slots, in place; when it does not fit, rewrites the
    /// file with larger slots (the sections are copied as bytes, not decoded).
    static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws {
        let existing = try BinaryStoreFormat.readMetadata(at: url)
        let merged = StoreMetadataKey.merged(metadata, existing: existing, type: .binary)
        let payload = try PropertyListValue.encode(merged, format: .binary)
        if try BinaryStoreFormat.writeMetadataInPlace(payload, at: url) { return }
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        let (old, oldEnd) = try data.withUnsafeBytes { bytes in
            let header = try BinaryStoreFormat.Header.decode(bytes, file: url)
            return (header, try BinaryStoreFormat.newestSlot(bytes, header: header, file: url).dataEnd)
        }
        // The committed sections move with the slots' new size; what a crashed append left after them does not.
        let sections = data.subdata(in: min(old.sectionsOffset, data.count)..<min(oldEnd ?? data.count, data.count))
        let header = BinaryStoreFormat.Header(slotCapacity: BinaryStoreFormat.slotCapacity(for: payload.count))
        try AtomicFileWriter.write(
            [
                Data(header.encoded()),
                Data(BinaryStoreFormat.encodeSlot(
                    generation: 1, payload: payload, capacity: header.slotCapacity, dataEnd: header.sectionsOffset + sections.count)),
                Data(count: header.slotCapacity),
                sections,
            ], to: url)
    }
}
