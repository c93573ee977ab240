import QuireCore

/// The reader of the row a fetch read last, by its entity number (`Z_ENT`): a fetch's rows are mostly of one
/// entity, so ``RowReader/identify(_:in:expecting:memo:)`` identifies each row after the first with one
/// comparison, without looking the reader up or checking again that the entity is the one the query reads.
/// One memo serves one fetch (one expected entity); confined to the request that reads the rows. Part of the
/// engine SPI, as ``RowReader`` is.
@_spi(QuireEngine) public struct RowReaderMemo {
    /// The entity number of the row read last; 0, which no entity has, before the first.
    @usableFromInline var number: Int64 = 0
    /// Its reader, found and checked against the fetch's entity.
    @usableFromInline var reader: RowReader?
    /// The owner of the IDs of its rows, set with `reader` (``ObjectID/init(entity:store:primaryKey:)``'s choice):
    /// the store's, which keeps every entity of the store's model, or one that keeps the reader's entity.
    @usableFromInline var owner: ObjectIDOwner?

    /// A memo of no row yet.
    @inlinable @_spi(QuireEngine) public init() {}
}

extension RowReader {
    /// ``identify(_:in:expecting:)``, answering a row of the entity number of the row before from `memo`.
    ///
    /// - Throws: What ``identify(_:in:expecting:)`` throws: an unknown entity number, a row of an entity that
    ///   is not `expected` or one of its sub-entities, or a key below 1 (checked for every row).
    @inlinable @inline(__always)
    static func identify<Source: RowColumnSource, Store: RowReadingStore>(
        _ source: Source, in store: Store, expecting expected: EntityDescription, memo: inout RowReaderMemo
    ) throws -> (RowReader, Int64) {
        let entityNumber = source.int64(at: 1)
        if entityNumber == memo.number, let reader = memo.reader {
            let pk = source.int64(at: 0)
            guard pk > 0 else { throw keyBelowOne(pk, source, reader) }
            return (reader, pk)
        }
        let (reader, pk) = try identify(source, in: store, expecting: expected)
        memo.number = entityNumber
        memo.reader = reader
        memo.owner = ObjectID(entity: reader.entity, store: store.store, primaryKey: pk).idOwner
        return (reader, pk)
    }

    /// The error of a row whose key is below 1.
    @usableFromInline @inline(never)
    static func keyBelowOne<Source: RowColumnSource>(_ pk: Int64, _ source: Source, _ reader: RowReader) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Row \(source.keyColumnName) \(pk) of table \(source.tableName(reader)) in \(source.storeDescription) has a key below 1.",
            context: .init(file: source.errorFile, entity: reader.entity.name))
    }
}
