import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// Starts copying records in (Save As into a new SQLite store): one transaction until ``finishImport()``.
    package func beginImport() throws {
        let connection = try db()
        try connection.beginImmediate()
        do { try suspendDerivedAttributeTriggers(connection) } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        blobWrites = externalDataFolder.map { ExternalDataWrites(folder: $0, threshold: options.externalDataThreshold) }
        importedLengths = [:]
    }

    /// Inserts records with their keys and versions; to-many relationships come later.
    package func importRecords(_ rows: [RowSnapshot]) throws {
        let connection = try db()
        for row in rows {
            for value in row.attributes {
                if case .externalData(let reference) = value, let length = reference.length { importedLengths[reference.uuid] = length }
            }
            let change = SaveRequest.Change(
                objectID: row.objectID, store: store, version: row.version, attributes: row.attributes,
                relationships: row.relationships, committedRelationships: nil)
            try writeRow(change, id: row.objectID, map: [:], insert: true, version: row.version, connection)
        }
    }

    /// Writes the members of to-many relationships: join rows and order keys.
    package func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        let connection = try db()
        for (owner, relationship, members) in owners {
            let change = SaveRequest.Change.importedMembers(of: owner, relationship, members, store: store)
            try writeJoins(change, id: owner, map: [:], inverseSides: importPass(for: relationship) == 1, connection)
            try writeOrderKeys(change, map: [:], connection)
        }
    }

    /// Sets the key counters, the metadata and the lengths of external data, and commits.
    package func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws {
        let connection = try db()
        do {
            let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            // One counter per hierarchy, kept on the root's row; sub-entities' rows hold 0, as in Core Data.
            for entity in schema.numbers.entitiesInOrder {
                update.reset()
                update.bind(entity.superentity == nil ? maximumKeys[ObjectIdentifier(entity)] ?? 0 : 0, at: 1)
                update.bind(Int64(schema.numbers.number(of: entity)), at: 2)
                try update.run()
            }
            try SQLiteStore.write(metadata, connection)
            if let writes = blobWrites {
                for (name, length) in writes.lengths { importedLengths[name] = length }
                writes.finish()
            }
            if !importedLengths.isEmpty { try recordExternalData(importedLengths, connection) }
            try resumeDerivedAttributeTriggers(connection)
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        blobWrites = nil
        importedLengths = [:]
        metadataIsDirty = false
    }
}
