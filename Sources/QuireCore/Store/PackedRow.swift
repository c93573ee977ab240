import Foundation

/// The row a fault keeps from the fetch that made it (where Core Data's row cache would keep it), packed into
/// one allocation: its values' bytes one after another, strings and data inline, instead of an array of
/// ``AttributeValue``s with a separate allocation for every string and data value. A fault of the benchmark's
/// entity holds 248 bytes of row this way (a 256-byte heap block), against about 730 as arrays.
///
/// Firing the fault keeps the packed row as the object's values: reads decode the one value they ask for
/// (``attribute(at:)``, ``relationship(at:)``), and the first change, or anything that needs the values as
/// arrays, unpacks it (``unpacked()``). A row with a value the packing does not cover (decimals, UUIDs, URIs,
/// external data references, loaded to-many sets) keeps its arrays as they came.
@usableFromInline package final class PackedRow: ManagedBuffer<PackedRow.Header, UInt8> {
    /// What the allocation holds besides the bytes.
    ///
    /// 20 bytes (the bytes follow it directly): the row as it came first, then the generation in 32 bits and
    /// the four 16-bit counts. A fault of `quire-bench`'s entity keeps one, so every byte here counts a million
    /// times in `faults-1m-memory`.
    @usableFromInline package struct Header {
        /// The row as it came, when it has a value the packing does not cover; `nil` when packed.
        package let unpacked: Unpacked?
        /// The low 32 bits of ``generation``.
        private var generationBits: UInt32
        /// The coordinator's held-row generation when the row was kept as a fault's (see `heldRowIsCurrent`);
        /// set by the context that keeps it. Kept in 32 bits: a row compares equal to a generation 2³² later,
        /// which would take four billion batch requests and store changes while one fault keeps its row.
        package var generation: Int {
            get { Int(generationBits) }
            set { generationBits = UInt32(truncatingIfNeeded: newValue) }
        }
        /// The number of attribute values packed.
        package let attributeCount: UInt16
        /// The number of relationship values packed.
        package let relationshipCount: UInt16
        /// Where the attribute of slot `nextSlot` starts (a byte offset), as the last read found it: reads in
        /// slot order (an object shown field by field) then decode each value without skipping the ones before.
        var nextSlot: UInt16 = 0
        var nextOffset: UInt16 = 0

        /// A header.
        init(generation: Int, unpacked: Unpacked?, attributeCount: UInt16, relationshipCount: UInt16) {
            self.unpacked = unpacked
            self.generationBits = UInt32(truncatingIfNeeded: generation)
            self.attributeCount = attributeCount
            self.relationshipCount = relationshipCount
        }
    }

    /// A row kept as arrays.
    package final class Unpacked {
        /// Attribute values by slot.
        package let attributes: [AttributeValue]
        /// Relationship values by slot.
        package let relationships: [RelationshipStorage]

        /// Keeps a row's arrays.
        package init(attributes: [AttributeValue], relationships: [RelationshipStorage]) {
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    /// A to-one's ``ObjectID`` as packed: its entity's address, its store's token and its key, plain bits. The ID
    /// is made again, with an owner that keeps its entity alive, when the value is read (``relationship(at:owner:)``).
    @usableFromInline struct PackedObjectID: BitwiseCopyable {
        @usableFromInline let entity: UnsafeMutableRawPointer
        @usableFromInline let token: UInt64
        @usableFromInline let keyBits: UInt64

        @inlinable init(_ id: ObjectID) {
            entity = id.entityHandle.toOpaque()
            token = id.storeToken
            keyBits = id.keyBits
        }

        /// The bits of the permanent ID of `key` in the store of `token`, for an entity by its address.
        @inlinable init(entity: UnsafeMutableRawPointer, token: UInt64, key: Int64) {
            self.entity = entity
            self.token = token
            self.keyBits = UInt64(bitPattern: key)
        }

        /// The ID again: owned by `owner` when that is the owner of the ID's store and keeps its entity alive (the
        /// object holding the row is of the same store and model), else by one that does. The entity is alive:
        /// the row's values were read by the store of the object that holds the row, with that store's model.
        func objectID(owner: ObjectIDOwner?) -> ObjectID {
            let entity = Unmanaged<EntityDescription>.fromOpaque(entity).takeUnretainedValue()
            let kept: ObjectIDOwner
            if let owner, owner.token == token, owner.keeps(entity) {
                kept = owner
            } else if token != 0, let store = StoreHandles.shared.store(for: token), store.idOwner.keeps(entity) {
                kept = store.idOwner
            } else {
                kept = ObjectIDOwner(token: token, keeping: entity)
            }
            return ObjectID(entity: entity, owner: kept, keyBits: keyBits)
        }
    }

    /// What each packed value is: one byte, then its payload (8 bytes for numbers and dates, 4 for a float, a
    /// length and the bytes for strings and data, a ``PackedObjectID`` for a to-one, nothing for the others).
    /// A length under 255 takes one byte; a longer one is 255 and then 4 bytes.
    @usableFromInline enum Tag: UInt8 {
        case null, integer, double, float, booleanTrue, booleanFalse, date, string, data
        case relationshipFault, toOneNone, toOne
    }

    /// The one-byte length that says a 4-byte length follows.
    @usableFromInline static var longLength: UInt8 { 255 }

    /// Whether the values are packed (rather than kept as the arrays they came as).
    package var isPacked: Bool { withUnsafeMutablePointerToHeader { $0.pointee.unpacked == nil } }

    /// Keeps a row's values, packed when every value can be.
    package static func make(attributes: [AttributeValue], relationships: [RelationshipStorage], generation: Int) -> PackedRow {
        guard attributes.count <= Int(UInt16.max), relationships.count <= Int(UInt16.max),
            let size = packedSize(attributes, relationships)
        else {
            let kept = Unpacked(attributes: attributes, relationships: relationships)
            let row = create(minimumCapacity: 0) { _ in
                Header(generation: generation, unpacked: kept, attributeCount: 0, relationshipCount: 0)
            }
            return unsafeDowncast(row, to: PackedRow.self)
        }
        let row = unsafeDowncast(
            create(minimumCapacity: size) { _ in
                Header(
                    generation: generation, unpacked: nil, attributeCount: UInt16(attributes.count),
                    relationshipCount: UInt16(relationships.count))
            }, to: PackedRow.self)
        row.withUnsafeMutablePointerToElements { start in
            var cursor = UnsafeMutableRawPointer(start)
            for value in attributes { pack(value, at: &cursor) }
            for value in relationships { pack(value, at: &cursor) }
        }
        return row
    }

    /// The bytes a length takes.
    private static func lengthSize(_ count: Int) -> Int { count < Int(longLength) ? 1 : 5 }

    /// The bytes the values take packed, or `nil` when one of them cannot be packed.
    private static func packedSize(_ attributes: [AttributeValue], _ relationships: [RelationshipStorage]) -> Int? {
        var size = attributes.count + relationships.count
        for value in attributes {
            switch value {
            case .null, .boolean: break
            case .integer, .double, .date: size += 8
            case .float: size += 4
            case .string(var text):
                let count = text.withUTF8 { $0.count }
                guard count <= Int(UInt32.max) else { return nil }
                size += lengthSize(count) + count
            case .data(let bytes):
                guard bytes.count <= Int(UInt32.max) else { return nil }
                size += lengthSize(bytes.count) + bytes.count
            case .decimal, .uuid, .uri, .externalData: return nil
            }
        }
        for value in relationships {
            switch value {
            case .fault, .toOne(nil): break
            case .toOne: size += MemoryLayout<PackedObjectID>.size
            case .toMany, .ordered: return nil
            }
        }
        return size
    }

    private static func put<T: BitwiseCopyable>(_ value: T, at cursor: inout UnsafeMutableRawPointer) {
        cursor.storeBytes(of: value, toByteOffset: 0, as: T.self)
        cursor += MemoryLayout<T>.size
    }

    private static func put(_ tag: Tag, at cursor: inout UnsafeMutableRawPointer) {
        put(tag.rawValue, at: &cursor)
    }

    private static func putLength(_ count: Int, at cursor: inout UnsafeMutableRawPointer) {
        if count < Int(longLength) {
            put(UInt8(count), at: &cursor)
        } else {
            put(longLength, at: &cursor)
            put(UInt32(count), at: &cursor)
        }
    }

    private static func pack(_ value: AttributeValue, at cursor: inout UnsafeMutableRawPointer) {
        switch value {
        case .integer(let number):
            put(.integer, at: &cursor)
            put(number, at: &cursor)
        case .double(let number):
            put(.double, at: &cursor)
            put(number, at: &cursor)
        case .float(let number):
            put(.float, at: &cursor)
            put(number, at: &cursor)
        case .boolean(let flag):
            put(flag ? .booleanTrue : .booleanFalse, at: &cursor)
        case .date(let date):
            put(.date, at: &cursor)
            put(date.timeIntervalSinceReferenceDate, at: &cursor)
        case .string(var text):
            put(.string, at: &cursor)
            text.withUTF8 { utf8 in
                putLength(utf8.count, at: &cursor)
                if let base = utf8.baseAddress { cursor.copyMemory(from: base, byteCount: utf8.count) }
                cursor += utf8.count
            }
        case .data(let bytes):
            put(.data, at: &cursor)
            putLength(bytes.count, at: &cursor)
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { cursor.copyMemory(from: base, byteCount: raw.count) }
            }
            cursor += bytes.count
        case .null, .decimal, .uuid, .uri, .externalData:
            // Only `.null` reaches here: `packedSize` refuses the others.
            put(.null, at: &cursor)
        }
    }

    private static func pack(_ value: RelationshipStorage, at cursor: inout UnsafeMutableRawPointer) {
        switch value {
        case .toOne(let id?):
            put(.toOne, at: &cursor)
            put(PackedObjectID(id), at: &cursor)
        case .toOne(nil):
            put(.toOneNone, at: &cursor)
        case .fault, .toMany, .ordered:
            // Only `.fault` reaches here: `packedSize` refuses the others.
            put(.relationshipFault, at: &cursor)
        }
    }

    // The readers below walk bytes this class wrote itself (`make`), never input from outside: every tag and
    // length they read was put there by `pack` for a value `packedSize` counted, so they stay inside the
    // allocation.

    @inline(__always)
    static func take<T: BitwiseCopyable>(_ type: T.Type, at cursor: inout UnsafeRawPointer) -> T {
        let value = cursor.loadUnaligned(as: T.self)
        cursor += MemoryLayout<T>.size
        return value
    }

    @inline(__always)
    static func takeLength(at cursor: inout UnsafeRawPointer) -> Int {
        let short = take(UInt8.self, at: &cursor)
        return short == longLength ? Int(take(UInt32.self, at: &cursor)) : Int(short)
    }

    /// Moves the cursor past one packed value.
    @inline(__always)
    private static func skip(at cursor: inout UnsafeRawPointer) {
        switch Tag(rawValue: take(UInt8.self, at: &cursor)) {
        case .integer, .double, .date: cursor += 8
        case .float: cursor += 4
        case .string, .data: cursor += takeLength(at: &cursor)
        case .toOne: cursor += MemoryLayout<PackedObjectID>.size
        default: break
        }
    }

    /// Decodes the attribute value at the cursor.
    private static func attribute(at cursor: inout UnsafeRawPointer) -> AttributeValue {
        switch Tag(rawValue: take(UInt8.self, at: &cursor)) {
        case .integer: return .integer(take(Int64.self, at: &cursor))
        case .double: return .double(take(Double.self, at: &cursor))
        case .float: return .float(take(Float.self, at: &cursor))
        case .booleanTrue: return .boolean(true)
        case .booleanFalse: return .boolean(false)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: take(Double.self, at: &cursor)))
        case .string:
            let count = takeLength(at: &cursor)
            defer { cursor += count }
            return .string(String(decoding: UnsafeRawBufferPointer(start: cursor, count: count), as: UTF8.self))
        case .data:
            let count = takeLength(at: &cursor)
            defer { cursor += count }
            return .data(count == 0 ? Data() : Data(bytes: cursor, count: count))
        default: return .null
        }
    }

    /// Decodes the relationship value at the cursor, a to-one's ID owned as ``PackedObjectID/objectID(owner:)``
    /// says.
    private static func relationship(at cursor: inout UnsafeRawPointer, owner: ObjectIDOwner?) -> RelationshipStorage {
        switch Tag(rawValue: take(UInt8.self, at: &cursor)) {
        case .toOne: return .toOne(take(PackedObjectID.self, at: &cursor).objectID(owner: owner))
        case .toOneNone: return .toOne(nil)
        default: return .fault
        }
    }

    /// The attribute value of one slot (`.null` past the row's values), decoded without unpacking the others.
    package func attribute(at slot: Int) -> AttributeValue {
        // Through the header's pointer: reading `header` itself would cost a dynamic exclusivity check.
        withUnsafeMutablePointers { header, start in
            if let kept = header.pointee.unpacked { return slot < kept.attributes.count ? kept.attributes[slot] : .null }
            guard slot >= 0, slot < Int(header.pointee.attributeCount) else { return .null }
            var cursor = Self.position(of: slot, header, start)
            let value = Self.attribute(at: &cursor)
            Self.note(slot, endingAt: cursor, header, start)
            return value
        }
    }

    /// Whether the attribute of one slot is the string of the ASCII bytes `ascii` by `String`'s `==` (canonical
    /// equivalence), told from the packed bytes without making a `String`: true for the same bytes, false for
    /// other bytes that are all ASCII (an ASCII string is equivalent to no other ASCII string) and for nil (which
    /// equals no string); nil when the bytes alone cannot tell (other bytes not all ASCII: `"\u{212A}"`, the Kelvin
    /// sign, equals `"K"`), when the slot holds no string, or the row is not packed: the caller decodes the value.
    @usableFromInline package func attribute(at slot: Int, equalsASCII ascii: UnsafeBufferPointer<UInt8>) -> Bool? {
        withUnsafeMutablePointers { header, start in
            guard header.pointee.unpacked == nil, slot >= 0, slot < Int(header.pointee.attributeCount) else { return nil }
            var cursor = Self.position(of: slot, header, start)
            let tag = Self.take(UInt8.self, at: &cursor)
            if tag == Tag.null.rawValue { return false }
            guard tag == Tag.string.rawValue else { return nil }
            let count = Self.takeLength(at: &cursor)
            let bytes = UnsafeRawBufferPointer(start: cursor, count: count)
            Self.note(slot, endingAt: cursor + count, header, start)
            if count == ascii.count, count == 0 || ascii.baseAddress.map({ memcmp(cursor, $0, count) == 0 }) == true { return true }
            return bytes.allSatisfy { $0 < 0x80 } ? false : nil
        }
    }

    /// The attribute value of one slot as ``AttributeValue/anyValue`` gives it, decoded straight from the packed
    /// bytes (no ``AttributeValue`` on the way): `value(forKey:)`'s fast path. For a packed row only (``isPacked``:
    /// the caller checks first); a row kept as arrays, or a slot past its values, answers `nil`.
    ///
    /// The value is made once, straight into the caller's result: the answer is `Any?` itself (not wrapped in a
    /// second optional to say "not packed"), so no copy of the existential follows.
    package func anyAttribute(at slot: Int) -> Any? {
        withUnsafeMutablePointers { header, start in Self.anyAttribute(slot, header, start) }
    }

    /// ``anyAttribute(at:)`` on the row's pointers.
    @inline(__always)
    private static func anyAttribute(
        _ slot: Int, _ header: UnsafeMutablePointer<Header>, _ start: UnsafeMutablePointer<UInt8>
    ) -> Any? {
        guard header.pointee.unpacked == nil, slot >= 0, slot < Int(header.pointee.attributeCount) else { return nil }
        var cursor = position(of: slot, header, start)
        // The tags as bytes (a switch over `Tag(rawValue:)` costs a call per value).
        let tag = take(UInt8.self, at: &cursor)
        let value: Any?
        switch tag {
        // Numbers as `NSNumber`, as `AttributeValue.bridgedValue` gives them (`value(forKey:) as? Int` works).
        case Tag.integer.rawValue: value = NumberBoxes.integer(take(Int64.self, at: &cursor))
        case Tag.double.rawValue: value = NSNumber(value: take(Double.self, at: &cursor))
        case Tag.string.rawValue:
            let count = takeLength(at: &cursor)
            value = String(decoding: UnsafeRawBufferPointer(start: cursor, count: count), as: UTF8.self)
            cursor += count
        case Tag.booleanTrue.rawValue: value = NumberBoxes.boolean(true)
        case Tag.booleanFalse.rawValue: value = NumberBoxes.boolean(false)
        case Tag.date.rawValue: value = Date(timeIntervalSinceReferenceDate: take(Double.self, at: &cursor))
        case Tag.data.rawValue:
            let count = takeLength(at: &cursor)
            value = count == 0 ? Data() : Data(bytes: cursor, count: count)
            cursor += count
        case Tag.float.rawValue: value = NSNumber(value: take(Float.self, at: &cursor))
        default: value = nil
        }
        note(slot, endingAt: cursor, header, start)
        return value
    }

    /// Where the attribute of `slot` starts: from where the last read left off when that is at or before the
    /// slot (reads in slot order skip nothing), from the first value otherwise.
    @inline(__always)
    static func position(
        of slot: Int, _ header: UnsafeMutablePointer<Header>, _ start: UnsafeMutablePointer<UInt8>
    ) -> UnsafeRawPointer {
        var cursor = UnsafeRawPointer(start)
        var skipped = 0
        if Int(header.pointee.nextSlot) <= slot {
            skipped = Int(header.pointee.nextSlot)
            cursor += Int(header.pointee.nextOffset)
        }
        while skipped < slot {
            skip(at: &cursor)
            skipped += 1
        }
        return cursor
    }

    /// Remembers where the attribute after `slot` starts, for the next read.
    @inline(__always)
    static func note(
        _ slot: Int, endingAt cursor: UnsafeRawPointer, _ header: UnsafeMutablePointer<Header>, _ start: UnsafeMutablePointer<UInt8>
    ) {
        let next = cursor - UnsafeRawPointer(start)
        if next <= Int(UInt16.max) {
            header.pointee.nextSlot = UInt16(slot + 1)
            header.pointee.nextOffset = UInt16(next)
        }
    }

    /// The relationship value of one slot (`.fault` past the row's values), decoded without unpacking the others.
    /// A to-one's ID shares `owner` (the ID owner of the object holding the row) when it is of the same store.
    package func relationship(at slot: Int, owner: ObjectIDOwner?) -> RelationshipStorage {
        let header = self.header
        if let kept = header.unpacked { return slot < kept.relationships.count ? kept.relationships[slot] : .fault }
        guard slot >= 0, slot < Int(header.relationshipCount) else { return .fault }
        return withUnsafeMutablePointerToElements { start in
            var cursor = UnsafeRawPointer(start)
            for _ in 0..<(Int(header.attributeCount) + slot) { Self.skip(at: &cursor) }
            return Self.relationship(at: &cursor, owner: owner)
        }
    }

    /// The row's values as the arrays an object holds; to-one IDs share `owner` (the ID owner of the object holding
    /// the row) when they are of the same store.
    package func unpacked(owner: ObjectIDOwner?) -> (attributes: [AttributeValue], relationships: [RelationshipStorage]) {
        let header = self.header
        if let kept = header.unpacked { return (kept.attributes, kept.relationships) }
        return withUnsafeMutablePointerToElements { start in
            var cursor = UnsafeRawPointer(start)
            var attributes: [AttributeValue] = []
            attributes.reserveCapacity(Int(header.attributeCount))
            for _ in 0..<Int(header.attributeCount) { attributes.append(Self.attribute(at: &cursor)) }
            var relationships: [RelationshipStorage] = []
            relationships.reserveCapacity(Int(header.relationshipCount))
            for _ in 0..<Int(header.relationshipCount) { relationships.append(Self.relationship(at: &cursor, owner: owner)) }
            return (attributes, relationships)
        }
    }
}
