import QuireCore
import Foundation

/// Quire's binary store: an atomic store in one compact, checksummed file (see <doc:BinaryStoreFormat>).
///
/// Used only under the coordinator's lock.
package final class BinaryStore: AtomicStore {

    package override func decode(_ data: Data) throws -> AtomicStoreImage {
        let file = fileURL
        return try data.withUnsafeBytes { bytes in
            let header = try BinaryStoreFormat.Header.decode(bytes, file: file)
            guard bytes.count >= header.sectionsOffset else {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The binary store '\(file.path)' is truncated (\(bytes.count) bytes, shorter than its metadata blocks).",
                    context: .init(file: file, position: bytes.count))
            }
            let slot = try BinaryStoreFormat.newestSlot(bytes, header: header, file: file)
            let metadata = try BinaryStoreFormat.decodeMetadata(slot.payload, file: file)
            try checkMetadata(metadata)
            let sections = try BinaryStoreFormat.sections(
                bytes, header: header, file: file, unverified: [BinaryStoreFormat.objectsTag])
            guard let objects = sections[BinaryStoreFormat.objectsTag] else {
                throw QuireError(
                    .fileReadCorruptFile, "The binary store '\(file.path)' has no objects section.", context: .init(file: file))
            }
            // The objects are decoded while another thread checks their checksum; the decoder checks every
            // bound itself, so it reads a corrupt section safely, and a checksum mismatch wins over whatever
            // the decoder made of it.
            guard objects.range.count >= 1 << 20 else {
                // A small store: a thread of its own would cost more than it saves.
                try BinaryStoreFormat.verify(objects, of: bytes, file: file)
                let result = try BinaryObjectCoding.decode(bytes, range: objects.range, model: model, store: store, file: file)
                return AtomicStoreImage(metadata: metadata, nextKey: result.nextKey, nodes: result.nodes, entityCounts: result.entityCounts)
            }
            let (decoded, checksum) = concurrently {
                try BinaryObjectCoding.decode(bytes, range: objects.range, model: model, store: store, file: file)
            } alongside: {
                try BinaryStoreFormat.verify(objects, of: bytes, file: file)
            }
            try checksum.get()
            let result = try decoded.get()
            return AtomicStoreImage(metadata: metadata, nextKey: result.nextKey, nodes: result.nodes, entityCounts: result.entityCounts)
        }
    }

    package override func encode(_ image: AtomicStoreImage) throws -> [Data] {
        try Self.encode(image, model: model)
    }

    /// The chunks of a whole binary store file.
    package static func encode(_ image: AtomicStoreImage, model: ManagedObjectModel) throws -> [Data] {
        let metadata = try PropertyListValue.encode(image.metadata, format: .binary)
        let header = BinaryStoreFormat.Header(slotCapacity: BinaryStoreFormat.slotCapacity(for: metadata.count))
        var chunks = [Data(header.encoded())]
        chunks.append(Data(BinaryStoreFormat.encodeSlot(generation: 1, payload: metadata, capacity: header.slotCapacity)))
        chunks.append(Data(count: header.slotCapacity))
        BinaryStoreFormat.appendSection(BinaryStoreFormat.modelTag, payload: try model.serializedRepresentation(), to: &chunks)
        BinaryStoreFormat.appendSection(BinaryStoreFormat.objectsTag, payload: BinaryObjectCoding.encode(image, model: model), to: &chunks)
        BinaryStoreFormat.appendSection(BinaryStoreFormat.endTag, payload: Data(), to: &chunks)
        return chunks
    }
}
