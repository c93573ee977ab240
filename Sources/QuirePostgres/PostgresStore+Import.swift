import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// Starts copying records in (Save As into a new PostgreSQL store): one transaction until ``finishImport(maximumKeys:)``.
    package func beginImport() throws {
        try db().execute("BEGIN ISOLATION LEVEL READ COMMITTED")
    }

    /// Inserts records with their keys and versions; to-many relationships come later.
    package func importRecords(_ rows: [RowSnapshot]) throws {
        let connection = try db()
        func change(_ row: RowSnapshot) -> SaveRequest.Change {
            SaveRequest.Change(
                objectID: row.objectID, store: store, version: row.version, attributes: row.attributes,
                relationships: row.relationships, committedRelationships: nil)
        }
        // Rows with chunked values one by one (their chunks are statements of their own), the others pipelined.
        var pipelined: [Int] = []
        for (index, row) in rows.enumerated() {
            if mayWriteChunks(row.objectID.entity) {
                try writeRow(change(row), id: row.objectID, map: [:], insert: true, version: row.version, connection)
            } else {
                pipelined.append(index)
            }
        }
        guard !pipelined.isEmpty else { return }
        _ = try connection.pipelined(describe: { Self.describeWrite(insert: true, rows[$0].objectID) }) { pipeline in
            for index in pipelined {
                let row = rows[index]
                guard let (sql, values) = try rowStatement(change(row), id: row.objectID, map: [:], insert: true, version: row.version, connection)
                else { continue }
                try pipeline.send(sql, values, label: index)
            }
        }
    }

    /// Writes the members of to-many relationships: join rows and order keys.
    package func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        guard !owners.isEmpty else { return }
        _ = try db().pipelined(describe: { Self.describeMemberWrites(owners[$0].owner) }) { pipeline in
            for (index, (owner, relationship, members)) in owners.enumerated() {
                let change = SaveRequest.Change.importedMembers(of: owner, relationship, members, store: store)
                try sendMemberWrites(change, id: owner, map: [:], inverseSides: importPass(for: relationship) == 1, pipeline, label: index)
            }
        }
    }

    /// Sets the key sequences and `z_max` counters, writes the metadata, and commits.
    package func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws {
        let connection = try db()
        do {
            for entity in schema.numbers.entitiesInOrder {
                let maximum = entity.superentity == nil ? maximumKeys[ObjectIdentifier(entity)] ?? 0 : 0
                try connection.query(
                    "UPDATE z_primarykey SET z_max = $1 WHERE z_ent = $2",
                    [.integer(maximum), .integer(Int64(schema.numbers.number(of: entity)))])
                if entity.superentity == nil, maximum > 0, let table = schema.table(for: entity) {
                    try connection.queryOnce(
                        "SELECT setval('\(PostgresSchema.keySequence(table).replacingOccurrences(of: "'", with: "''"))', $1::BIGINT)",
                        [.integer(maximum)])
                }
            }
            try Self.write(metadata, connection)
            try connection.execute("COMMIT")
        } catch {
            if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
        metadataIsDirty = false
    }
}
