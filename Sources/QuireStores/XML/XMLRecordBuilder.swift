import QuireCore
import Foundation

/// An XML store's records as ``XMLStoreParser`` reads them, built straight into the packed form
/// ``AtomicRecordTable`` keeps: no row of values is made. Each attribute's text becomes its binary encoding
/// in a scratch buffer when its element ends, and an object's record (header, key, version, values in layout
/// order, relationships) is assembled at its end tag, behind the records before it.
///
/// Relationships name their targets by key until every object is read: each target is written with a
/// placeholder entity number, which ``resolve(model:failure:)`` checks and fills in once every object's
/// entity is known.
struct XMLRecordBuilder {
    /// One `<relationship>` element: its owner, its targets (in ``targets``) and where they were written.
    struct PendingRelationship {
        /// The owner's key and entity number.
        var owner: Int64
        var ownerEntityNumber: Int
        /// The relationship's index among the owner entity's persistent relationships.
        var relationshipIndex: Int
        var isToMany: Bool
        /// Where the element's targets start in ``targets``, and how many it lists.
        var targetsStart: Int
        var targetCount: Int
        /// Where the first written target's entity number is in ``bytes``; -1 when none is written (an empty
        /// element, or one a later element of the same name replaced: its targets are still checked).
        var position = -1
        /// The number of targets written: fewer than ``targetCount`` when the element lists one twice.
        var written = 0
        /// The offset of the element's start tag, for an error's line.
        var tokenOffset: Int
    }

    /// The records, each as ``AtomicRecordTable`` packs one (header, then encoding).
    private(set) var bytes: [UInt8] = []
    /// Each record's offset in ``bytes`` by key (not kept by a second part, see ``ordered``).
    private(set) var offsets: [Int64: Int] = [:]
    /// A second part's records in file order: key, offset in ``bytes``, offset of the token that ended it.
    private(set) var ordered: [(key: Int64, offset: Int, tokenOffset: Int)] = []
    /// Whether records go to ``ordered`` rather than ``offsets``.
    let keepsOrder: Bool
    /// Every relationship element's target keys, one after the other.
    var targets: [Int64] = []
    /// Every relationship element read, in file order.
    private(set) var pending: [PendingRelationship] = []

    // The object being read.

    /// Its values' encodings, as they were read.
    private var values: [UInt8] = []
    /// Where each attribute's encoding starts and ends in ``values`` (-1: not read), by attribute index.
    private var valueStarts: [Int] = []
    private var valueEnds: [Int] = []
    /// Whether ``values`` is the encoding of the first ``nextIndex`` attributes in order (attributes read in
    /// layout order, the ones skipped filled with nulls): the usual case, copied in one piece.
    private var inOrder = true
    private var nextIndex = 0
    private var attributeCount = 0
    /// The index in ``pending`` of the last element of each relationship (-1: none), by relationship index.
    private var latest: [Int] = []
    private var relationshipCount = 0

    /// A placeholder for a target's entity number until ``resolve(model:failure:)`` writes it.
    private static let unresolved = UInt32.max
    /// The bytes of a to-many member: entity number and key.
    private static let memberSize = 12

    /// A builder for a whole file or its first part (`keepsOrder` false), or for a second part.
    init(keepsOrder: Bool) { self.keepsOrder = keepsOrder }

    /// Reserves room for about this many records taking about this many bytes.
    mutating func reserve(records: Int, bytes byteCount: Int) {
        if keepsOrder { ordered.reserveCapacity(records) } else { offsets.reserveCapacity(records) }
        bytes.reserveCapacity(byteCount)
    }

    // MARK: An object

    /// Starts an object with this many persistent attributes and relationships.
    mutating func beginObject(attributeCount: Int, relationshipCount: Int) {
        values.removeAll(keepingCapacity: true)
        if valueStarts.count < attributeCount {
            valueStarts = [Int](repeating: -1, count: attributeCount)
            valueEnds = valueStarts
        } else {
            valueStarts.withUnsafeMutableBufferPointer { starts in
                for index in 0..<attributeCount { starts[index] = -1 }
            }
        }
        if latest.count < relationshipCount {
            latest = [Int](repeating: -1, count: relationshipCount)
        } else {
            for index in 0..<relationshipCount { latest[index] = -1 }
        }
        self.attributeCount = attributeCount
        self.relationshipCount = relationshipCount
        inOrder = true
        nextIndex = 0
    }

    /// Whether the current object's attribute at an index has a value (its element was read).
    func hasValue(at index: Int) -> Bool { index >= 0 && index < attributeCount && valueStarts[index] >= 0 }

    /// Whether the current object has an element of its relationship at an index.
    func hasRelationship(at index: Int) -> Bool { index >= 0 && index < relationshipCount && latest[index] >= 0 }

    /// Sets the attribute at an index to the value of its element's text; false (the object is then not to
    /// be finished) when the text is not a valid value of the type. The reader refuses a second element of
    /// one attribute (``hasValue(at:)``) before it gets here.
    mutating func setValue(at index: Int, _ text: UnsafeRawBufferPointer, _ type: AttributeType, base64: Bool) -> Bool {
        guard index >= 0, index < attributeCount else { return true }
        let before = (count: values.count, inOrder: inOrder)
        startValue(at: index)
        let start = values.count
        guard XMLPackedValue.append(text, type, base64: base64, to: &values) else {
            // As it was: the element may yet be read again the slow way (which then refuses it).
            values.removeSubrange(before.count...)
            inOrder = before.inOrder
            return false
        }
        endValue(at: index, from: start)
        return true
    }

    /// Sets the attribute at an index to a value already made (a reference to external data).
    mutating func setValue(at index: Int, _ value: AttributeValue) {
        guard index >= 0, index < attributeCount else { return }
        startValue(at: index)
        let start = values.count
        var writer = ByteWriter(taking: &values)
        BinaryObjectCoding.encode(value, into: &writer)
        values = writer.takeBytes()
        endValue(at: index, from: start)
    }

    private mutating func startValue(at index: Int) {
        guard inOrder else { return }
        if index < nextIndex {
            inOrder = false
        } else if index > nextIndex {
            values.append(contentsOf: repeatElement(BinaryObjectCoding.ValueTag.null.rawValue, count: index - nextIndex))
        }
    }

    private mutating func endValue(at index: Int, from start: Int) {
        valueStarts[index] = start
        valueEnds[index] = values.count
        if inOrder { nextIndex = index + 1 }
    }

    /// Records a relationship element of the current object, whose target keys were appended to ``targets``
    /// from `targetsStart` on (the reader refuses a second element of one relationship before it gets here:
    /// ``hasRelationship(at:)``).
    mutating func addRelationship(
        at index: Int, isToMany: Bool, owner: Int64, ownerEntityNumber: Int, targetsStart: Int, tokenOffset: Int
    ) {
        pending.append(
            PendingRelationship(
                owner: owner, ownerEntityNumber: ownerEntityNumber, relationshipIndex: index, isToMany: isToMany,
                targetsStart: targetsStart, targetCount: targets.count - targetsStart, tokenOffset: tokenOffset))
        if index >= 0, index < relationshipCount { latest[index] = pending.count - 1 }
    }

    /// Packs the current object as a record behind the others and returns its offset.
    mutating func finishObject(key: Int64, entityNumber: Int, isToMany: [Bool]) -> Int {
        let start = bytes.count
        append(UInt32(truncatingIfNeeded: entityNumber))
        append(UInt32(0))
        append(key)
        append(Int64(1))
        if inOrder {
            bytes.append(contentsOf: values)
            if nextIndex < attributeCount {
                bytes.append(contentsOf: repeatElement(BinaryObjectCoding.ValueTag.null.rawValue, count: attributeCount - nextIndex))
            }
        } else {
            // Array slices, bounds-checked: the starts and ends are the builder's own.
            for index in 0..<attributeCount {
                let valueStart = valueStarts[index]
                if valueStart < 0 {
                    bytes.append(BinaryObjectCoding.ValueTag.null.rawValue)
                } else {
                    bytes.append(contentsOf: values[valueStart..<valueEnds[index]])
                }
            }
        }
        for index in 0..<relationshipCount {
            let element = latest[index]
            guard element >= 0 else {
                append(UInt32(0))
                continue
            }
            let entry = pending[element]
            let first = entry.targetsStart
            if !entry.isToMany {
                guard entry.targetCount > 0 else {
                    append(UInt32(0))
                    continue
                }
                pending[element].position = bytes.count
                pending[element].written = 1
                append(Self.unresolved)
                append(targets[first])
                continue
            }
            let countOffset = bytes.count
            append(UInt32(0))
            pending[element].position = bytes.count
            var written = 0
            var seen: Set<Int64>?
            if entry.targetCount > 32 { seen = Set(minimumCapacity: entry.targetCount) }
            for at in first..<(first + entry.targetCount) {
                let target = targets[at]
                // A target listed twice is one member (the relationship is a set, or an ordered set).
                if seen != nil {
                    guard seen?.insert(target).inserted == true else { continue }
                } else if targets[first..<at].contains(target) {
                    continue
                }
                append(Self.unresolved)
                append(target)
                written += 1
            }
            pending[element].written = written
            patch(UInt32(truncatingIfNeeded: written), at: countOffset)
        }
        patch(UInt32(truncatingIfNeeded: bytes.count - start - AtomicRecordTable.headerSize), at: start + 4)
        return start
    }

    /// Adds the record just finished under its key; false (nothing added) when the key has a record.
    mutating func insert(key: Int64, offset: Int, tokenOffset: Int) -> Bool {
        if keepsOrder {
            ordered.append((key, offset, tokenOffset))
            return true
        }
        return offsets.updateValue(offset, forKey: key) == nil
    }

    // MARK: Parts and relationships

    /// Appends a second part's records, in file order, and its relationship elements; returns the first
    /// record whose key is already taken (its key, the offset of the token that ended it and its entity
    /// number), which one thread reading both parts would have found.
    mutating func append(part: XMLRecordBuilder) -> (key: Int64, tokenOffset: Int, entityNumber: Int)? {
        let base = bytes.count
        bytes.append(contentsOf: part.bytes)
        offsets.reserveCapacity(offsets.count + part.ordered.count)
        for record in part.ordered where offsets.updateValue(base + record.offset, forKey: record.key) != nil {
            return (record.key, record.tokenOffset, entityNumber(at: base + record.offset))
        }
        let targetBase = targets.count
        targets.append(contentsOf: part.targets)
        pending.reserveCapacity(pending.count + part.pending.count)
        for var entry in part.pending {
            entry.targetsStart += targetBase
            if entry.position >= 0 { entry.position += base }
            pending.append(entry)
        }
        return nil
    }

    /// Checks every relationship element's targets in file order (each must be a record of the
    /// relationship's destination entity or one of its subentities) and writes their entity numbers.
    ///
    /// - Throws: `failure`'s error for the first target that is not.
    mutating func resolve(
        model: ManagedObjectModel, failure: (PendingRelationship, RelationshipDescription, Int64) -> QuireError
    ) throws {
        let entities = model.entitiesByNumber
        var relationshipsByNumber = [[RelationshipDescription]?](repeating: nil, count: entities.count + 1)
        // The last destination and target entity found to fit: most elements repeat them.
        var fitting: (destination: ObjectIdentifier, number: Int)?
        for entry in pending where entry.targetCount > 0 {
            let ownerNumber = entry.ownerEntityNumber
            guard ownerNumber > 0, ownerNumber <= entities.count else { continue }
            if relationshipsByNumber[ownerNumber] == nil {
                relationshipsByNumber[ownerNumber] = BinaryObjectCoding.persistentRelationships(entities[ownerNumber - 1])
            }
            guard let relationships = relationshipsByNumber[ownerNumber], entry.relationshipIndex >= 0,
                entry.relationshipIndex < relationships.count
            else { continue }
            let relationship = relationships[entry.relationshipIndex]
            let destination = relationship.resolvedDestination
            let patchesAsItChecks = entry.position >= 0 && entry.written == entry.targetCount
            for index in 0..<entry.targetCount {
                let target = targets[entry.targetsStart + index]
                let number = offsets[target].map(entityNumber(at:)) ?? 0
                guard number > 0, number <= entities.count, let destination else { throw failure(entry, relationship, target) }
                if let fitting, fitting.destination == ObjectIdentifier(destination), fitting.number == number {
                } else {
                    guard entities[number - 1].isKind(of: destination) else { throw failure(entry, relationship, target) }
                    fitting = (ObjectIdentifier(destination), number)
                }
                if patchesAsItChecks { patchTarget(of: entry, at: index, number: number) }
            }
            guard !patchesAsItChecks, entry.position >= 0 else { continue }
            // Fewer written than listed: every target is checked, so each written one is found.
            for index in 0..<entry.written {
                // The member's key, 4 bytes after its entity number, where the builder wrote it; checked against
                // the buffer's end so a mistake reads no memory outside it (the raw load checks in debug builds only).
                let keyOffset = entry.position + index * Self.memberSize + 4
                guard keyOffset >= 0, keyOffset + 8 <= bytes.count else { break }
                let key = bytes.withUnsafeBytes {
                    Int64(littleEndian: $0.loadUnaligned(fromByteOffset: keyOffset, as: Int64.self))
                }
                patchTarget(of: entry, at: index, number: offsets[key].map(entityNumber(at:)) ?? 0)
            }
        }
    }

    /// A table of the records, which the builder hands over (it is left empty).
    mutating func takeTable(store: PersistentStore) -> AtomicRecordTable {
        var packed: [UInt8] = []
        var keys: [Int64: Int] = [:]
        swap(&packed, &bytes)
        swap(&keys, &offsets)
        return AtomicRecordTable(store: store, packedRecords: packed, offsets: keys)
    }

    // MARK: Bytes

    /// The entity number of the record at an offset.
    func entityNumber(at offset: Int) -> Int {
        // Checked here: the unaligned load below checks its bounds in debug builds only.
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return bytes.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
    }

    private mutating func patchTarget(of entry: PendingRelationship, at index: Int, number: Int) {
        // The binary encoding numbers a to-one target's entity from 1 (0 is no target), a member's from 0.
        patch(UInt32(truncatingIfNeeded: entry.isToMany ? number - 1 : number), at: entry.position + index * Self.memberSize)
    }

    @inline(__always) private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func patch(_ value: UInt32, at offset: Int) {
        // The offsets are the builder's own (where it wrote a member's entity number); checked all the same, so a
        // mistake can never write outside the buffer (the raw store checks bounds in debug builds only).
        guard offset >= 0, offset + 4 <= bytes.count else { return }
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }
}
