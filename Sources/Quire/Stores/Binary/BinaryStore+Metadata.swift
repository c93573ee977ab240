import Foundation

extension BinaryStore {
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
        let old = try data.withUnsafeBytes { try BinaryStoreFormat.Header.decode($0, file: url) }
        let header = BinaryStoreFormat.Header(slotCapacity: BinaryStoreFormat.slotCapacity(for: payload.count))
        try AtomicFileWriter.write(
            [
                Data(header.encoded()),
                Data(BinaryStoreFormat.encodeSlot(generation: 1, payload: payload, capacity: header.slotCapacity)),
                Data(count: header.slotCapacity),
                data.subdata(in: min(old.sectionsOffset, data.count)..<data.count),
            ], to: url)
    }
}
