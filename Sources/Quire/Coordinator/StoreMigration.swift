import QuireCore
import QuireStores
import Foundation

/// Where the records of a store went when it was copied into another: the same keys, moved by a per-hierarchy
/// offset when the target's keys are unique across the store (atomic stores) and the source's only within
/// each entity hierarchy (SQLite). A few numbers, whatever the store's size.
struct StoreMigrationMap: Sendable {
    /// The store the records came from, and the one they are in now (held: a removed store is freed once
    /// nothing holds it).
    let source: PersistentStore
    let target: PersistentStore
    /// The offset added to the keys of each entity hierarchy, by root entity.
    let offsets: [ObjectIdentifier: Int64]

    /// The new ID of a record of the source store; nil for IDs of other stores and temporary IDs.
    func map(_ id: ObjectID) -> ObjectID? {
        guard id.isStored(in: source), let key = id.primaryKey else { return nil }
        return ObjectID(entity: id.entity, store: target, primaryKey: key + (offsets[ObjectIdentifier(id.entity.rootEntity)] ?? 0))
    }

    func retargeted(to store: PersistentStore) -> StoreMigrationMap {
        StoreMigrationMap(source: source, target: store, offsets: offsets)
    }
}

/// Copies every record of one store into a new, empty store: IDs first (only IDs are held for the whole
/// store), then records in batches, then the members of to-many relationships in batches, so memory stays
/// bounded by the batch size when the source is SQLite. External data files are hard-linked (or copied
/// across file systems) into the target's folder under the same names, never read, unless the target keeps
/// data inline or in memory.
enum StoreMigration {
    static let batchSize = 1000

    static func copy(
        from source: PersistentStore, to target: PersistentStore, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) throws -> StoreMigrationMap {
        guard let importer = target.backend as? any ImportingStoreBackend else { throw target.unsupported("import") }
        let entities = source.entities.filter { !$0.isAbstract }.sorted { $0.entityNumber < $1.entityNumber }
        var idsByEntity: [(EntityDescription, [ObjectID])] = []
        var maximum: [ObjectIdentifier: Int64] = [:]
        for entity in entities {
            let fetch = StoreFetch(
                entity: entity, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false, kind: .objectIDs)
            let ids = try source.backend.fetchObjectIDs(fetch).sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
            idsByEntity.append((entity, ids))
            let root = ObjectIdentifier(entity.rootEntity)
            maximum[root] = max(maximum[root] ?? 0, ids.last?.primaryKey ?? 0)
        }
        var offsets: [ObjectIdentifier: Int64] = [:]
        if !((source.backend as? any ImportingStoreBackend)?.keysAreStoreWide ?? false) && importer.keysAreStoreWide {
            var total: Int64 = 0
            for root in source.model.entitiesByNumber where root.superentity == nil {
                offsets[ObjectIdentifier(root)] = total
                total += maximum[ObjectIdentifier(root)] ?? 0
            }
        }
        let map = StoreMigrationMap(source: source, target: target, offsets: offsets)
        var targetMaximum: [ObjectIdentifier: Int64] = [:]
        for (root, key) in maximum { targetMaximum[root] = key + (offsets[root] ?? 0) }

        if let streaming = target.backend as? any StreamingImportBackend, streaming.canStreamImport {
            try streamCopy(idsByEntity, map, from: source, into: streaming, maximumKeys: targetMaximum, progress: progress)
            return map
        }
        try importer.beginImport()
        let total = idsByEntity.reduce(0) { $0 + $1.1.count }
        var copied = 0
        progress?(0, total)
        for (_, ids) in idsByEntity {
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                let batch = Array(ids[start..<min(ids.count, start + batchSize)])
                let rows = try source.backend.snapshots(for: batch)
                try importer.importRecords(try rows.map { try convert($0, map, source: source, target: target) })
                copied += batch.count
                progress?(copied, total)
            }
        }
        for pass in 0...1 {
            for (entity, ids) in idsByEntity {
                for relationship in entity.allRelationships
                where relationship.isToMany && !relationship.isTransient && importer.importPass(for: relationship) == pass {
                    for start in stride(from: 0, to: ids.count, by: batchSize) {
                        let batch = Array(ids[start..<min(ids.count, start + batchSize)])
                        let members = try source.backend.relatedObjectIDs(of: batch, relationship: relationship)
                        var owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])] = []
                        for id in batch {
                            guard let owner = map.map(id) else { continue }
                            let related = (members[id] ?? []).compactMap(map.map)
                            if !related.isEmpty { owners.append((owner, relationship, related)) }
                        }
                        if !owners.isEmpty { try importer.importRelationships(owners) }
                    }
                }
            }
        }
        try importer.finishImport(maximumKeys: targetMaximum)
        return map
    }

    /// Copies the records into a target that writes them as they come (binary and XML stores): each batch
    /// of records with the members of its to-many relationships, so that only one batch is held at a time.
    private static func streamCopy(
        _ idsByEntity: [(EntityDescription, [ObjectID])], _ map: StoreMigrationMap, from source: PersistentStore,
        into target: any StreamingImportBackend, maximumKeys: [ObjectIdentifier: Int64],
        progress: (@Sendable (Int, Int) -> Void)?
    ) throws {
        var counts = [Int](repeating: 0, count: source.model.entitiesByNumber.count + 1)
        for (entity, ids) in idsByEntity where entity.entityNumber < counts.count { counts[entity.entityNumber] += ids.count }
        let total = counts.reduce(0, +)
        try target.beginStreamedImport(counts: counts, nextKey: (maximumKeys.values.max() ?? 0) + 1)
        do {
            var copied = 0
            progress?(0, total)
            for (entity, ids) in idsByEntity {
                let toMany = entity.allRelationships.filter { $0.isToMany && !$0.isTransient }
                for start in stride(from: 0, to: ids.count, by: batchSize) {
                    let batch = Array(ids[start..<min(ids.count, start + batchSize)])
                    let rows = try source.backend.snapshots(for: batch)
                    guard rows.count == batch.count else {
                        throw QuireError(
                            .migration, "Save As could not read \(batch.count - rows.count) records of entity '\(entity.name)': "
                                + "the source changed while it was copied.",
                            context: .init(entity: entity.name))
                    }
                    var converted = try rows.map { try convert($0, map, source: source, target: target.store) }
                    for relationship in toMany {
                        let members = try source.backend.relatedObjectIDs(of: batch, relationship: relationship)
                        for index in converted.indices where relationship.slot < converted[index].relationships.count {
                            let related = (members[rows[index].objectID] ?? []).compactMap(map.map)
                            converted[index].relationships[relationship.slot] =
                                relationship.isOrdered ? .ordered(.init(related)) : .toMany(Set(related))
                        }
                    }
                    try target.streamRecords(converted)
                    copied += batch.count
                    progress?(copied, total)
                }
            }
            try target.finishStreamedImport()
        } catch {
            target.discardStreamedImport()
            throw error
        }
    }

    /// The names of the external data files the store's records refer to, each checked to be there with its
    /// recorded length, so that a copy of the store's file (Save As between stores of one kind) is refused
    /// as a record-by-record copy would be when a file is missing. Reads the records of the entities that
    /// have such attributes, a batch at a time.
    static func checkedExternalData(of store: PersistentStore) throws -> Set<String> {
        guard store.backend.keepsExternalDataFiles, let folder = store.backend.externalDataFolder else { return [] }
        var names = Set<String>()
        for entity in store.entities where !entity.isAbstract {
            let external = entity.allAttributes.filter(\.allowsExternalBinaryDataStorage)
            guard !external.isEmpty else { continue }
            let fetch = StoreFetch(
                entity: entity, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false, kind: .rows)
            try store.backend.visitRows(fetch) { row in
                for attribute in external where attribute.slot < row.attributes.count {
                    guard case .externalData(let reference) = row.attributes[attribute.slot] else { continue }
                    let expected = reference.length ?? store.backend.recordedLength(ofExternalData: reference.uuid)
                    _ = try folder.check(reference, expectedLength: expected, object: row.objectID, key: attribute.name)
                    names.insert(reference.uuid)
                }
            }
        }
        return names
    }

    /// A source row in the target's terms: IDs mapped, to-many relationships left for later, external data
    /// linked into the target's folder (or read, for a target that keeps it inline or in memory).
    private static func convert(
        _ row: RowSnapshot, _ map: StoreMigrationMap, source: PersistentStore, target: PersistentStore
    ) throws -> RowSnapshot {
        let entity = row.objectID.entity
        guard let id = map.map(row.objectID) else { return row }
        var attributes = row.attributes
        for index in attributes.indices {
            guard case .externalData(let reference) = attributes[index], index < entity.allAttributes.count else { continue }
            let key = entity.allAttributes[index].name
            if target.backend.keepsExternalDataFiles, let from = source.backend.externalDataFolder, let to = target.backend.externalDataFolder {
                let expected = reference.length ?? source.backend.recordedLength(ofExternalData: reference.uuid)
                let length = try from.check(reference, expectedLength: expected, object: row.objectID, key: key)
                try to.createIfNeeded()
                try to.link(reference.uuid, from: from)
                attributes[index] = .externalData(ExternalDataReference(uuid: reference.uuid, length: length))
            } else {
                attributes[index] = .data(try source.backend.readExternalData(reference, of: row.objectID, key: key))
            }
        }
        var relationships = row.relationships
        for relationship in entity.allRelationships where relationship.slot < relationships.count {
            if relationship.isToMany {
                relationships[relationship.slot] = .fault
            } else if case .toOne(let target?) = relationships[relationship.slot] {
                relationships[relationship.slot] = .toOne(map.map(target))
            }
        }
        return RowSnapshot(objectID: id, version: row.version, attributes: attributes, relationships: relationships)
    }
}
