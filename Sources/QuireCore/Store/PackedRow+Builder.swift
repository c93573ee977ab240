import Foundation

/// Packs a row's values one at a time, in slot order (attributes, then relationships), into one reusable
/// buffer, in the format of ``PackedRow/make(attributes:relationships:generation:)``, then copies them into a
/// ``PackedRow`` (``finish()``): a store's row reader writes each column straight into its packed form, with
/// no array of values and no allocation for a string or data value on the way. One builder serves a whole
/// fetch (``reset()`` between rows); confined to the request that reads the rows.
@_spi(QuireEngine) public final class PackedRowBuilder {
    // The builder is used by one request at a time, never shared: its properties need no dynamic exclusivity
    // checks (each would cost a runtime call per value written).
    @usableFromInline @exclusivity(unchecked) var bytes: UnsafeMutableRawPointer
    @usableFromInline @exclusivity(unchecked) var capacity: Int
    @usableFromInline @exclusivity(unchecked) var count = 0
    @usableFromInline @exclusivity(unchecked) var attributeCount = 0
    @usableFromInline @exclusivity(unchecked) var relationshipCount = 0
    /// False once a value the packing does not cover was put (a decimal, UUID, URI, external data reference,
    /// loaded to-many set, or a string or data value of 4 GiB or more).
    @usableFromInline @exclusivity(unchecked) var packable = true

    /// An empty builder.
    package init() {
        capacity = 512
        bytes = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { bytes.deallocate() }

    /// Starts another row.
    @inlinable
    package func reset() {
        count = 0
        attributeCount = 0
        relationshipCount = 0
        packable = true
    }

    /// The packed row of the values put since ``reset()``, or nil when one of them cannot be packed (the reader
    /// then makes the row's arrays instead).
    @usableFromInline package func finish() -> PackedRow? {
        guard packable, attributeCount <= Int(UInt16.max), relationshipCount <= Int(UInt16.max) else { return nil }
        return PackedRow.make(
            packed: UnsafeRawBufferPointer(start: bytes, count: count), attributeCount: attributeCount,
            relationshipCount: relationshipCount)
    }

    @inlinable @inline(__always)
    func reserve(_ needed: Int) {
        if count &+ needed > capacity { grow(needed) }
    }

    @usableFromInline
    func grow(_ needed: Int) {
        let newCapacity = max(capacity * 2, count + needed)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: bytes, byteCount: count)
        bytes.deallocate()
        bytes = grown
        capacity = newCapacity
    }

    /// Writes a value's bytes (an integer, a real, a tag byte, an object ID: plain bits, no references to
    /// retain); ``reserve(_:)`` made room for them, so the store stays inside the buffer.
    @inlinable @inline(__always)
    func put<Value: BitwiseCopyable>(_ value: Value) {
        bytes.storeBytes(of: value, toByteOffset: count, as: Value.self)
        count &+= MemoryLayout<Value>.size
    }

    /// Writes an object ID as its plain bits (``PackedRow/PackedObjectID``: its entity's address, store token and
    /// key; the row keeps no reference); ``reserve(_:)`` made room for it.
    @inlinable @inline(__always)
    func put(_ value: ObjectID) {
        put(PackedRow.PackedObjectID(value))
    }

    @inlinable @inline(__always)
    func putTag(_ tag: PackedRow.Tag) { put(tag.rawValue) }

    /// Writes a tag, a length and the bytes of a string or data value.
    @inlinable @inline(__always)
    func putBytes(_ tag: PackedRow.Tag, _ source: UnsafeRawBufferPointer) {
        let length = source.count
        guard length <= Int(UInt32.max) else {
            packable = false
            reserve(1)
            putTag(.null)
            return
        }
        reserve(6 &+ length)
        putTag(tag)
        if length < Int(PackedRow.longLength) {
            put(UInt8(truncatingIfNeeded: length))
        } else {
            put(PackedRow.longLength)
            put(UInt32(truncatingIfNeeded: length))
        }
        if length > 0, let base = source.baseAddress { (bytes + count).copyMemory(from: base, byteCount: length) }
        count &+= length
    }

    /// A NULL value.
    @inlinable @inline(__always)
    package func null() {
        reserve(1)
        putTag(.null)
        attributeCount &+= 1
    }

    /// An integer.
    @inlinable @inline(__always)
    package func integer(_ value: Int64) {
        reserve(9)
        putTag(.integer)
        put(value)
        attributeCount &+= 1
    }

    /// A Boolean.
    @inlinable @inline(__always)
    package func boolean(_ value: Bool) {
        reserve(1)
        putTag(value ? .booleanTrue : .booleanFalse)
        attributeCount &+= 1
    }

    /// A double.
    @inlinable @inline(__always)
    package func double(_ value: Double) {
        reserve(9)
        putTag(.double)
        put(value)
        attributeCount &+= 1
    }

    /// A date, as seconds since 2001.
    @inlinable @inline(__always)
    package func date(_ seconds: Double) {
        reserve(9)
        putTag(.date)
        put(seconds)
        attributeCount &+= 1
    }

    /// A string's UTF-8 bytes.
    @inlinable @inline(__always)
    package func text(_ source: UnsafeRawBufferPointer) {
        putBytes(.string, source)
        attributeCount &+= 1
    }

    /// A data value's bytes.
    @inlinable @inline(__always)
    package func data(_ source: UnsafeRawBufferPointer) {
        putBytes(.data, source)
        attributeCount &+= 1
    }

    /// Any attribute value: floats are packed, the types the packing does not cover make the row unpackable.
    @usableFromInline package func value(_ value: AttributeValue) {
        switch value {
        case .null: null()
        case .integer(let number): integer(number)
        case .boolean(let flag): boolean(flag)
        case .double(let number): double(number)
        case .date(let date): self.date(date.timeIntervalSinceReferenceDate)
        case .float(let number):
            reserve(5)
            putTag(.float)
            put(number)
            attributeCount &+= 1
        case .string(var text): text.withUTF8 { self.text(UnsafeRawBufferPointer($0)) }
        case .data(let bytes): bytes.withUnsafeBytes { self.data($0) }
        case .decimal, .uuid, .uri, .externalData:
            packable = false
            null()
        }
    }

    /// A to-one's permanent ID, as the bits ``relationship(_:)`` writes for `.toOne(ObjectID(entity: destination,
    /// store:, primaryKey: key))` of a store whose token is `token`, without making the ID (no reference counted).
    @inlinable @inline(__always)
    package func toOne(_ destination: Unmanaged<EntityDescription>, token: UInt64, key: Int64) {
        reserve(1 &+ MemoryLayout<PackedRow.PackedObjectID>.size)
        putTag(.toOne)
        put(PackedRow.PackedObjectID(entity: destination.toOpaque(), token: token, key: key))
        relationshipCount &+= 1
    }

    /// A relationship's value: a to-one ID or none, or a to-many fault.
    @inlinable @inline(__always)
    package func relationship(_ value: RelationshipStorage) {
        switch value {
        case .toOne(let id?):
            reserve(1 &+ MemoryLayout<PackedRow.PackedObjectID>.size)
            putTag(.toOne)
            put(id)
        case .toOne(nil):
            reserve(1)
            putTag(.toOneNone)
        case .fault:
            reserve(1)
            putTag(.relationshipFault)
        case .toMany, .ordered:
            packable = false
            reserve(1)
            putTag(.relationshipFault)
        }
        relationshipCount &+= 1
    }
}

extension PackedRow {
    /// A packed row of bytes ``PackedRowBuilder`` wrote.
    static func make(packed: UnsafeRawBufferPointer, attributeCount: Int, relationshipCount: Int) -> PackedRow {
        let row = unsafeDowncast(
            create(minimumCapacity: packed.count) { _ in
                Header(
                    generation: 0, unpacked: nil, attributeCount: UInt16(attributeCount),
                    relationshipCount: UInt16(relationshipCount))
            }, to: PackedRow.self)
        if let base = packed.baseAddress, packed.count > 0 {
            row.withUnsafeMutablePointerToElements { $0.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: packed.count) }
        }
        return row
    }
}

/// A row read straight into its packed form (``PackedRowBuilder``): what a fetch of objects takes from a
/// store (``PersistentStoreBackend/visitPackedRowsIfEvaluable(_:_:)``), kept by the object as its values.
@_spi(QuireEngine) public struct PackedRowSnapshot {
    /// The record's ID.
    package var objectID: ObjectID
    /// The record's version (`Z_OPT`).
    package var version: Int64
    /// The record's values, packed (or kept as arrays when one of them cannot be).
    package var values: PackedRow

    /// A row's ID, version and values.
    @usableFromInline package init(objectID: ObjectID, version: Int64, values: PackedRow) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// The ID, version and values, moved out of the snapshot (no retain of the ID's owner or of the row).
    @inline(__always)
    package consuming func parts() -> (objectID: ObjectID, version: Int64, values: PackedRow) {
        (objectID, version, values)
    }

    /// A row read as arrays, packed.
    package init(_ row: borrowing RowSnapshot) {
        self.init(
            objectID: row.objectID, version: row.version,
            values: PackedRow.make(attributes: row.attributes, relationships: row.relationships, generation: 0))
    }
}
