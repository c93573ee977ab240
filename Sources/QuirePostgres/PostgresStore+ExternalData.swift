import QuireCore
import QuireStores
import Foundation

/// External binary data in the database: values of attributes that allow external storage and are larger
/// than ``StoreOptions/externalDataThreshold`` are kept in `z_externaldata` as chunks of
/// ``ExternalDataChunks/size`` bytes, keyed by a UUID the row's column names in Core Data's reference form
/// (`0x02`, the UUID, `0x00`), written in the save's transaction and read back a chunk at a time.
extension PostgresStore {
    /// The table of chunks: `(z_uuid, z_chunk)` → `z_bytes`.
    static let externalDataTable = "z_externaldata"

    /// Creates the table of chunks (for stores made before it existed too).
    static let createExternalDataTable =
        "CREATE TABLE IF NOT EXISTS z_externaldata (z_uuid TEXT NOT NULL, z_chunk INTEGER NOT NULL, z_bytes BYTEA NOT NULL, "
        + "PRIMARY KEY (z_uuid, z_chunk))"

    private static let insertChunk = "INSERT INTO z_externaldata (z_uuid, z_chunk, z_bytes) VALUES ($1::TEXT, $2::INTEGER, $3::BYTEA)"

    /// The columns of an entity's table that hold attributes allowing external storage, by slot.
    func externalColumns(of entity: EntityDescription) -> [(slot: Int, column: String)] {
        guard let mapping = schema.mapping(for: entity) else { return [] }
        return entity.allAttributes.compactMap { attribute in
            let index = mapping.attributeColumns[attribute.slot]
            guard attribute.allowsExternalBinaryDataStorage, index >= 0 else { return nil }
            return (attribute.slot, mapping.table.columns[index].name)
        }
    }

    /// The names of the chunked values the columns of one result row refer to.
    static func referencedNames(_ result: PostgresResult, row: Int, columns: Range<Int>) -> Set<String> {
        var names = Set<String>()
        for column in columns {
            guard let bytes = result.bytes(row, column), case .external(let name)? = try? ExternalDataFormat.parse(bytes, column: "")
            else { continue }
            names.insert(name)
        }
        return names
    }

    /// The chunked values an object's row refers to now (read before it is updated).
    func storedExternalNames(of id: ObjectID, _ connection: PostgresConnection) throws -> Set<String> {
        let columns = externalColumns(of: id.entity)
        guard !columns.isEmpty, let table = schema.table(for: id.entity), let pk = id.primaryKey else { return [] }
        let list = columns.map { "t0." + SQLDialect.postgres.quote($0.column) }.joined(separator: ", ")
        let result = try connection.query("SELECT \(list) FROM \(SQLDialect.postgres.quote(table.name)) t0 WHERE t0.z_pk = $1::BIGINT", [.integer(pk)])
        guard result.count == 1 else { return [] }
        return Self.referencedNames(result, row: 0, columns: 0..<columns.count)
    }

    /// The names of an object's own chunked values a change keeps (references it still holds).
    func keptExternalNames(_ change: SaveRequest.Change, of id: ObjectID, among old: Set<String>) -> Set<String> {
        var kept = Set<String>()
        for (slot, _) in externalColumns(of: id.entity) where slot < change.attributes.count {
            if case .externalData(let reference) = change.attributes[slot], old.contains(reference.uuid) { kept.insert(reference.uuid) }
        }
        return kept
    }

    /// Removes the chunks of values no row refers to any more (inside the save's transaction).
    func removeExternalData(_ names: Set<String>, _ connection: PostgresConnection) throws {
        guard !names.isEmpty else { return }
        try connection.query("DELETE FROM z_externaldata WHERE z_uuid = ANY($1::TEXT[])", [.text("{" + names.sorted().joined(separator: ",") + "}")])
    }

    /// The column value of an attribute that allows external storage: large data as chunks under a new name,
    /// a reference the object already holds kept, another object's or another store's value copied.
    func storedExternalValue(
        _ value: AttributeValue, of id: ObjectID, slot: Int, keeping old: Set<String>, _ connection: PostgresConnection
    ) throws -> PostgresConnection.Value {
        switch value {
        case .data(let bytes) where bytes.count > options.externalDataThreshold:
            return .bytes(ExternalDataFormat.externalColumn(try writeExternalChunks(bytes, connection)))
        case .externalData(let reference):
            if old.contains(reference.uuid) { return .bytes(ExternalDataFormat.externalColumn(reference.uuid)) }
            let name = UUID().uuidString
            if let source = id.persistentStore, source !== store {
                // Save As or migration from another store: its bytes, a chunk at a time.
                let key = slot < id.entity.allAttributes.count ? id.entity.allAttributes[slot].name : ""
                var chunk: Int64 = 0
                try source.backend.readExternalData(reference, of: id, key: key) { bytes in
                    try connection.query(Self.insertChunk, [.text(name), .integer(chunk), .bytes(bytes)])
                    chunk += 1
                }
            } else {
                // A value of another object of this store: copied on the server, never through this process.
                let copied = try connection.query(
                    "INSERT INTO z_externaldata (z_uuid, z_chunk, z_bytes) SELECT $1::TEXT, z_chunk, z_bytes FROM z_externaldata "
                        + "WHERE z_uuid = $2::TEXT", [.text(name), .text(reference.uuid)])
                guard copied.changes > 0 else { throw missingExternalData(reference, of: id, slot: slot) }
            }
            return .bytes(ExternalDataFormat.externalColumn(name))
        default:
            return PostgresDialect.value(value, externalFormat: true)
        }
    }

    /// Writes bytes as chunks under a new name; returns the name.
    private func writeExternalChunks(_ bytes: Data, _ connection: PostgresConnection) throws -> String {
        let name = UUID().uuidString
        var start = bytes.startIndex
        var chunk: Int64 = 0
        while start < bytes.endIndex {
            let end = bytes.index(start, offsetBy: ExternalDataChunks.size, limitedBy: bytes.endIndex) ?? bytes.endIndex
            try connection.query(Self.insertChunk, [.text(name), .integer(chunk), .bytes(bytes[start..<end])])
            start = end
            chunk += 1
        }
        return name
    }

    private func missingExternalData(_ reference: ExternalDataReference, of id: ObjectID, slot: Int) -> QuireError {
        let key = slot < id.entity.allAttributes.count ? id.entity.allAttributes[slot].name : ""
        return QuireError(
            .fileReadNoSuchFile,
            "The external data of '\(key)' of \(id) is missing: the PostgreSQL store '\(displayURL)' holds no chunks named \(reference.uuid).",
            context: .init(file: errorURL, entity: id.entity.name, key: key, object: id.uriRepresentation()))
    }

    // MARK: Reading

    /// The bytes of a chunked value, read a chunk at a time into one buffer of its length.
    package func readExternalData(_ reference: ExternalDataReference, of objectID: ObjectID, key: String) throws -> Data {
        let connection = try db()
        let total = try connection.query(
            "SELECT COALESCE(SUM(octet_length(z_bytes)), 0) FROM z_externaldata WHERE z_uuid = $1::TEXT", [.text(reference.uuid)])
        var data = Data(capacity: Int(total.count == 1 ? total.int64(0, 0) : 0))
        try readExternalData(reference, of: objectID, key: key) { data.append($0) }
        return data
    }

    /// Hands the chunks of a value to `body` in order, one query per chunk (so `body` may use the store).
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the store holds no chunks of that name (the object
    ///   was deleted since it was read), ``QuireError/Code/fileReadCorruptFile`` when a chunk is missing.
    package func readExternalData(
        _ reference: ExternalDataReference, of objectID: ObjectID, key: String, chunks body: (Data) throws -> Void
    ) throws {
        let connection = try db()
        let counted = try connection.query("SELECT COUNT(*) FROM z_externaldata WHERE z_uuid = $1::TEXT", [.text(reference.uuid)])
        let count = counted.count == 1 ? counted.int64(0, 0) : 0
        let context = QuireError.Context(file: errorURL, entity: objectID.entity.name, key: key, object: objectID.uriRepresentation())
        guard count > 0 else {
            throw QuireError(
                .fileReadNoSuchFile,
                "The external data of '\(key)' of \(objectID) is missing: the PostgreSQL store '\(displayURL)' holds no chunks named "
                    + "\(reference.uuid).", context: context)
        }
        for chunk in 0..<count {
            let result = try connection.query(
                "SELECT z_bytes FROM z_externaldata WHERE z_uuid = $1::TEXT AND z_chunk = $2::INTEGER",
                [.text(reference.uuid), .integer(chunk)], binaryResult: true)
            guard result.count == 1, let bytes = result.binaryBytes(0, 0) else {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The external data of '\(key)' of \(objectID) is damaged: chunk \(chunk) of \(count) is missing in the PostgreSQL "
                        + "store '\(displayURL)'.", context: context)
            }
            try body(bytes)
        }
    }
}
