import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The layout of a binary store file (see the BinaryStoreFormat article): a 32-byte header, two metadata
/// slots, then checksummed sections (the model, the objects, an end marker), then the change log: saves
/// appended as change sections, each followed by an end marker. All numbers little-endian.
package enum BinaryStoreFormat {
    /// `\x89QBIN\r\n\x1A`: a non-ASCII first byte and a line ending, as PNG's, so that text-mode transfers
    /// and truncation to 7 bits are detected.
    package static let magic: [UInt8] = [0x89, 0x51, 0x42, 0x49, 0x4E, 0x0D, 0x0A, 0x1A]
    /// The format version Quire writes: 2 adds the change log and the data end in each metadata slot.
    package static let version: UInt32 = 2
    /// The versions Quire reads: 1 (whole files only) and 2.
    static let readableVersions: ClosedRange<UInt32> = 1...2
    package static let headerSize = 32
    /// The size of a metadata slot's header in the current version (16 in version 1, without the data end).
    static let slotHeaderSize = 24
    static let sectionHeaderSize = 24
    /// Section tags, four ASCII characters read as a little-endian number.
    static let modelTag = tag("MODL")
    static let objectsTag = tag("OBJS")
    static let endTag = tag("END ")
    /// A save appended to the file: the records it deleted and the records it wrote (see ``BinaryChangeLog``).
    static let changesTag = tag("CHNG")
    /// The largest metadata block accepted (as for property lists elsewhere).
    static let maximumMetadataSize = PropertyListValue.defaultMaximumSize

    package static func tag(_ text: String) -> UInt32 {
        Array(text.utf8).enumerated().reduce(UInt32(0)) { $0 | (UInt32($1.element) << (8 * UInt32($1.offset))) }
    }

    /// The capacity of each metadata slot for a payload: room to grow in place, in 4 KiB steps.
    static func slotCapacity(for payloadSize: Int) -> Int {
        let wanted = max(4096, 2 * payloadSize + slotHeaderSize)
        return (wanted + 4095) / 4096 * 4096
    }

    /// The header: magic, version, slot capacity, offset of the first section, CRC-32 of the first 28 bytes.
    package struct Header {
        var slotCapacity: Int
        /// The file's format version: 1 or 2.
        package var version: UInt32 = BinaryStoreFormat.version
        package var sectionsOffset: Int { BinaryStoreFormat.headerSize + 2 * slotCapacity }
        /// The size of each slot's header in this version.
        var slotHeaderSize: Int { version >= 2 ? 24 : 16 }

        package init(slotCapacity: Int, version: UInt32 = BinaryStoreFormat.version) {
            self.slotCapacity = slotCapacity
            self.version = version
        }

        package func encoded() -> [UInt8] {
            var writer = ByteWriter(capacity: BinaryStoreFormat.headerSize)
            writer.append(bytes: BinaryStoreFormat.magic)
            writer.append(version)
            writer.append(UInt32(slotCapacity))
            writer.append(UInt64(sectionsOffset))
            writer.append(UInt32(0))
            let crc = writer.bytes.withUnsafeBytes { CRC32.checksum($0) }
            writer.append(crc)
            return writer.bytes
        }

        /// Reads and checks a header.
        package static func decode(_ bytes: UnsafeRawBufferPointer, file: URL) throws -> Header {
            guard bytes.count >= BinaryStoreFormat.headerSize else {
                if bytes.count >= 8, Array(bytes.prefix(8)) == BinaryStoreFormat.magic {
                    throw QuireError(
                        .fileReadCorruptFile, "The binary store '\(file.path)' is truncated (\(bytes.count) bytes, shorter than its header).",
                        context: .init(file: file, position: bytes.count))
                }
                throw notBinary(file)
            }
            guard Array(bytes.prefix(8)) == BinaryStoreFormat.magic else { throw notBinary(file) }
            var reader = ByteReader(bytes, from: 8, to: BinaryStoreFormat.headerSize, file: file, what: "the header")
            let version = try reader.read(UInt32.self)
            let capacity = try reader.read(UInt32.self)
            let sections = try reader.read(UInt64.self)
            _ = try reader.read(UInt32.self)
            let crc = try reader.read(UInt32.self)
            guard crc == CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) else {
                throw QuireError(
                    .fileReadCorruptFile, "The binary store '\(file.path)' has a corrupt header (checksum mismatch).",
                    context: .init(file: file, position: 28))
            }
            guard BinaryStoreFormat.readableVersions.contains(version) else {
                throw QuireError(
                    .persistentStoreIncompatibleSchema,
                    "The binary store '\(file.path)' has format version \(version); this version of Quire reads versions "
                        + "\(BinaryStoreFormat.readableVersions.lowerBound) to \(BinaryStoreFormat.readableVersions.upperBound).",
                    context: .init(file: file, position: 8))
            }
            let header = Header(slotCapacity: Int(capacity), version: version)
            guard capacity >= 4096, capacity % 4096 == 0, capacity <= 1 << 30, UInt64(header.sectionsOffset) == sections else {
                throw QuireError(
                    .fileReadCorruptFile, "The binary store '\(file.path)' has a corrupt header (slot capacity \(capacity)).",
                    context: .init(file: file, position: 12))
            }
            return header
        }
    }

    static func notBinary(_ file: URL) -> QuireError {
        QuireError(.fileReadCorruptFile, "The file '\(file.path)' is not a Quire binary store.", context: .init(file: file))
    }

    /// One metadata slot: a generation number, the payload's length and checksum, in version 2 the data end
    /// (where the file's committed sections end; the checksum covers it too), the payload (a binary property
    /// list), zero padding up to the slot's capacity.
    static func encodeSlot(generation: UInt64, payload: Data, capacity: Int, version: UInt32 = version, dataEnd: Int = 0) -> [UInt8] {
        var writer = ByteWriter(capacity: capacity)
        writer.append(generation)
        writer.append(UInt32(payload.count))
        var crc = CRC32()
        if version >= 2 { withUnsafeBytes(of: UInt64(dataEnd).littleEndian) { crc.update($0) } }
        payload.withUnsafeBytes { crc.update($0) }
        writer.append(crc.value)
        if version >= 2 { writer.append(UInt64(dataEnd)) }
        writer.append(bytes: payload)
        writer.append(bytes: repeatElement(UInt8(0), count: capacity - writer.count))
        return writer.bytes
    }

    /// A metadata slot as read: where it is, its generation, its payload, and (version 2) where the file's
    /// committed sections end.
    package struct Slot {
        package let index: Int
        package let generation: UInt64
        package let payload: Data
        /// Nil in version 1 files, which end at their first end marker.
        let dataEnd: Int?
    }

    /// The valid slot with the highest generation.
    static func newestSlot(_ bytes: UnsafeRawBufferPointer, header: Header, file: URL) throws -> Slot {
        var best: Slot?
        for index in 0..<2 {
            let start = headerSize + index * header.slotCapacity
            guard bytes.count >= start + header.slotCapacity else { continue }
            var reader = ByteReader(bytes, from: start, to: start + header.slotCapacity, file: file, what: "metadata slot \(index)")
            let generation = try reader.read(UInt64.self)
            let length = Int(try reader.read(UInt32.self))
            let crc = try reader.read(UInt32.self)
            var checksum = CRC32()
            var dataEnd: Int?
            if header.version >= 2 {
                let end = try reader.read(UInt64.self)
                withUnsafeBytes(of: end.littleEndian) { checksum.update($0) }
                // An end beyond any possible file is a damaged slot, like a checksum mismatch.
                guard end >= UInt64(header.sectionsOffset), end <= UInt64(Int64.max) else { continue }
                dataEnd = Int(end)
            }
            guard generation > 0, length <= reader.remaining, length <= maximumMetadataSize else { continue }
            let payload = try reader.readBytes(length)
            checksum.update(payload)
            guard checksum.value == crc else { continue }
            if generation > best?.generation ?? 0 { best = Slot(index: index, generation: generation, payload: Data(payload), dataEnd: dataEnd) }
        }
        guard let best else {
            throw QuireError(
                .fileReadCorruptFile, "The binary store '\(file.path)' has no intact metadata block.",
                context: .init(file: file, position: headerSize))
        }
        return best
    }

    /// Decodes a metadata payload.
    static func decodeMetadata(_ payload: Data, file: URL) throws -> [String: PropertyListValue] {
        do {
            return try PropertyListValue.decodeDictionary(from: payload)
        } catch var error as QuireError {
            error.context.file = file
            error.message = "The metadata of the binary store '\(file.path)' is corrupt: " + error.message
            throw error
        }
    }

    /// One section: tag, flags, payload length, payload CRC-32, reserved, payload.
    static func appendSection(_ tag: UInt32, payload: Data, to chunks: inout [Data]) {
        var writer = ByteWriter(capacity: sectionHeaderSize)
        writer.append(tag)
        writer.append(UInt32(0))
        writer.append(UInt64(payload.count))
        writer.append(payload.withUnsafeBytes { CRC32.checksum($0) })
        writer.append(UInt32(0))
        chunks.append(writer.data)
        if !payload.isEmpty { chunks.append(payload) }
    }

    /// A section's payload and the checksum its header gives for it.
    package struct Section {
        package let tag: UInt32
        package let range: Range<Int>
        package let checksum: UInt32
        /// Where the section's header starts.
        package let start: Int
    }

    /// The sections after the metadata slots, checked: tag to payload range.
    package static func sections(_ bytes: UnsafeRawBufferPointer, header: Header, file: URL) throws -> [UInt32: Range<Int>] {
        try sections(bytes, header: header, file: file, unverified: []).mapValues(\.range)
    }

    /// The sections of the whole file written last (up to the first end marker) after the metadata slots,
    /// each checked against its checksum except those of the tags in `unverified`, which the caller checks
    /// with ``verify(_:of:file:)`` (while it decodes them, say).
    package static func sections(
        _ bytes: UnsafeRawBufferPointer, header: Header, file: URL, unverified: Set<UInt32>
    ) throws -> [UInt32: Section] {
        var result: [UInt32: Section] = [:]
        for section in try sectionList(bytes, header: header, end: nil, file: file, unverified: unverified) where section.tag != endTag {
            result[section.tag] = section
        }
        return result
    }

    /// Every section in file order, end markers included: up to the first end marker when `end` is nil
    /// (version 1), else up to `end`, the committed data end of the newest metadata slot, which must fall
    /// just after an end marker. What lies beyond `end` (a save that crashed while appending) is not read.
    static func sectionList(
        _ bytes: UnsafeRawBufferPointer, header: Header, end: Int?, file: URL, unverified: Set<UInt32>
    ) throws -> [Section] {
        if let end, end > bytes.count {
            throw QuireError(
                .fileReadCorruptFile,
                "The binary store '\(file.path)' is truncated: its metadata says its data ends at offset \(end), "
                    + "but the file is \(bytes.count) bytes long.",
                context: .init(file: file, position: bytes.count))
        }
        var reader = ByteReader(bytes, from: header.sectionsOffset, to: end ?? bytes.count, file: file, what: "the section list")
        var result: [Section] = []
        while true {
            let start = reader.offset
            let tag = try reader.read(UInt32.self)
            _ = try reader.read(UInt32.self)
            let length = try reader.read(UInt64.self)
            let crc = try reader.read(UInt32.self)
            _ = try reader.read(UInt32.self)
            guard length <= UInt64(reader.remaining) else {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The binary store '\(file.path)' is truncated: a section of \(length) bytes starts at offset \(start) "
                        + "but the file's data ends \(reader.remaining) bytes later.",
                    context: .init(file: file, position: start))
            }
            _ = try reader.readBytes(Int(length))
            let section = Section(tag: tag, range: (reader.offset - Int(length))..<reader.offset, checksum: crc, start: start)
            if !unverified.contains(tag) { try verify(section, of: bytes, file: file) }
            result.append(section)
            if tag == endTag && (end == nil || reader.offset == end) { break }
        }
        return result
    }

    /// Checks a section's payload against its checksum.
    package static func verify(_ section: Section, of bytes: UnsafeRawBufferPointer, file: URL) throws {
        guard CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[section.range])) == section.checksum else {
            throw QuireError(
                .fileReadCorruptFile,
                "The binary store '\(file.path)' is corrupt: the checksum of the section at offset \(section.start) does not match.",
                context: .init(file: file, position: section.start))
        }
    }

    // MARK: Metadata without the graph

    /// Reads the metadata of a binary store file: the header and the two slots, whatever the file's size.
    package static func readMetadata(at url: URL) throws -> [String: PropertyListValue] {
        let handle = try openForReading(url)
        defer { try? handle.close() }
        let headerBytes = (try? handle.read(upToCount: headerSize)) ?? Data()
        let header = try headerBytes.withUnsafeBytes { try Header.decode($0, file: url) }
        let slots = (try? handle.read(upToCount: 2 * header.slotCapacity)) ?? Data()
        var whole = headerBytes
        whole.append(slots)
        let slot = try whole.withUnsafeBytes { try newestSlot($0, header: header, file: url) }
        return try decodeMetadata(slot.payload, file: url)
    }

    /// Writes new metadata into the older slot, in place, and fsyncs: a torn write damages only that slot,
    /// and the other still holds the previous metadata. Returns false when the payload does not fit a slot.
    static func writeMetadataInPlace(_ payload: Data, at url: URL) throws -> Bool {
        let handle = try openForReading(url)
        let headerBytes = (try? handle.read(upToCount: headerSize)) ?? Data()
        let header = try headerBytes.withUnsafeBytes { try Header.decode($0, file: url) }
        var whole = headerBytes
        whole.append((try? handle.read(upToCount: 2 * header.slotCapacity)) ?? Data())
        try? handle.close()
        let newest = try whole.withUnsafeBytes { try newestSlot($0, header: header, file: url) }
        guard payload.count + header.slotHeaderSize <= header.slotCapacity else { return false }
        let target = 1 - newest.index
        let slot = encodeSlot(
            generation: newest.generation + 1, payload: payload, capacity: header.slotCapacity, version: header.version,
            dataEnd: newest.dataEnd ?? 0)
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileWriter.error(errno, "open for writing", url) }
        defer { close(descriptor) }
        let offset = off_t(headerSize + target * header.slotCapacity)
        let written = slot.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
        guard written == slot.count else { throw AtomicFileWriter.error(written < 0 ? errno : ENOSPC, "write the metadata of", url) }
        guard fsync(descriptor) == 0 else { throw AtomicFileWriter.error(errno, "flush", url) }
        return true
    }

    package static func openForReading(_ url: URL) throws -> FileHandle {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw QuireError(
                exists ? .fileReadNoPermission : .fileReadNoSuchFile,
                exists ? "The store '\(url.path)' cannot be read." : "There is no store at '\(url.path)'.",
                context: .init(file: url))
        }
        return handle
    }
}
