import QuireCore
import Foundation

/// Writes a binary store file record by record, for Save As: the header, the metadata slots, the model
/// section, then the objects section streamed entity by entity with its checksum computed as it goes, then
/// the end marker; the objects section's header and the metadata slot (which hold the section's length and
/// checksum, and the file's data end) are written once the records are. The file is byte for byte what
/// ``BinaryStore/encode(_:model:)`` makes of the same records in the same order, and becomes the store's
/// file only when complete (``AtomicStreamFile``).
///
/// Records come in entity order (by entity number), each entity's in key order, and each entity's number of
/// records is given up front, as the objects section lists it before the records.
final class BinaryStreamWriter: AtomicRecordStream {
    private let file: AtomicStreamFile
    private let model: ManagedObjectModel
    private let counts: [Int]
    private let metadata: Data
    private let header: BinaryStoreFormat.Header
    private var writer = ByteWriter(capacity: 1 << 20)
    private var checksum = CRC32()
    private var payloadSize = 0
    private let objectsHeaderOffset: Int
    /// The entity whose records are being written (its number), and how many of them were.
    private var entityNumber = 0
    private var written = 0
    private var layout: BinaryObjectCoding.RecordLayout?

    /// Starts the file at `url`.
    ///
    /// - Parameters:
    ///   - counts: The number of records of each entity, by entity number.
    init(
        url: URL, metadata: [String: PropertyListValue], nextKey: Int64, counts: [Int], model: ManagedObjectModel
    ) throws {
        self.model = model
        self.counts = counts
        self.metadata = try PropertyListValue.encode(metadata, format: .binary)
        header = BinaryStoreFormat.Header(slotCapacity: BinaryStoreFormat.slotCapacity(for: self.metadata.count))
        file = try AtomicStreamFile(url: url)
        do {
            try file.write(header.encoded())
            // Both slots are written once the data end is known; the first is patched then.
            try file.write(Data(count: 2 * header.slotCapacity))
            var sections: [Data] = []
            BinaryStoreFormat.appendSection(BinaryStoreFormat.modelTag, payload: try model.serializedRepresentation(), to: &sections)
            for section in sections { try file.write(section) }
            objectsHeaderOffset = file.offset
            try file.write(Data(count: BinaryStoreFormat.sectionHeaderSize))
            BinaryObjectCoding.appendTable(nextKey: nextKey, model: model, to: &writer)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Appends records.
    ///
    /// - Throws: ``QuireError/Code/migration`` when a record comes out of entity order or beyond its
    ///   entity's count; file errors.
    func append(_ rows: [RowSnapshot]) throws {
        for row in rows {
            let number = row.objectID.entity.entityNumber
            if number != entityNumber {
                guard number > entityNumber else { throw outOfOrder(row.objectID.entity) }
                try advance(to: number)
                layout = BinaryObjectCoding.RecordLayout(row.objectID.entity)
            }
            guard written < counts[number], let layout else { throw outOfOrder(row.objectID.entity) }
            BinaryObjectCoding.appendRecord(row, layout: layout, to: &writer)
            written += 1
        }
        if writer.count >= 1 << 20 { try drain() }
    }

    /// Ends the entity being written (checking that all its records came) and starts the following ones up
    /// to `number`, writing each one's count.
    private func advance(to number: Int) throws {
        if entityNumber > 0, written != counts[entityNumber] {
            throw QuireError(
                .migration,
                "Save As wrote \(written) records of entity '\(model.entitiesByNumber[entityNumber - 1].name)' but expected "
                    + "\(counts[entityNumber]); the source changed while it was copied.",
                context: .init(file: file.url, entity: model.entitiesByNumber[entityNumber - 1].name))
        }
        while entityNumber < number {
            entityNumber += 1
            written = 0
            writer.append(UInt64(counts[entityNumber]))
        }
    }

    private func outOfOrder(_ entity: EntityDescription) -> QuireError {
        QuireError(
            .migration, "Save As received a record of entity '\(entity.name)' out of order or beyond its count.",
            context: .init(file: file.url, entity: entity.name))
    }

    /// Writes the buffered bytes of the objects section out, adding them to its checksum.
    private func drain() throws {
        try writer.bytes.withUnsafeBytes { bytes in
            checksum.update(bytes)
            try file.write(bytes)
        }
        payloadSize += writer.count
        writer.removeAll()
    }

    /// Writes the rest (the remaining entities' counts, the end marker, the objects section's header and the
    /// metadata slot) and renames the file into place.
    func finish() throws {
        try advance(to: counts.count - 1)
        try drain()
        var end: [Data] = []
        BinaryStoreFormat.appendSection(BinaryStoreFormat.endTag, payload: Data(), to: &end)
        for chunk in end { try file.write(chunk) }
        var sectionHeader = ByteWriter(capacity: BinaryStoreFormat.sectionHeaderSize)
        sectionHeader.append(BinaryStoreFormat.objectsTag)
        sectionHeader.append(UInt32(0))
        sectionHeader.append(UInt64(payloadSize))
        sectionHeader.append(checksum.value)
        sectionHeader.append(UInt32(0))
        try file.patch(sectionHeader.bytes, at: objectsHeaderOffset)
        let slot = BinaryStoreFormat.encodeSlot(
            generation: 1, payload: metadata, capacity: header.slotCapacity, dataEnd: file.offset)
        try file.patch(slot, at: BinaryStoreFormat.headerSize)
        try file.commit()
    }

    /// Removes what was written.
    func discard() { file.discard() }

    /// The size of the objects section written (its payload), once finished.
    var objectsSize: Int { payloadSize }
}
