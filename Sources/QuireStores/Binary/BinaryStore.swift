import QuireCore
import Foundation

/// Quire's binary store: an atomic store in one compact, checksummed file (see <doc:BinaryStoreFormat>).
///
/// Used only under the coordinator's lock.
final class BinaryStore: AtomicStore {
    /// Where the file's committed data ends and which metadata slot is newest, as last read or written, so
    /// that a save can append its changes; nil when unknown (a version 1 file), and a save writes the file
    /// whole.
    private var log: LogPosition?
    /// The position a whole write in progress will leave, known once its bytes are encoded.
    private var pendingLog: LogPosition?

    /// Where the next change section goes.
    private struct LogPosition {
        var header: BinaryStoreFormat.Header
        var dataEnd: Int
        var slotIndex: Int
        var generation: UInt64
        /// The size of the objects section, and of the change sections appended after it.
        var baseSize: Int
        var logSize: Int
    }

    override func decode(_ data: Data) throws -> AtomicStoreImage {
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
            let list = try BinaryStoreFormat.sectionList(
                bytes, header: header, end: slot.dataEnd, file: file, unverified: [BinaryStoreFormat.objectsTag])
            let firstEnd = list.firstIndex { $0.tag == BinaryStoreFormat.endTag } ?? list.count
            guard let objects = list[..<firstEnd].last(where: { $0.tag == BinaryStoreFormat.objectsTag }) else {
                throw QuireError(
                    .fileReadCorruptFile, "The binary store '\(file.path)' has no objects section.", context: .init(file: file))
            }
            let changes = list[min(firstEnd + 1, list.count)...].filter { $0.tag != BinaryStoreFormat.endTag }
            if let unknown = changes.first(where: { $0.tag != BinaryStoreFormat.changesTag }) {
                throw QuireError(
                    .persistentStoreIncompatibleSchema,
                    "The binary store '\(file.path)' has a section this version of Quire does not know at offset \(unknown.start).",
                    context: .init(file: file, position: unknown.start))
            }
            var decoded: BinaryObjectCoding.Decoded
            // The objects are decoded while another thread checks their checksum; the decoder checks every
            // bound itself, so it reads a corrupt section safely, and a checksum mismatch wins over whatever
            // the decoder made of it.
            if objects.range.count < 1 << 20 {
                // A small store: a thread of its own would cost more than it saves.
                try BinaryStoreFormat.verify(objects, of: bytes, file: file)
                decoded = try BinaryObjectCoding.decode(bytes, range: objects.range, model: model, store: store, file: file)
            } else {
                let (result, checksum) = concurrently {
                    try BinaryObjectCoding.decode(bytes, range: objects.range, model: model, store: store, file: file)
                } alongside: {
                    try BinaryStoreFormat.verify(objects, of: bytes, file: file)
                }
                try checksum.get()
                decoded = try result.get()
            }
            for change in changes {
                try BinaryChangeLog.apply(bytes, range: change.range, to: &decoded, model: model, store: store, file: file)
            }
            if !changes.isEmpty { decoded.entityCounts = nil }
            if let dataEnd = slot.dataEnd {
                let logStart = list[firstEnd < list.count ? firstEnd : list.count - 1].range.upperBound
                log = LogPosition(
                    header: header, dataEnd: dataEnd, slotIndex: slot.index, generation: slot.generation,
                    baseSize: objects.range.count, logSize: dataEnd - logStart)
            } else {
                log = nil
            }
            return AtomicStoreImage(metadata: metadata, nextKey: decoded.nextKey, nodes: decoded.nodes, entityCounts: decoded.entityCounts)
        }
    }

    /// This kind of file is written as a stream by Save As.
    override var streamsRecords: Bool { true }

    /// A writer of this kind of file at the store's location.
    override func makeRecordStream(counts: [Int], nextKey: Int64) throws -> (any AtomicRecordStream)? {
        log = nil
        return try BinaryStreamWriter(url: fileURL, metadata: metadata, nextKey: nextKey, counts: counts, model: model)
    }

    override func writeFile() throws {
        log = nil
        pendingLog = nil
        try super.writeFile()
        log = pendingLog
    }

    /// Appends the records a save wrote or deleted to the file's change log, and commits them with the next
    /// metadata slot; writes the file whole instead when it has no log yet (a version 1 file), when the log
    /// with this change would grow past ``BinaryChangeLog/shouldCompact(logSize:baseSize:)``, or when the
    /// metadata outgrew its slot.
    override func writeChanges(of keys: [Int64]) throws {
        guard persistsToFile, !options.storesExternalDataInline, var position = log else { return try writeFile() }
        let metadataPayload = try PropertyListValue.encode(metadata, format: .binary)
        guard metadataPayload.count + position.header.slotHeaderSize <= position.header.slotCapacity else { return try writeFile() }
        // A change that is most of the store (the first save of a new one) is written whole at once, before any
        // record is copied for a change section that would hold at least the records' bytes.
        var recordBytes = 0
        for key in keys { recordBytes += nodes.encodedLength(of: key) ?? 0 }
        if BinaryChangeLog.shouldCompact(logSize: position.logSize + recordBytes, baseSize: position.baseSize) {
            return try writeFile()
        }
        var written = AtomicRecordTable(store: store)
        var deleted: [Int64] = []
        for key in Set(keys) {
            // The record's bytes as the table packed them, copied as they are: no decoding and encoding again.
            let copied = nodes.withEncodedRecord(key) { encoded in
                nodes.entityNumber(of: key).map { written.insertEncoded(encoded, entityNumber: $0, key: key) } ?? false
            }
            if copied == nil { deleted.append(key) }
        }
        // The same with the records' headers counted, before the section is encoded for nothing.
        if BinaryChangeLog.shouldCompact(logSize: position.logSize + written.encodedByteCount, baseSize: position.baseSize) {
            return try writeFile()
        }
        deleted.sort()
        var chunks: [Data] = []
        BinaryStoreFormat.appendSection(
            BinaryStoreFormat.changesTag,
            payload: BinaryChangeLog.encode(deleted: deleted, written: written, nextKey: nextKey, model: model), to: &chunks)
        BinaryStoreFormat.appendSection(BinaryStoreFormat.endTag, payload: Data(), to: &chunks)
        let size = chunks.reduce(0) { $0 + $1.count }
        // A log grown past its allowance (or a change that is most of the store, as the first save of a new
        // one) is folded into a whole file instead.
        if BinaryChangeLog.shouldCompact(logSize: position.logSize + size, baseSize: position.baseSize) { return try writeFile() }
        let slot = BinaryStoreFormat.encodeSlot(
            generation: position.generation + 1, payload: metadataPayload, capacity: position.header.slotCapacity,
            version: position.header.version, dataEnd: position.dataEnd + size)
        try BinaryChangeLog.append(chunks, at: position.dataEnd, slot: slot, slotIndex: 1 - position.slotIndex, header: position.header, to: fileURL)
        position.dataEnd += size
        position.logSize += size
        position.slotIndex = 1 - position.slotIndex
        position.generation += 1
        log = position
        noteFileWritten()
        metadataIsDirty = false
    }

    override func encode(_ image: AtomicStoreImage) throws -> [Data] {
        let chunks = try Self.encode(image, model: model)
        let metadataSize = chunks[0].count + chunks[1].count + chunks[2].count
        let header = BinaryStoreFormat.Header(slotCapacity: (metadataSize - BinaryStoreFormat.headerSize) / 2)
        let total = chunks.reduce(0) { $0 + $1.count }
        // chunks: header, slot A, slot B, then MODL (header, payload), OBJS (header, payload), END (header).
        let objects = chunks.count >= 8 ? chunks[chunks.count - 2].count : 0
        pendingLog = LogPosition(header: header, dataEnd: total, slotIndex: 0, generation: 1, baseSize: objects, logSize: 0)
        return chunks
    }

    /// The chunks of a whole binary store file.
    static func encode(_ image: AtomicStoreImage, model: ManagedObjectModel) throws -> [Data] {
        let metadata = try PropertyListValue.encode(image.metadata, format: .binary)
        let header = BinaryStoreFormat.Header(slotCapacity: BinaryStoreFormat.slotCapacity(for: metadata.count))
        var chunks = [Data(header.encoded())]
        var sections: [Data] = []
        BinaryStoreFormat.appendSection(BinaryStoreFormat.modelTag, payload: try model.serializedRepresentation(), to: &sections)
        BinaryStoreFormat.appendSection(BinaryStoreFormat.objectsTag, payload: BinaryObjectCoding.encode(image, model: model), to: &sections)
        BinaryStoreFormat.appendSection(BinaryStoreFormat.endTag, payload: Data(), to: &sections)
        let dataEnd = header.sectionsOffset + sections.reduce(0) { $0 + $1.count }
        chunks.append(Data(BinaryStoreFormat.encodeSlot(generation: 1, payload: metadata, capacity: header.slotCapacity, dataEnd: dataEnd)))
        chunks.append(Data(count: header.slotCapacity))
        return chunks + sections
    }
}
