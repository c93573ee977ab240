import QuireCore
import QuireStores
import Foundation

extension ExternalRecordFolder {
    /// How many objects a rebuild reads from the store at a time.
    static let rebuildBatchSize = 1_000

    /// Writes every record of the store anew from the store: into a hidden folder beside the store's record
    /// folder, flushed, then renamed into its place (the old folder, if any, renamed away first and removed).
    /// What an interrupted rebuild leaves is hidden and removed by the next one; a reader sees the old records
    /// or the new ones, or (for an instant between the two renames) none.
    ///
    /// - Throws: The store's read errors and the file system's errors; the old records are then as they were.
    func rebuild() throws {
        let manager = FileManager.default
        let identifier = store.identifier
        for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        where ExternalRecordLayout.isRebuildLeftover(name, identifier: identifier) {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
        let building = ExternalRecordLayout.rebuildFolder(in: directory, identifier: identifier)
        try Self.createDirectory(building)
        do {
            let written = try writeAllRecords(into: building)
            if written > 0 { try Self.flushFileSystem(of: building) }
            let target = storeFolder
            var old: URL?
            if manager.fileExists(atPath: target.path) {
                let aside = ExternalRecordLayout.rebuildFolder(in: directory, identifier: identifier)
                guard rename(target.path, aside.path) == 0 else {
                    throw AtomicFileWriter.error(errno, "move aside the old records", target)
                }
                old = aside
            }
            guard rename(building.path, target.path) == 0 else {
                let code = errno
                if let old { rename(old.path, target.path) }
                throw AtomicFileWriter.error(code, "put in place the rebuilt records", target)
            }
            try? Self.flushDirectory(directory)
            if let old { try? manager.removeItem(at: old) }
        } catch {
            try? manager.removeItem(at: building)
            throw error
        }
    }

    /// Writes the record of every object of every entity that gets records into `folder`, returning how many.
    private func writeAllRecords(into folder: URL) throws -> Int {
        var written = 0
        for entity in store.entities {
            let plan = plan(for: entity)
            guard plan.writesRecords else { continue }
            let fetch = StoreFetch(
                entity: entity, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false, kind: .objectIDs)
            let ids = try store.backend.fetchObjectIDs(fetch)
            guard !ids.isEmpty else { continue }
            let entityFolder = folder.appendingPathComponent(entity.name, isDirectory: true)
            try Self.createDirectory(entityFolder)
            for start in stride(from: 0, to: ids.count, by: Self.rebuildBatchSize) {
                let batch = Array(ids[start..<min(ids.count, start + Self.rebuildBatchSize)])
                for (key, data) in try encodedRecords(of: batch, plan: plan) {
                    try Self.createFile(
                        entityFolder.appendingPathComponent(ExternalRecordLayout.fileName(primaryKey: key, extension: fileExtension)),
                        data, flush: false)
                    written += 1
                }
            }
        }
        return written
    }

    /// Writes the records of objects the store saved without the coordinator's save (a batch insert): staged in a
    /// hidden folder, flushed, then renamed into place.
    ///
    /// - Throws: The store's read errors and the file system's errors; what is staged then stays, so that the
    ///   next attach of the store writes its records anew.
    func writeRecords(of ids: [ObjectID]) throws {
        var byEntity: [ObjectIdentifier: (entity: EntityDescription, ids: [ObjectID])] = [:]
        for id in ids where plan(for: id.entity).writesRecords {
            byEntity[ObjectIdentifier(id.entity), default: (id.entity, [])].ids.append(id)
        }
        guard !byEntity.isEmpty else { return }
        let staging = storeFolder.appendingPathComponent(ExternalRecordLayout.savingPrefix + UUID().uuidString, isDirectory: true)
        try Self.createDirectory(staging)
        var moves: [(from: URL, to: URL)] = []
        for (entity, entityIDs) in byEntity.values {
            let plan = plan(for: entity)
            try Self.createDirectory(storeFolder.appendingPathComponent(entity.name, isDirectory: true))
            for start in stride(from: 0, to: entityIDs.count, by: Self.rebuildBatchSize) {
                let batch = Array(entityIDs[start..<min(entityIDs.count, start + Self.rebuildBatchSize)])
                for (key, data) in try encodedRecords(of: batch, plan: plan) {
                    let staged = staging.appendingPathComponent(String(moves.count))
                    try Self.createFile(staged, data, flush: false)
                    moves.append((staged, recordURL(entity: entity.name, primaryKey: key)))
                }
            }
        }
        try Self.flushFileSystem(of: staging)
        for move in moves {
            guard rename(move.from.path, move.to.path) == 0 else { throw AtomicFileWriter.error(errno, "put in place the record", move.to) }
        }
        guard rmdir(staging.path) == 0 else { throw AtomicFileWriter.error(errno, "remove the staging folder", staging) }
    }

    /// Leaves a hidden marker in the store's record folder, so that the next attach of the store writes its
    /// records anew (after a failure that left them behind the store).
    func markStale() {
        let marker = storeFolder.appendingPathComponent(ExternalRecordLayout.savingPrefix + "stale-" + UUID().uuidString, isDirectory: true)
        try? FileManager.default.createDirectory(at: marker, withIntermediateDirectories: true)
    }

    /// The records of a batch of objects of one entity, read from the store: each object's primary key and bytes.
    private func encodedRecords(of batch: [ObjectID], plan: ExternalRecordEntityPlan) throws -> [(key: Int64, data: Data)] {
        let backend: any PersistentStoreBackend = store.backend
        let rows = try backend.snapshots(for: batch)
        // The members of to-many relationships the records hold, read for the whole batch at once.
        var members: [Int: [ObjectID: [ObjectID]]] = [:]
        for (relationship, slot) in plan.relationships where relationship.isToMany {
            members[slot] = try backend.relatedObjectIDs(of: batch, relationship: relationship)
        }
        var records: [(key: Int64, data: Data)] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            guard let key = row.objectID.primaryKey else { continue }
            let related: [ExternalRecordContent.Related] = plan.relationships.map { relationship, slot in
                let storage = slot < row.relationships.count ? row.relationships[slot] : .fault
                if relationship.isToMany && storage.isFault { return (relationship, members[slot]?[row.objectID] ?? []) }
                return (relationship, storage.objectIDs)
            }
            let objectID = row.objectID
            let data = try ExternalRecordContent.encode(
                plan: plan, attributes: row.attributes, related: related, format: format,
                externalData: { name, reference in try backend.readExternalData(reference, of: objectID, key: name) })
            records.append((key, data))
        }
        return records
    }
}
