import QuireCore
import Foundation

extension BinaryObjectCoding {
    /// The number of bytes ``appendRecord(_:layout:to:)`` appends for a record, when every value is of a kind
    /// ``storeRecord(_:layout:into:)`` writes directly (all but decimals, URIs and external data references,
    /// whose encodings are made from strings); nil otherwise.
    ///
    /// With the size known, a record is written into memory set aside for it with plain stores and appended in
    /// one piece: appending its twenty-odd numbers and strings one by one to a growing array cost about 3,000
    /// instructions a record (`binary-save-100k`: a fifth of the save).
    package static func directRecordSize(_ node: RowSnapshot, layout: RecordLayout) -> Int? {
        var size = 16
        let attributes = node.attributes
        for slot in layout.attributeSlots {
            guard slot < attributes.count else {
                size += 1
                continue
            }
            switch attributes[slot] {
            case .null, .boolean: size += 1
            case .integer, .double, .date: size += 9
            case .float: size += 5
            case .uuid: size += 17
            case .string(let value): size += 5 + value.utf8.count
            case .data(let value): size += 9 + value.count
            case .decimal, .uri, .externalData: return nil
            }
        }
        let relationships = node.relationships
        for relationship in layout.relationships {
            let storage = relationship.slot < relationships.count ? relationships[relationship.slot] : .fault
            if !relationship.isToMany {
                if case .toOne(let id?) = storage, id.primaryKey != nil { size += 12 } else { size += 4 }
                continue
            }
            size += 4 + 12 * memberCount(storage)
        }
        return size
    }

    /// Writes a record as ``appendRecord(_:layout:to:)`` appends it into `buffer`, which must be exactly
    /// ``directRecordSize(_:layout:)`` bytes long; false (the buffer partly written) if the record does not fit
    /// it exactly, which a record that did not change between the two calls always does.
    package static func storeRecord(_ node: RowSnapshot, layout: RecordLayout, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var writer = DirectWriter(buffer)
        writer.store(node.objectID.primaryKey ?? 0)
        writer.store(node.version)
        let attributes = node.attributes
        for slot in layout.attributeSlots {
            guard slot < attributes.count else {
                writer.store(ValueTag.null.rawValue)
                continue
            }
            switch attributes[slot] {
            case .null: writer.store(ValueTag.null.rawValue)
            case .integer(let value):
                writer.store(ValueTag.integer.rawValue)
                writer.store(value)
            case .double(let value):
                writer.store(ValueTag.double.rawValue)
                writer.store(value.bitPattern)
            case .float(let value):
                writer.store(ValueTag.float.rawValue)
                writer.store(value.bitPattern)
            case .string(var value):
                writer.store(ValueTag.string.rawValue)
                value.withUTF8 { utf8 in
                    writer.store(UInt32(truncatingIfNeeded: utf8.count))
                    writer.store(UnsafeRawBufferPointer(utf8))
                }
            case .boolean(let value): writer.store((value ? ValueTag.trueValue : ValueTag.falseValue).rawValue)
            case .date(let value):
                writer.store(ValueTag.date.rawValue)
                writer.store(value.timeIntervalSinceReferenceDate.bitPattern)
            case .data(let value):
                writer.store(ValueTag.data.rawValue)
                writer.store(UInt64(value.count))
                value.withUnsafeBytes { writer.store($0) }
            case .uuid(let value):
                writer.store(ValueTag.uuid.rawValue)
                withUnsafeBytes(of: value.uuid) { writer.store($0) }
            case .decimal, .uri, .externalData:
                return false
            }
        }
        let relationships = node.relationships
        for relationship in layout.relationships {
            let storage = relationship.slot < relationships.count ? relationships[relationship.slot] : .fault
            if !relationship.isToMany {
                if case .toOne(let id?) = storage, let key = id.primaryKey {
                    writer.store(UInt32(truncatingIfNeeded: id.entity.entityNumber))
                    writer.store(key)
                } else {
                    writer.store(UInt32(0))
                }
                continue
            }
            writer.store(UInt32(truncatingIfNeeded: memberCount(storage)))
            func member(_ id: ObjectID) {
                writer.store(UInt32(truncatingIfNeeded: id.entity.entityNumber - 1))
                writer.store(id.primaryKey ?? 0)
            }
            // In the order of `RelationshipStorage.objectIDs`, which `appendRecord` writes.
            switch storage {
            case .fault: break
            case .toOne(let id): if let id { member(id) }
            case .toMany(let ids): for id in ids { member(id) }
            case .ordered(let ids): for id in ids { member(id) }
            }
        }
        return writer.isExact
    }

    /// The number of IDs a relationship holds (`objectIDs.count`, without making the array).
    private static func memberCount(_ storage: RelationshipStorage) -> Int {
        switch storage {
        case .fault: return 0
        case .toOne(let id): return id == nil ? 0 : 1
        case .toMany(let ids): return ids.count
        case .ordered(let ids): return ids.count
        }
    }

    /// Stores little-endian numbers and bytes one after the other into a buffer, never past its end: a store
    /// that does not fit is dropped and remembered.
    private struct DirectWriter {
        let buffer: UnsafeMutableRawBufferPointer
        var offset = 0
        var overflowed = false

        init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

        /// Whether every store fitted and the buffer is full.
        var isExact: Bool { !overflowed && offset == buffer.count }

        @inline(__always) mutating func store<T: FixedWidthInteger>(_ value: T) {
            let size = MemoryLayout<T>.size
            guard !overflowed, buffer.count - offset >= size else {
                overflowed = true
                return
            }
            // Unaligned stores of trivial values are allowed (SE-0349).
            buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
            offset += size
        }

        @inline(__always) mutating func store(_ bytes: UnsafeRawBufferPointer) {
            guard !overflowed, buffer.count - offset >= bytes.count else {
                overflowed = true
                return
            }
            if let source = bytes.baseAddress, let target = buffer.baseAddress, !bytes.isEmpty {
                (target + offset).copyMemory(from: source, byteCount: bytes.count)
            }
            offset += bytes.count
        }
    }
}
