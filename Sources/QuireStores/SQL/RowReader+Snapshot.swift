@_spi(QuireEngine) import QuireCore
import Foundation

/// Where ``RowReader`` puts the values of a row as it reads them, one call per value in slot order: attributes
/// first, then relationships. The array sink makes a ``RowSnapshot``'s arrays; a packing sink writes the values'
/// bytes straight into one buffer. Text and data arrive as the source's bytes, valid for the call only.
@usableFromInline protocol RowValueSink {
    /// A NULL value (or a transient attribute).
    mutating func null()
    /// An integer attribute's value.
    mutating func integer(_ value: Int64)
    /// A Boolean attribute's value.
    mutating func boolean(_ value: Bool)
    /// A double attribute's value.
    mutating func double(_ value: Double)
    /// A date attribute's value, in seconds since 2001.
    mutating func date(_ seconds: Double)
    /// A string attribute's UTF-8 bytes.
    mutating func text(_ bytes: UnsafeRawBufferPointer)
    /// A binary attribute's bytes.
    mutating func data(_ bytes: UnsafeRawBufferPointer)
    /// Any other attribute value (floats, decimals, UUIDs, URIs, external data references).
    mutating func value(_ value: AttributeValue)
    /// A relationship's value: a to-one ID (or none), or `.fault` for a to-many relationship.
    mutating func relationship(_ value: RelationshipStorage)
    /// A to-one's ID: the row of `key` of `destination` (alive as long as the store's model) in the store that
    /// `store` gives, whose ``PersistentStore/token`` is `token`.
    mutating func toOne(_ destination: Unmanaged<EntityDescription>, key: Int64, token: UInt64, store: () -> PersistentStore)
}

extension RowValueSink {
    /// Part of ``RowValueSink``: the ID made, as ``relationship(_:)``'s `.toOne`.
    @inlinable
    mutating func toOne(_ destination: Unmanaged<EntityDescription>, key: Int64, token: UInt64, store: () -> PersistentStore) {
        relationship(.toOne(ObjectID(entity: destination.takeUnretainedValue(), store: store(), primaryKey: key)))
    }
}

/// The sink of one value, as an ``AttributeValue``: what the array reader puts into each element.
@usableFromInline package struct AttributeValueSink: RowValueSink {
    /// The value read last.
    @usableFromInline package var value: AttributeValue = .null

    /// An empty sink.
    @inlinable @inline(__always) package init() {}
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func null() { value = .null }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func integer(_ value: Int64) { self.value = .integer(value) }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func boolean(_ value: Bool) { self.value = .boolean(value) }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func double(_ value: Double) { self.value = .double(value) }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func date(_ seconds: Double) { value = .date(Date(timeIntervalSinceReferenceDate: seconds)) }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func text(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            value = .string("")
            return
        }
        value = .string(String(decoding: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count), as: UTF8.self))
    }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func data(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            value = .data(Data())
            return
        }
        value = .data(Data(bytes: base, count: bytes.count))
    }
    /// Part of ``RowValueSink``.
    @inlinable @inline(__always) package mutating func value(_ value: AttributeValue) { self.value = value }
    /// Not used: relationships are read into their own array.
    @inlinable @inline(__always) package mutating func relationship(_ value: RelationshipStorage) {}
}

extension RowReader {
    /// The reader and key of the current row of `source`, selected with `Z_PK, Z_ENT, Z_OPT` first, from a
    /// query of `expected`'s rows.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` for an entity number the store does not know, one of an
    ///   entity that is not `expected` or one of its sub-entities (a row of another table's entity, which would
    ///   be read with that table's columns), or a key below 1.
    @inlinable @inline(__always)
    static func identify<Source: RowColumnSource, Store: RowReadingStore>(
        _ source: Source, in store: Store, expecting expected: EntityDescription
    ) throws -> (RowReader, Int64) {
        let pk = source.int64(at: 0)
        let entityNumber = source.int64(at: 1)
        guard let reader = store.reader(forEntityNumber: entityNumber) else {
            throw unknownEntityNumber(entityNumber, row: pk, source, expected)
        }
        // The common case, a row of the entity the query reads, takes one comparison.
        guard reader.entity === expected || reader.entity.isKind(of: expected) else {
            throw misplacedRow(entityNumber, reader, row: pk, source, expected)
        }
        guard pk > 0 else { throw keyBelowOne(pk, source, reader) }
        return (reader, pk)
    }

    /// The error of a row whose entity number the store does not know.
    @usableFromInline @inline(never)
    static func unknownEntityNumber<Source: RowColumnSource>(
        _ entityNumber: Int64, row pk: Int64, _ source: Source, _ expected: EntityDescription
    ) -> QuireError {
        QuireError(
            .fileReadCorruptFile, "Row \(pk) of \(source.storeDescription) has an unknown entity number \(entityNumber).",
            context: .init(file: source.errorFile, entity: expected.name))
    }

    /// The error of a row of an entity that is neither the query's nor one of its sub-entities.
    @usableFromInline @inline(never)
    static func misplacedRow<Source: RowColumnSource>(
        _ entityNumber: Int64, _ reader: RowReader, row pk: Int64, _ source: Source, _ expected: EntityDescription
    ) -> QuireError {
        CoreDataSchema.misplacedRowError(
            number: entityNumber, entity: reader.entity, row: pk, expected: expected, store: source.storeDescription,
            file: source.errorFile)
    }

    /// Reads the current row of `source` (selected with `Z_PK, Z_ENT, Z_OPT`, then the table's columns in the
    /// schema's order) into a snapshot.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` naming the table, the row and the column when the row
    ///   is damaged: an unknown entity number, a key below 1, a foreign key that is not a key, a column holding
    ///   a storage class its type never has (text in an integer column, a blob in a string column), an integer
    ///   outside its type's range, a value its type cannot hold (a UUID of 3 bytes). Never coerced.
    @inline(__always)
    package static func snapshot<Source: RowColumnSource, Store: RowReadingStore>(
        from source: Source, in store: Store, expecting expected: EntityDescription
    ) throws -> RowSnapshot {
        let (reader, pk) = try identify(source, in: store, expecting: expected)
        let reads = reader.attributes
        let attributes = try [AttributeValue](unsafeUninitializedCapacity: reads.count) { buffer, initialized in
            // Safe: the buffer is the reader's own `attributes` (a constant), borrowed for the loop, and every
            // index comes from its range.
            try reads.withUnsafeBufferPointer { reads in
                for read in reads.indices {
                    var sink = AttributeValueSink()
                    try reader.readValue(reads, read, from: source, row: pk, into: &sink)
                    buffer.initializeElement(at: initialized, to: sink.value)
                    initialized += 1
                }
            }
        }
        let id = ObjectID(entity: reader.entity, store: store.store, primaryKey: pk)
        let version = source.int64(at: 2)
        if reader.foreignKeyColumns.allSatisfy({ source.isNull(at: $0) }) {
            return RowSnapshot(objectID: id, version: version, attributes: attributes, relationships: reader.unrelated)
        }
        var relationships = RelationshipArraySink(capacity: reader.relationships.count)
        try reader.readRelationships(from: source, row: pk, in: store, token: id.storeToken, into: &relationships)
        return RowSnapshot(objectID: id, version: version, attributes: attributes, relationships: relationships.values)
    }

    /// Reads every attribute of the current row into `sink`, in slot order.
    @inlinable @inline(__always)
    func readAttributes<Source: RowColumnSource, Sink: RowValueSink>(
        from source: Source, row pk: Int64, into sink: inout Sink
    ) throws {
        // Safe: the buffer is this reader's own `attributes` (a constant), borrowed for the loop, and every index
        // comes from its range.
        try attributes.withUnsafeBufferPointer { reads in
            for read in reads.indices { try readValue(reads, read, from: source, row: pk, into: &sink) }
        }
    }

    /// Reads the relationships of the current row into `sink`, in slot order: a to-one's foreign key (and, for
    /// a destination with sub-entities, its entity column) as an ID, `.fault` for the others.
    @inlinable @inline(__always)
    func readRelationships<Source: RowColumnSource, Store: RowReadingStore, Sink: RowValueSink>(
        from source: Source, row pk: Int64, in store: Store, token: UInt64, into sink: inout Sink
    ) throws {
        // Safe: the buffer is this reader's own `relationships` (a constant), borrowed for the loop; a read is plain
        // bits (its destination unretained, kept alive by the store's model), so copying it counts no reference.
        try relationships.withUnsafeBufferPointer { reads in
            for read in reads {
                guard let read else {
                    sink.relationship(.fault)
                    continue
                }
                if source.isNull(at: read.foreignKey) {
                    sink.relationship(.toOne(nil))
                    continue
                }
                guard source.holdsKey(at: read.foreignKey) else { throw notAKey(read, source, row: pk) }
                var destination = read.destinationHandle
                if read.foreignEntity >= 0, !source.isNull(at: read.foreignEntity) {
                    destination = try concreteDestination(read, source.int64(at: read.foreignEntity), source, in: store, row: pk)
                }
                sink.toOne(destination, key: source.int64(at: read.foreignKey), token: token) { store.store }
            }
        }
    }

    /// The entity a to-one's entity column names (`number`): the destination or one of its sub-entities, never
    /// another (the object would be made of an unrelated entity). Out of line: inlined, the store's lookup of the
    /// number opened an access to the store's schema on every row, whether or not a to-one needed it.
    @usableFromInline @inline(never)
    func concreteDestination<Source: RowColumnSource, Store: RowReadingStore>(
        _ read: RelationshipRead, _ number: Int64, _ source: Source, in store: Store, row pk: Int64
    ) throws -> Unmanaged<EntityDescription> {
        guard let concrete = store.entity(number: number), concrete.isKind(of: read.destination) else {
            throw notADestination(read, number, source, row: pk)
        }
        return .passUnretained(concrete)
    }

    /// The error of a foreign-key column that holds no key.
    @usableFromInline @inline(never)
    func notAKey<Source: RowColumnSource>(_ read: RelationshipRead, _ source: Source, row pk: Int64) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Row \(source.keyColumnName) \(pk) of table \(source.tableName(self)) in \(source.storeDescription): column "
                + "\(source.columnName(read.foreignKey)) holds \(source.describeValue(at: read.foreignKey)), not the key of a row.",
            context: .init(file: source.errorFile, entity: entity.name))
    }

    /// The error of a destination entity column naming an entity that is not the relationship's destination or
    /// one of its sub-entities.
    @usableFromInline @inline(never)
    func notADestination<Source: RowColumnSource>(
        _ read: RelationshipRead, _ number: Int64, _ source: Source, row pk: Int64
    ) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Row \(source.keyColumnName) \(pk) of table \(source.tableName(self)) in \(source.storeDescription): column "
                + "\(source.columnName(read.foreignEntity)) holds entity number \(number), not that of "
                + "\(read.destination.name) or one of its sub-entities.",
            context: .init(file: source.errorFile, entity: entity.name))
    }

    /// Reads one attribute's column into `sink`: the read at `index` of `reads` (the reader's `attributes`).
    /// Each kind first tests the storage class its values always have (one comparison), so a well-formed row
    /// pays nothing more for the checks; NULL and the other classes the type allows take the slower path, and a
    /// class the type never has is refused.
    ///
    /// The read is taken where it lies, not copied: a row's loop then loads the one or two fields each column
    /// needs (its column and kind) instead of copying every field of every read past the SQLite calls.
    @inlinable @inline(__always)
    func readValue<Source: RowColumnSource, Sink: RowValueSink>(
        _ reads: UnsafeBufferPointer<AttributeRead>, _ index: Int, from source: Source, row pk: Int64, into sink: inout Sink
    ) throws {
        let kind = reads[index].kind
        if kind == .none {
            sink.null()
            return
        }
        let column = source.column(reads[index].column)
        let storage = source.storageClass(of: column)
        switch kind {
        case .none:
            sink.null()
            return
        case .integer:
            if storage == SQLStorageClass.integer {
                sink.integer(source.int64(column))
                return
            }
        case .rangedInteger:
            if storage == SQLStorageClass.integer {
                let integer = source.int64(column)
                guard integer >= reads[index].minimum, integer <= reads[index].maximum else {
                    throw damaged(reads[index], source, pk, storage: storage)
                }
                sink.integer(integer)
                return
            }
        case .boolean:
            if storage == SQLStorageClass.integer {
                sink.boolean(source.int64(column) != 0)
                return
            }
        case .double:
            if storage == SQLStorageClass.float || storage == SQLStorageClass.integer {
                sink.double(source.double(column))
                return
            }
        case .date:
            if storage == SQLStorageClass.float || storage == SQLStorageClass.integer {
                sink.date(source.double(column))
                return
            }
        case .string:
            if storage == SQLStorageClass.text {
                sink.text(source.bytes(column, storage: storage))
                return
            }
        case .data:
            if storage == SQLStorageClass.blob {
                sink.data(source.bytes(column, storage: storage))
                return
            }
        case .other:
            if storage != SQLStorageClass.null && reads[index].storageClasses & (1 &<< storage) != 0 {
                sink.value(try otherValue(reads[index], column, storage, source, pk))
                return
            }
        }
        if storage == SQLStorageClass.null {
            sink.null()
            return
        }
        throw damaged(reads[index], source, pk, storage: storage)
    }

    /// A value of the types without a case of their own, of a storage class the type allows.
    @inlinable @inline(never)
    func otherValue<Source: RowColumnSource>(
        _ read: AttributeRead, _ column: Source.Column, _ storage: Int32, _ source: Source, _ pk: Int64
    ) throws -> AttributeValue {
        switch read.type {
        case .integer16, .integer32, .integer64:
            let integer = source.int64(column)
            guard integer >= read.minimum, integer <= read.maximum else { throw damaged(read, source, pk, storage: storage) }
            return .integer(integer)
        case .boolean: return .boolean(source.int64(column) != 0)
        case .double: return .double(source.double(column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: source.double(column)))
        case .float: return .float(Float(source.double(column)))
        case .decimal:
            guard let decimal = source.decimal(column, storage: storage) else {
                throw corrupt(read, source, pk, "holds \(source.describeValue(at: read.column)), which is not a decimal number")
            }
            return .decimal(decimal)
        case .string:
            var sink = AttributeValueSink()
            sink.text(source.bytes(column))
            return sink.value
        case .uri:
            var sink = AttributeValueSink()
            sink.text(source.bytes(column))
            guard case .string(let text) = sink.value, let url = URL(string: text) else {
                throw corrupt(read, source, pk, "holds \(source.describeValue(at: read.column)), which is not a valid URI")
            }
            return .uri(url)
        case .binaryData, .transformable:
            let bytes = source.bytes(column)
            let data = bytes.count > 0 ? Data(bytes) : Data()
            guard read.external else { return .data(data) }
            return try ExternalDataFormat.decodeColumn(
                data, column: "\(source.columnName(read.column)) of row \(source.keyColumnName) \(pk) of table \(source.tableName(self))")
        case .uuid:
            let bytes = source.bytes(column)
            guard bytes.count == 16 else { throw corrupt(read, source, pk, "holds \(bytes.count) bytes where a UUID needs 16") }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
            return .uuid(UUID(uuid: uuid))
        }
    }

    /// The error for a column of a row whose value its attribute's type never has.
    @usableFromInline @inline(never)
    func damaged<Source: RowColumnSource>(_ read: AttributeRead, _ source: Source, _ pk: Int64, storage: Int32) -> QuireError {
        let problem = storage == SQLStorageClass.integer && read.storageClasses & (1 << SQLStorageClass.integer) != 0
            ? "holds \(source.describeValue(at: read.column)), outside the range of \(read.type.rawValue) (\(read.minimum)...\(read.maximum))"
            : "holds \(source.describeValue(at: read.column)) where \(read.type.rawValue) values are stored as "
                + SQLStorageClass.names(read.storageClasses)
        return corrupt(read, source, pk, problem)
    }

    /// The error for a damaged column of a row, naming the table, the row, the column and its attribute.
    @usableFromInline @inline(never)
    func corrupt<Source: RowColumnSource>(_ read: AttributeRead, _ source: Source, _ pk: Int64, _ problem: String) -> QuireError {
        let attribute = entity.allAttributes.first { attributes[$0.slot].column == read.column }
        return QuireError(
            .fileReadCorruptFile,
            "Row \(source.keyColumnName) \(pk) of table \(source.tableName(self)) in \(source.storeDescription): column "
                + "\(source.columnName(read.column))\(attribute.map { " (\(entity.name).\($0.name))" } ?? "") \(problem).",
            context: .init(file: source.errorFile, entity: entity.name, key: attribute?.name))
    }
}

/// The relationship values of a row, as an array.
@usableFromInline struct RelationshipArraySink: RowValueSink {
    /// The values read so far.
    @usableFromInline var values: [RelationshipStorage] = []

    /// An empty sink with room for `capacity` values.
    @inlinable init(capacity: Int) { values.reserveCapacity(capacity) }
    /// Part of ``RowValueSink``.
    @inlinable mutating func null() {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func integer(_ value: Int64) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func boolean(_ value: Bool) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func double(_ value: Double) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func date(_ seconds: Double) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func text(_ bytes: UnsafeRawBufferPointer) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func data(_ bytes: UnsafeRawBufferPointer) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func value(_ value: AttributeValue) {}
    /// Part of ``RowValueSink``.
    @inlinable mutating func relationship(_ value: RelationshipStorage) { values.append(value) }
}

/// Whether a store evaluates a fetch, with what it made to run it.
package enum Evaluation<Value> {
    /// The store evaluates the fetch.
    case evaluable(Value)
    /// The store cannot evaluate the fetch's predicate: the context works in memory.
    case notEvaluable
}

/// The packing builder is a sink of values: the reader writes each column straight into the packed row.
extension PackedRowBuilder: RowValueSink {
    /// Part of ``RowValueSink``: the ID's bits written as they are, without making the ID (no reference counted).
    @inlinable @inline(__always)
    func toOne(_ destination: Unmanaged<EntityDescription>, key: Int64, token: UInt64, store: () -> PersistentStore) {
        toOne(destination, token: token, key: key)
    }
}

extension RowReader {
    /// Reads the current row of `source` (as ``snapshot(from:in:)`` does, with the same checks and errors)
    /// straight into its packed form; a row with a value the packing does not cover is read again as arrays,
    /// which the packed row keeps as they are.
    @inlinable @inline(__always)
    @_spi(QuireEngine) public static func packedSnapshot<Source: RowColumnSource, Store: RowReadingStore>(
        from source: Source, in store: Store, expecting expected: EntityDescription, builder: PackedRowBuilder
    ) throws -> PackedRowSnapshot {
        var memo = RowReaderMemo()
        return try packedSnapshot(from: source, in: store, expecting: expected, builder: builder, memo: &memo)
    }

    /// ``packedSnapshot(from:in:expecting:builder:)`` for one of a fetch's rows, identified through the fetch's
    /// `memo` (``identify(_:in:expecting:memo:)``).
    @inlinable @inline(__always)
    @_spi(QuireEngine) public static func packedSnapshot<Source: RowColumnSource, Store: RowReadingStore>(
        from source: Source, in store: Store, expecting expected: EntityDescription, builder: PackedRowBuilder,
        memo: inout RowReaderMemo
    ) throws -> PackedRowSnapshot {
        let (reader, pk) = try identify(source, in: store, expecting: expected, memo: &memo)
        builder.reset()
        var sink = builder
        try reader.readAttributes(from: source, row: pk, into: &sink)
        try reader.readRelationships(from: source, row: pk, in: store, token: memo.owner?.token ?? 0, into: &sink)
        // The owner `identify` found for the reader's entity: the store's, or one that keeps the entity alive.
        let id = ObjectID(entity: reader.entity, owner: memo.owner, keyBits: UInt64(bitPattern: pk))
        if let values = builder.finish() { return PackedRowSnapshot(objectID: id, version: source.int64(at: 2), values: values) }
        return try unpackedSnapshot(from: source, in: store, expecting: expected)
    }

    /// A row the packing does not cover, read as arrays (``snapshot(from:in:expecting:)``) and kept as they are:
    /// the rare path, out of line.
    @usableFromInline @inline(never)
    static func unpackedSnapshot<Source: RowColumnSource, Store: RowReadingStore>(
        from source: Source, in store: Store, expecting expected: EntityDescription
    ) throws -> PackedRowSnapshot {
        PackedRowSnapshot(try snapshot(from: source, in: store, expecting: expected))
    }
}
