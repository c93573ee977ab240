import QuireCore
import Foundation

/// What an atomic store's record table needs to know of its store's entities, shared by every copy of the
/// table: how each entity's records are laid out (``BinaryObjectCoding/RecordLayout``) and what a decoded
/// record starts from.
package final class AtomicRecordLayouts {
    /// The store the records' IDs belong to. `unowned(unsafe)`: the store owns its backend, which owns the
    /// table, so the store outlives every use.
    package unowned(unsafe) let store: PersistentStore
    /// By entity number (index 0 unused).
    let entities: [EntityDescription?]
    let layouts: [BinaryObjectCoding.RecordLayout?]
    /// The kind of each persistent relationship of each entity, in layout order.
    let kinds: [[BinaryObjectCoding.RelationshipKind]]
    /// What a record's relationships are before its own are read: empty for the persistent ones, `.fault`
    /// for transient ones (which hold nothing in a store).
    let emptyRelationships: [[RelationshipStorage]]
    /// A record's attributes before its values are read: `.null` in every slot.
    let emptyAttributes: [[AttributeValue]]

    init(store: PersistentStore) {
        self.store = store
        let byNumber = store.model.entitiesByNumber
        entities = [nil] + byNumber.map { Optional($0) }
        layouts = [nil] + byNumber.map { BinaryObjectCoding.RecordLayout($0) }
        kinds = [[]] + byNumber.map { entity in
            BinaryObjectCoding.persistentRelationships(entity).map { !$0.isToMany ? .toOne : $0.isOrdered ? .ordered : .toMany }
        }
        emptyRelationships = [[]] + byNumber.map { entity in
            var storages = [RelationshipStorage](repeating: .fault, count: entity.allRelationships.count)
            for relationship in BinaryObjectCoding.persistentRelationships(entity) where relationship.slot < storages.count {
                storages[relationship.slot] = .empty(for: relationship)
            }
            return storages
        }
        emptyAttributes = [[]] + byNumber.map { [AttributeValue](repeating: .null, count: $0.allAttributes.count) }
    }
}

/// An atomic store's records, packed: each record is kept as the bytes of its binary store encoding (values
/// and relationships as ``BinaryObjectCoding/appendRecord(_:layout:to:)`` writes them) in one buffer, with a
/// table from primary key to where its bytes are, and made into a ``RowSnapshot`` only when asked for. A
/// record takes about what it takes in a binary store file, against four times that as arrays of values.
///
/// Transient attributes and relationships are not kept (as in a store file): a record reads back with
/// `.null` and `.fault` in their slots. A record replaced or removed leaves its bytes behind until the buffer
/// is compacted, once such bytes outweigh the rest.
///
/// A value type, as the dictionary it replaces: a copy shares the buffer until either side changes.
package struct AtomicRecordTable {
    /// The layouts and store the records are read with.
    package let layouts: AtomicRecordLayouts
    /// Each record's offset in ``bytes``.
    private var offsets: [Int64: Int] = [:]
    /// Records, each as: entity number (`UInt32`), length of what follows (`UInt32`), the record's encoding.
    private var bytes: [UInt8] = []
    /// The bytes of records replaced or removed.
    private var unused = 0

    /// The size of a record's header in the buffer: its entity number and the length of its encoding, each a
    /// little-endian `UInt32`.
    package static let headerSize = 8

    /// An empty table for a store's records.
    package init(store: PersistentStore) { layouts = AtomicRecordLayouts(store: store) }

    /// A table of these records.
    package init(store: PersistentStore, rows: [Int64: RowSnapshot]) {
        self.init(store: store)
        reserveCapacity(rows.count)
        for (key, row) in rows { self[key] = row }
    }

    /// A table of records packed elsewhere as a table packs them: `bytes` holds each record as its header
    /// (``headerSize`` bytes: the entity number, then the length of its encoding, each a little-endian
    /// `UInt32`) and its encoding (as ``BinaryObjectCoding/appendRecord(_:layout:to:)`` writes it, with the
    /// store's entity numbers), and `offsets` where each key's header starts. The bytes are taken as they are:
    /// the caller (a store's reader that checked every value it packed) vouches for them.
    package init(store: PersistentStore, packedRecords bytes: [UInt8], offsets: [Int64: Int]) {
        self.init(store: store)
        self.bytes = bytes
        self.offsets = offsets
    }

    /// The number of records.
    package var count: Int { offsets.count }
    /// Whether there is no record.
    package var isEmpty: Bool { offsets.isEmpty }
    /// The records' keys, in no particular order.
    package var keys: Dictionary<Int64, Int>.Keys { offsets.keys }
    /// The bytes the table holds (records, the key table's entries, and bytes left by replaced records), for
    /// measuring.
    package var packedSize: Int { bytes.capacity + offsets.capacity * 16 }

    /// Reserves room for this many records in the key table.
    package mutating func reserveCapacity(_ count: Int) { offsets.reserveCapacity(count) }

    /// Removes every record.
    package mutating func removeAll() {
        offsets = [:]
        bytes = []
        unused = 0
    }

    /// The record with a key, decoded; setting packs the record (nil removes it).
    package subscript(key: Int64) -> RowSnapshot? {
        get { offsets[key].flatMap(record(at:)) }
        set {
            if let old = offsets[key] { unused += Self.headerSize + length(at: old) }
            offsets[key] = newValue.flatMap { append($0) }
            compactIfWasteful()
        }
    }

    /// Adds a record under a key that has none; false (and nothing changed) when the key has one.
    package mutating func insert(_ row: RowSnapshot, forKey key: Int64) -> Bool {
        guard offsets[key] == nil else { return false }
        offsets[key] = append(row)
        return true
    }

    /// Adds a record already encoded (as ``BinaryObjectCoding/appendRecord(_:layout:to:)`` writes it, with
    /// the store's entity numbers) under a key that has none; false (and nothing changed) when the key has one.
    mutating func insertEncoded(_ encoded: UnsafeRawBufferPointer, entityNumber: Int, key: Int64) -> Bool {
        guard entityNumber > 0, entityNumber < layouts.layouts.count else { return false }
        // One lookup: the key is claimed for the new offset, and given back on the rare duplicate.
        if let old = offsets.updateValue(bytes.count, forKey: key) {
            offsets[key] = old
            return false
        }
        withUnsafeBytes(of: UInt32(entityNumber).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: encoded)
        return true
    }

    /// The bytes of the packed records (with their headers, and any dead space a replaced record left).
    var encodedByteCount: Int { bytes.count }

    /// Reserves room for this many more bytes of records.
    mutating func reserveBytes(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// The length of the encoding of the record with a key (its header not counted), read without decoding it.
    func encodedLength(of key: Int64) -> Int? { offsets[key].map(length(at:)) }

    /// The entity number of the record with a key, read without decoding it.
    package func entityNumber(of key: Int64) -> Int? {
        offsets[key].map(entityNumber(at:))
    }

    /// Calls `body` with each record's key and entity number, decoding none.
    func forEachEntityNumber(_ body: (Int64, Int) throws -> Void) rethrows {
        for (key, offset) in offsets { try body(key, entityNumber(at: offset)) }
    }

    /// The records whose entity number `wanted` accepts, decoded, in no particular order.
    package func records(where wanted: (Int) -> Bool) -> [RowSnapshot] {
        var result: [RowSnapshot] = []
        for (_, offset) in offsets where wanted(entityNumber(at: offset)) {
            if let row = record(at: offset) { result.append(row) }
        }
        return result
    }

    /// Calls `body` with every record, decoded, in no particular order.
    package func forEach(_ body: (RowSnapshot) throws -> Void) rethrows {
        for (_, offset) in offsets {
            if let row = record(at: offset) { try body(row) }
        }
    }

    /// The keys in ascending order.
    package func sortedKeys() -> [Int64] { offsets.keys.sorted() }

    /// Calls `body` with the encoded bytes of the record with a key (as ``BinaryObjectCoding`` writes it in a
    /// file), without decoding it.
    func withEncodedRecord<T>(_ key: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard let offset = offsets[key] else { return nil }
        let length = length(at: offset)
        return try bytes.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[(offset + Self.headerSize)..<(offset + Self.headerSize + length)]))
        }
    }

    // MARK: Packing

    /// Packs a record at the end of the buffer and returns its offset; nil (nothing packed) for a record of
    /// an entity the store's model does not number, which no store of it can hold.
    private mutating func append(_ row: RowSnapshot) -> Int? {
        var number = row.objectID.entity.entityNumber
        if number <= 0 || number >= layouts.entities.count || layouts.entities[number] !== row.objectID.entity {
            // An entity of another copy of the model: the store's own entity of that name.
            number = layouts.store.model.entitiesByName[row.objectID.entity.name]?.entityNumber ?? 0
        }
        let offset = bytes.count
        guard number > 0, number < layouts.layouts.count, let layout = layouts.layouts[number] else { return nil }
        // Most records are written into memory set aside for them and appended in one piece (see
        // `BinaryObjectCoding.directRecordSize`).
        if let size = BinaryObjectCoding.directRecordSize(row, layout: layout) {
            let total = Self.headerSize + size
            let stored = withUnsafeTemporaryAllocation(byteCount: total, alignment: 8) { buffer -> Bool in
                buffer.storeBytes(of: UInt32(number).littleEndian, toByteOffset: 0, as: UInt32.self)
                buffer.storeBytes(of: UInt32(size).littleEndian, toByteOffset: 4, as: UInt32.self)
                let record = UnsafeMutableRawBufferPointer(rebasing: buffer[Self.headerSize...])
                guard BinaryObjectCoding.storeRecord(row, layout: layout, into: record) else { return false }
                bytes.append(contentsOf: UnsafeRawBufferPointer(buffer))
                return true
            }
            if stored { return offset }
        }
        // Encoded in place at the end of the buffer (the length patched once known): no buffer of its own.
        var writer = ByteWriter(taking: &bytes)
        writer.append(UInt32(number))
        writer.append(UInt32(0))
        BinaryObjectCoding.appendRecord(row, layout: layout, to: &writer)
        writer.patch(UInt32(writer.count - offset - Self.headerSize), at: offset + 4)
        bytes = writer.takeBytes()
        return offset
    }

    private func entityNumber(at offset: Int) -> Int {
        bytes.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
    }

    private func length(at offset: Int) -> Int {
        guard offset + Self.headerSize <= bytes.count else { return 0 }
        return bytes.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))) }
    }

    /// Rewrites the buffer with only the records in use, once unused bytes are more than half of it.
    private mutating func compactIfWasteful() {
        guard unused > 1 << 16, unused > bytes.count / 2 else { return }
        var packed: [UInt8] = []
        packed.reserveCapacity(bytes.count - unused)
        var moved: [Int64: Int] = [:]
        moved.reserveCapacity(offsets.count)
        for key in offsets.keys.sorted() {
            guard let offset = offsets[key] else { continue }
            moved[key] = packed.count
            packed.append(contentsOf: bytes[offset..<(offset + Self.headerSize + length(at: offset))])
        }
        bytes = packed
        offsets = moved
        unused = 0
    }

    // MARK: Decoding

    /// The record at an offset, decoded; nil only if its bytes were damaged in memory (they were written
    /// by ``append(_:)``, so every read is in bounds and every tag known).
    private func record(at offset: Int) -> RowSnapshot? {
        let number = entityNumber(at: offset)
        guard number > 0, number < layouts.layouts.count, let layout = layouts.layouts[number], let entity = layouts.entities[number]
        else { return nil }
        let length = length(at: offset)
        return bytes.withUnsafeBytes { raw -> RowSnapshot? in
            let start = offset + Self.headerSize
            var reader = ByteReader(raw, from: start, to: start + length, file: URL(fileURLWithPath: "/"), what: "a record")
            return try? decode(&reader, entity: entity, number: number, layout: layout)
        }
    }

    private func decode(
        _ reader: inout ByteReader, entity: EntityDescription, number: Int, layout: BinaryObjectCoding.RecordLayout
    ) throws -> RowSnapshot {
        let key = try reader.read(Int64.self)
        let version = try reader.read(Int64.self)
        var attributes = layouts.emptyAttributes[number]
        for slot in layout.attributeSlots {
            let value = try BinaryObjectCoding.decodeValue(&reader)
            if slot < attributes.count { attributes[slot] = value }
        }
        var relationships = layouts.emptyRelationships[number]
        let kinds = layouts.kinds[number]
        let store = layouts.store
        for (index, relationship) in layout.relationships.enumerated() {
            switch kinds[index] {
            case .toOne:
                let target = Int(try reader.read(UInt32.self))
                guard target != 0 else { continue }
                let targetKey = try reader.read(Int64.self)
                guard target < layouts.entities.count, let targetEntity = layouts.entities[target] else { continue }
                relationships[relationship.slot] = .toOne(ObjectID(entity: targetEntity, store: store, primaryKey: targetKey))
            case .toMany, .ordered:
                let memberCount = Int(try reader.read(UInt32.self))
                guard memberCount > 0 else { continue }
                var members: [ObjectID] = []
                members.reserveCapacity(memberCount)
                for _ in 0..<memberCount {
                    let target = Int(try reader.read(UInt32.self)) + 1
                    let targetKey = try reader.read(Int64.self)
                    guard target < layouts.entities.count, let targetEntity = layouts.entities[target] else { continue }
                    members.append(ObjectID(entity: targetEntity, store: store, primaryKey: targetKey))
                }
                relationships[relationship.slot] = kinds[index] == .ordered ? .ordered(.init(members)) : .toMany(Set(members))
            }
        }
        return RowSnapshot(
            objectID: ObjectID(entity: entity, store: store, primaryKey: key), version: version, attributes: attributes,
            relationships: relationships)
    }
}
