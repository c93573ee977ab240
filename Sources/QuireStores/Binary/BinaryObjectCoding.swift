import QuireCore
import Foundation

/// The objects section of a binary store: an entity table (names and persistent properties, so a file is
/// read by name, not by position), then each entity's records with their values.
///
/// Values are a tag byte and a fixed-width little-endian payload; relationships name their targets by
/// (entity table index, primary key), so decoding needs no second pass.
package enum BinaryObjectCoding {
    enum ValueTag: UInt8 {
        case null = 0, integer, double, float, decimal, string, falseValue, trueValue, date, data, uuid, uri, externalData
    }

    enum RelationshipKind: UInt8 { case toOne = 0, toMany, ordered }

    /// The persistent properties of an entity, in slot order.
    static func persistentAttributes(_ entity: EntityDescription) -> [AttributeDescription] {
        entity.allAttributes.filter { !$0.isTransient }
    }

    static func persistentRelationships(_ entity: EntityDescription) -> [RelationshipDescription] {
        entity.allRelationships.filter { !$0.isTransient }
    }

    // MARK: Encoding

    package static func encode(_ image: AtomicStoreImage, model: ManagedObjectModel) -> Data {
        let entities = model.entitiesByNumber
        var buckets = [[Int64]](repeating: [], count: entities.count + 1)
        image.nodes.forEachEntityNumber { key, number in if number < buckets.count { buckets[number].append(key) } }
        var writer = ByteWriter(capacity: 64 + image.nodes.packedSize)
        appendTable(nextKey: image.nextKey, model: model, to: &writer)
        for entity in entities {
            let keys = buckets[entity.entityNumber].sorted()
            writer.append(UInt64(keys.count))
            // The table keeps each record as this section's encoding of it: its bytes are copied, not decoded.
            for key in keys { image.nodes.withEncodedRecord(key) { writer.append(bytes: $0) } }
        }
        return writer.data
    }

    /// The start of an objects section: the next key, then the entity table (every entity of the model, with
    /// its persistent attributes' names and types and its persistent relationships' names and kinds).
    static func appendTable(nextKey: Int64, model: ManagedObjectModel, to writer: inout ByteWriter) {
        writer.append(UInt64(bitPattern: nextKey))
        writer.append(UInt32(model.entitiesByNumber.count))
        for entity in model.entitiesByNumber {
            writer.append(string: entity.name)
            let attributes = persistentAttributes(entity)
            writer.append(UInt32(attributes.count))
            for attribute in attributes {
                writer.append(string: attribute.name)
                writer.append(string: attribute.attributeType.rawValue)
            }
            let relationships = persistentRelationships(entity)
            writer.append(UInt32(relationships.count))
            for relationship in relationships {
                writer.append(string: relationship.name)
                let kind: RelationshipKind = !relationship.isToMany ? .toOne : relationship.isOrdered ? .ordered : .toMany
                writer.append(kind.rawValue)
            }
        }
    }

    /// What a record of an entity is written with, worked out once per entity.
    package struct RecordLayout {
        /// The slots of the persistent attributes, in file order.
        package let attributeSlots: [Int]
        /// The persistent relationships, in file order.
        package let relationships: [RelationshipDescription]

        /// The layout of an entity's records.
        package init(_ entity: EntityDescription) {
            attributeSlots = persistentAttributes(entity).map(\.slot)
            relationships = persistentRelationships(entity)
        }
    }

    /// One record after its entity's count: key, version, values, relationships.
    package static func appendRecord(_ node: RowSnapshot, layout: RecordLayout, to writer: inout ByteWriter) {
        writer.append(node.objectID.primaryKey ?? 0)
        writer.append(node.version)
        for slot in layout.attributeSlots {
            encode(slot < node.attributes.count ? node.attributes[slot] : .null, into: &writer)
        }
        for relationship in layout.relationships {
            let storage = relationship.slot < node.relationships.count ? node.relationships[relationship.slot] : .fault
            if !relationship.isToMany {
                if case .toOne(let id?) = storage, let key = id.primaryKey {
                    writer.append(UInt32(id.entity.entityNumber))
                    writer.append(key)
                } else {
                    writer.append(UInt32(0))
                }
                continue
            }
            let members = storage.objectIDs
            writer.append(UInt32(members.count))
            for member in members {
                writer.append(UInt32(member.entity.entityNumber - 1))
                writer.append(member.primaryKey ?? 0)
            }
        }
    }

    @inline(__always)
    package static func encode(_ value: AttributeValue, into writer: inout ByteWriter) {
        switch value {
        case .null: writer.append(ValueTag.null.rawValue)
        case .integer(let v):
            writer.append(ValueTag.integer.rawValue)
            writer.append(v)
        case .double(let v):
            writer.append(ValueTag.double.rawValue)
            writer.append(v)
        case .float(let v):
            writer.append(ValueTag.float.rawValue)
            writer.append(v.bitPattern)
        case .decimal(let v):
            writer.append(ValueTag.decimal.rawValue)
            writer.append(string: v.description)
        case .string(let v):
            writer.append(ValueTag.string.rawValue)
            writer.append(string: v)
        case .boolean(let v): writer.append((v ? ValueTag.trueValue : ValueTag.falseValue).rawValue)
        case .date(let v):
            writer.append(ValueTag.date.rawValue)
            writer.append(v.timeIntervalSinceReferenceDate)
        case .data(let v):
            writer.append(ValueTag.data.rawValue)
            writer.append(data: v)
        case .uuid(let v):
            writer.append(ValueTag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { writer.append(bytes: $0) }
        case .uri(let v):
            writer.append(ValueTag.uri.rawValue)
            writer.append(string: v.absoluteString)
        case .externalData(let v):
            writer.append(ValueTag.externalData.rawValue)
            writer.append(bytes: Array(v.uuid.utf8.prefix(36)) + Array(repeating: UInt8(0x30), count: max(0, 36 - v.uuid.utf8.count)))
            writer.append(v.length ?? -1)
        }
    }

    // MARK: Decoding

    private struct TableEntry {
        var entity: EntityDescription
        /// Per attribute in the file: the model slot and the type, or nil when the model lacks it.
        var attributes: [(slot: Int, type: AttributeType)?]
        /// Per relationship in the file: the model slot and kind, or nil.
        var relationships: [(slot: Int, kind: RelationshipKind)?]
    }

    /// What the objects section holds.
    package struct Decoded {
        package var nextKey: Int64
        package var nodes: AtomicRecordTable
        /// The number of records of each entity, by entity number; nil once a change log changed them.
        package var entityCounts: [Int]?
    }

    package static func decode(
        _ bytes: UnsafeRawBufferPointer, range: Range<Int>, model: ManagedObjectModel, store: PersistentStore, file: URL
    ) throws -> Decoded {
        var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound, file: file, what: "the objects section")
        let nextKey = try reader.read(Int64.self)
        let entityCount = Int(try reader.read(UInt32.self))
        guard entityCount <= reader.remaining / 12 else { throw reader.corrupt("declares \(entityCount) entities") }
        var table: [TableEntry] = []
        let byName = model.entitiesByName
        for _ in 0..<entityCount {
            let name = try reader.readString()
            guard let entity = byName[name] else {
                throw QuireError(
                    .persistentStoreIncompatibleSchema,
                    "The binary store '\(file.path)' holds entity '\(name)', which the model does not have.",
                    context: .init(file: file, entity: name))
            }
            let attributeCount = Int(try reader.read(UInt32.self))
            guard attributeCount <= reader.remaining / 8 else { throw reader.corrupt("declares \(attributeCount) attributes") }
            var attributes: [(slot: Int, type: AttributeType)?] = []
            // The elements of composite attributes are stored under their key paths (`address.city`).
            let storedAttributes = entity.storedAttributesByKey
            for _ in 0..<attributeCount {
                let attributeName = try reader.readString()
                let typeName = try reader.readString()
                guard let attribute = storedAttributes[attributeName], !attribute.isTransient,
                    attribute.attributeType.rawValue == typeName
                else {
                    attributes.append(nil)
                    continue
                }
                attributes.append((attribute.slot, attribute.attributeType))
            }
            let relationshipCount = Int(try reader.read(UInt32.self))
            guard relationshipCount <= reader.remaining / 5 else { throw reader.corrupt("declares \(relationshipCount) relationships") }
            var relationships: [(slot: Int, kind: RelationshipKind)?] = []
            for _ in 0..<relationshipCount {
                let relationshipName = try reader.readString()
                guard let kind = RelationshipKind(rawValue: try reader.readByte()) else {
                    throw reader.corrupt("has an unknown relationship kind for '\(name).\(relationshipName)'")
                }
                guard let relationship = entity.relationshipsByName[relationshipName], !relationship.isTransient,
                    (kind == .toOne) == !relationship.isToMany
                else {
                    throw QuireError(
                        .persistentStoreIncompatibleSchema,
                        "The binary store '\(file.path)' holds relationship '\(name).\(relationshipName)', which the model "
                            + "does not have in that form.",
                        context: .init(file: file, entity: name, key: relationshipName))
                }
                relationships.append((relationship.slot, kind))
            }
            table.append(TableEntry(entity: entity, attributes: attributes, relationships: relationships))
        }
        var nodes = AtomicRecordTable(store: store)
        nodes.reserveBytes(range.count)
        // Whether the file's entity table is the model's, entity for entity, so that relationship targets are
        // numbered as the record table numbers them.
        let tableIsCanonical = table.count == model.entitiesByNumber.count
            && zip(table, model.entitiesByNumber).allSatisfy { $0.entity === $1 }
        var entityCounts = [Int](repeating: 0, count: model.entitiesByNumber.count + 1)
        for entry in table {
            reader.what = "the records of entity '\(entry.entity.name)'"
            let count = try reader.readCount(minimumSize: 16)
            nodes.reserveCapacity(nodes.count + count)
            let entity = entry.entity
            let defaultAttributes = [AttributeValue](repeating: .null, count: entity.allAttributes.count)
            // Relationships the file lists start empty (no destination, no members): records that have none
            // share this one array instead of each allocating its own.
            var defaultRelationships = [RelationshipStorage](repeating: .fault, count: entity.allRelationships.count)
            for read in entry.relationships {
                guard let read else { continue }
                switch read.kind {
                case .toOne: defaultRelationships[read.slot] = .toOne(nil)
                case .toMany: defaultRelationships[read.slot] = .toMany([])
                case .ordered: defaultRelationships[read.slot] = .ordered([])
                }
            }
            // The usual case: the file lists every attribute in slot order, so values are appended as read.
            let inSlotOrder = entry.attributes.count == entity.allAttributes.count
                && entry.attributes.enumerated().allSatisfy { $0.element?.slot == $0.offset }
            let attributeTypes = entry.attributes.map { $0?.type }
            if tableIsCanonical, let canonicalTypes = canonicalAttributeTypes(entry), let kinds = canonicalKinds(entry) {
                // The file lays the records out as the table keeps them: each is checked as the decoder below
                // would check it, then its bytes are copied, no value made.
                for _ in 0..<count {
                    let start = reader.offset
                    let key = try reader.read(Int64.self)
                    _ = try reader.read(Int64.self)
                    guard key > 0 else { throw reader.corrupt("has a record with key \(key)") }
                    for type in canonicalTypes { try skipValue(&reader, as: type, entity: entity) }
                    try skipRelationships(&reader, kinds: kinds, tableCount: table.count)
                    let inserted = nodes.insertEncoded(
                        UnsafeRawBufferPointer(rebasing: bytes[start..<reader.offset]), entityNumber: entity.entityNumber, key: key)
                    guard inserted else { throw reader.corrupt("holds two records with key \(key)") }
                }
                entityCounts[entity.entityNumber] += count
                continue
            }
            for _ in 0..<count {
                let key = try reader.read(Int64.self)
                let version = try reader.read(Int64.self)
                guard key > 0 else { throw reader.corrupt("has a record with key \(key)") }
                var attributes: [AttributeValue]
                if inSlotOrder {
                    attributes = try [AttributeValue](unsafeUninitializedCapacity: attributeTypes.count) { buffer, initialized in
                        for type in attributeTypes {
                            guard let type else { throw reader.corrupt("holds an attribute the model lacks") }
                            buffer.initializeElement(at: initialized, to: try decodeValue(&reader, as: type, entity: entity))
                            initialized += 1
                        }
                    }
                } else {
                    attributes = defaultAttributes
                    for read in entry.attributes {
                        guard let read else {
                            _ = try decodeValue(&reader)
                            continue
                        }
                        attributes[read.slot] = try decodeValue(&reader, as: read.type, entity: entity)
                    }
                }
                var relationships = defaultRelationships
                for read in entry.relationships {
                    guard let read else { continue }
                    switch read.kind {
                    case .toOne:
                        let index = Int(try reader.read(UInt32.self))
                        if index != 0 {
                            relationships[read.slot] = .toOne(try objectID(&reader, index: index - 1, table, store))
                        }
                    case .toMany, .ordered:
                        let memberCount = Int(try reader.read(UInt32.self))
                        guard memberCount > 0 else { continue }
                        guard memberCount <= reader.remaining / 12 else { throw reader.corrupt("declares \(memberCount) related objects") }
                        var members: [ObjectID] = []
                        members.reserveCapacity(memberCount)
                        for _ in 0..<memberCount {
                            let index = Int(try reader.read(UInt32.self))
                            members.append(try objectID(&reader, index: index, table, store))
                        }
                        relationships[read.slot] = read.kind == .ordered ? .ordered(.init(members)) : .toMany(Set(members))
                    }
                }
                let id = ObjectID(entity: entity, store: store, primaryKey: key)
                guard nodes.insert(RowSnapshot(objectID: id, version: version, attributes: attributes, relationships: relationships), forKey: key) else {
                    throw reader.corrupt("holds two records with key \(key)")
                }
            }
            entityCounts[entity.entityNumber] += count
        }
        return Decoded(nextKey: nextKey, nodes: nodes, entityCounts: entityCounts)
    }

    /// The attribute types of an entry whose file attributes are the entity's persistent attributes in
    /// order (as ``RecordLayout`` lists them), or nil.
    private static func canonicalAttributeTypes(_ entry: TableEntry) -> [AttributeType]? {
        let layout = RecordLayout(entry.entity)
        guard entry.attributes.count == layout.attributeSlots.count else { return nil }
        var types: [AttributeType] = []
        for (read, slot) in zip(entry.attributes, layout.attributeSlots) {
            guard let read, read.slot == slot else { return nil }
            types.append(read.type)
        }
        return types
    }

    /// The relationship kinds of an entry whose file relationships are the entity's persistent relationships
    /// in order, or nil.
    private static func canonicalKinds(_ entry: TableEntry) -> [RelationshipKind]? {
        let layout = RecordLayout(entry.entity)
        guard entry.relationships.count == layout.relationships.count else { return nil }
        var kinds: [RelationshipKind] = []
        for (read, relationship) in zip(entry.relationships, layout.relationships) {
            guard let read, read.slot == relationship.slot else { return nil }
            kinds.append(read.kind)
        }
        return kinds
    }

    /// Reads past a value, checking it as ``decodeValue(_:as:entity:)`` does without making it.
    @inline(__always)
    private static func skipValue(_ reader: inout ByteReader, as type: AttributeType, entity: EntityDescription) throws {
        guard let tag = ValueTag(rawValue: try reader.readByte()) else { throw reader.corrupt("holds an unknown value tag") }
        guard fits(tag, type) else {
            throw reader.corrupt("holds a value of the wrong type for an attribute of '\(entity.name)'")
        }
        switch tag {
        case .null, .falseValue, .trueValue: break
        case .integer, .double, .date: _ = try reader.readBytes(8)
        case .float: _ = try reader.readBytes(4)
        case .string: _ = try reader.readBytes(Int(try reader.read(UInt32.self)))
        case .data:
            let length = try reader.read(UInt64.self)
            guard length <= UInt64(reader.remaining) else { throw reader.truncated(Int(clamping: length)) }
            _ = try reader.readBytes(Int(length))
        case .uuid: _ = try reader.readBytes(16)
        case .decimal, .uri, .externalData: _ = try decodeValue(&reader, tag: tag)
        }
    }

    /// Reads past a record's relationships, checking them as the decoder does.
    @inline(__always)
    private static func skipRelationships(_ reader: inout ByteReader, kinds: [RelationshipKind], tableCount: Int) throws {
        for kind in kinds {
            switch kind {
            case .toOne:
                let index = Int(try reader.read(UInt32.self))
                guard index != 0 else { continue }
                let key = try reader.read(Int64.self)
                guard index - 1 < tableCount, key > 0 else { throw reader.corrupt("refers to a record that cannot exist") }
            case .toMany, .ordered:
                let memberCount = Int(try reader.read(UInt32.self))
                guard memberCount > 0 else { continue }
                guard memberCount <= reader.remaining / 12 else { throw reader.corrupt("declares \(memberCount) related objects") }
                for _ in 0..<memberCount {
                    let index = Int(try reader.read(UInt32.self))
                    let key = try reader.read(Int64.self)
                    guard index < tableCount, key > 0 else { throw reader.corrupt("refers to a record that cannot exist") }
                }
            }
        }
    }

    @inline(__always)
    private static func objectID(
        _ reader: inout ByteReader, index: Int, _ table: [TableEntry], _ store: PersistentStore
    ) throws -> ObjectID {
        let key = try reader.read(Int64.self)
        guard index < table.count, key > 0 else { throw reader.corrupt("refers to a record that cannot exist") }
        return ObjectID(entity: table[index].entity, store: store, primaryKey: key)
    }

    /// Decodes a value, checking by its tag (before the value is made) that the attribute's type can hold it.
    @inline(__always)
    private static func decodeValue(_ reader: inout ByteReader, as type: AttributeType, entity: EntityDescription) throws -> AttributeValue {
        guard let tag = ValueTag(rawValue: try reader.readByte()) else { throw reader.corrupt("holds an unknown value tag") }
        guard fits(tag, type) else {
            throw reader.corrupt("holds a value of the wrong type for an attribute of '\(entity.name)'")
        }
        return try decodeValue(&reader, tag: tag)
    }

    /// Decodes a value of any tag.
    @inline(__always)
    static func decodeValue(_ reader: inout ByteReader) throws -> AttributeValue {
        guard let tag = ValueTag(rawValue: try reader.readByte()) else { throw reader.corrupt("holds an unknown value tag") }
        return try decodeValue(&reader, tag: tag)
    }

    @inline(__always)
    private static func decodeValue(_ reader: inout ByteReader, tag: ValueTag) throws -> AttributeValue {
        switch tag {
        case .null: return .null
        case .integer: return .integer(try reader.read(Int64.self))
        case .double: return .double(try reader.readDouble())
        case .float: return .float(Float(bitPattern: try reader.read(UInt32.self)))
        case .decimal:
            let text = try reader.readString()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw reader.corrupt("holds a malformed decimal '\(text.prefix(40))'")
            }
            return .decimal(decimal)
        case .string: return .string(try reader.readString())
        case .falseValue: return .boolean(false)
        case .trueValue: return .boolean(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.readDouble()))
        case .data: return .data(try reader.readData())
        case .uuid:
            let raw = try reader.readBytes(16)
            let b = Array(raw)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .uri:
            let text = try reader.readString()
            guard let url = URL(string: text) else { throw reader.corrupt("holds a malformed URI") }
            return .uri(url)
        case .externalData:
            let name = String(decoding: try reader.readBytes(36), as: UTF8.self)
            let length = try reader.read(Int64.self)
            guard ExternalDataReference.isValidName(name) else { throw reader.corrupt("holds a malformed external data name") }
            return .externalData(ExternalDataReference(uuid: name, length: length >= 0 ? length : nil))
        }
    }

    /// Whether a value with a tag may be held by an attribute of a type.
    @inline(__always)
    private static func fits(_ tag: ValueTag, _ type: AttributeType) -> Bool {
        switch tag {
        case .null: return true
        case .integer: return type == .integer64 || type == .integer32 || type == .integer16
        case .double: return type == .double
        case .float: return type == .float
        case .decimal: return type == .decimal
        case .string: return type == .string
        case .falseValue, .trueValue: return type == .boolean
        case .date: return type == .date
        case .data, .externalData: return type == .binaryData || type == .transformable
        case .uuid: return type == .uuid
        case .uri: return type == .uri
        }
    }
}
