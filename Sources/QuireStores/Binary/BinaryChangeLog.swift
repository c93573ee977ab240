import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The change log of a binary store (format version 2, see the BinaryStoreFormat article): a save appends one
/// `CHNG` section and an end marker after the file's data, then commits them by writing the other metadata
/// slot with the new data end. A crash before the slot is written leaves the previous data end in force, and
/// readers never look past it.
///
/// A `CHNG` payload: the number of records the save deleted and their keys (`UInt64`, then `Int64` each),
/// then the records it wrote, in the objects section's own layout (its entity table, then each entity's
/// records), whole: a record in a later change replaces the one read before.
enum BinaryChangeLog {
    /// The log is compacted (the file rewritten whole) once it is larger than this many bytes plus half the
    /// objects section: a store then reads at most about one and a half times what its objects take.
    static let compactionAllowance = 1 << 20

    /// Whether a log of `logSize` bytes over an objects section of `baseSize` bytes should be compacted
    /// instead of appended to.
    static func shouldCompact(logSize: Int, baseSize: Int) -> Bool {
        logSize > compactionAllowance + baseSize / 2
    }

    /// The payload of a change section.
    static func encode(deleted: [Int64], written: AtomicRecordTable, nextKey: Int64, model: ManagedObjectModel) -> Data {
        var writer = ByteWriter(capacity: 8 + 8 * deleted.count)
        writer.append(UInt64(deleted.count))
        for key in deleted { writer.append(key) }
        var payload = writer.data
        payload.append(BinaryObjectCoding.encode(AtomicStoreImage(metadata: [:], nextKey: nextKey, nodes: written), model: model))
        return payload
    }

    /// Applies one change section to the records read so far.
    static func apply(
        _ bytes: UnsafeRawBufferPointer, range: Range<Int>, to decoded: inout BinaryObjectCoding.Decoded,
        model: ManagedObjectModel, store: PersistentStore, file: URL
    ) throws {
        var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound, file: file, what: "a change section")
        let count = try reader.readCount(minimumSize: 8)
        for _ in 0..<count {
            let key = try reader.read(Int64.self)
            guard key > 0 else { throw reader.corrupt("deletes a record with key \(key)") }
            decoded.nodes[key] = nil
        }
        let written = try BinaryObjectCoding.decode(bytes, range: reader.offset..<range.upperBound, model: model, store: store, file: file)
        for key in written.nodes.keys { decoded.nodes[key] = written.nodes[key] }
        decoded.nextKey = max(decoded.nextKey, written.nextKey)
    }

    /// Appends sections at `offset` (the committed data end, overwriting whatever a crashed append left
    /// there), flushes them, then writes the metadata slot that commits them and flushes it.
    static func append(
        _ chunks: [Data], at offset: Int, slot: [UInt8], slotIndex: Int, header: BinaryStoreFormat.Header, to url: URL
    ) throws {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileWriter.error(errno, "open for writing", url) }
        defer { close(descriptor) }
        var position = offset
        for chunk in chunks {
            try write(chunk, at: &position, descriptor, url)
        }
        guard fsync(descriptor) == 0 else { throw AtomicFileWriter.error(errno, "flush", url) }
        var slotPosition = BinaryStoreFormat.headerSize + slotIndex * header.slotCapacity
        try write(Data(slot), at: &slotPosition, descriptor, url)
        guard fsync(descriptor) == 0 else { throw AtomicFileWriter.error(errno, "flush", url) }
    }

    private static func write(_ data: Data, at position: inout Int, _ descriptor: Int32, _ url: URL) throws {
        try data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(position + done))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw AtomicFileWriter.error(written < 0 ? errno : ENOSPC, "write the changes to", url) }
                done += written
            }
        }
        position += data.count
    }
}
