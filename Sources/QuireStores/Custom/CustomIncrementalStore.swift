import QuireCore
import Foundation

/// Adapts a custom ``IncrementalStoreBackend`` into a store: fetches read the records of the entities asked
/// for and evaluate predicates and sort keys over them; saves check versions and hand the backend whole
/// records.
///
/// Used only under the coordinator's lock.
final class CustomIncrementalStore: ImportingStoreBackend, StoreNodeSource {
    /// The handle this backend answers for. `unowned(unsafe)`: the handle owns its backend and is the only
    /// way to reach it, so the handle outlives every use; no reference counting on the per-row paths.
    package unowned(unsafe) let store: PersistentStore
    let backend: any IncrementalStoreBackend
    /// Records read during the current request, so key paths do not read one record twice.
    private var requestCache: [ObjectID: RowSnapshot] = [:]

    init(backend: any IncrementalStoreBackend, store: PersistentStore) {
        self.backend = backend
        self.store = store
    }

    /// The backend keeps its own records; only the handle's location changes.
    func relocate(to url: URL) throws { store.url = url }

    func load() throws {
        if let stored = try backend.loadMetadata() {
            guard stored[StoreMetadataKey.storeType]?.stringValue == type.rawValue,
                let uuid = stored[StoreMetadataKey.storeUUID]?.stringValue
            else {
                throw QuireError(
                    .persistentStoreTypeMismatch, "The store '\(url?.path ?? "memory")' is not a \(type) store.",
                    context: .init(file: url))
            }
            identifier = uuid
            metadata = stored
        } else {
            guard !options.isReadOnly else {
                throw QuireError(.fileReadNoSuchFile, "There is no \(type) store at '\(url?.path ?? "memory")' to open read-only.", context: .init(file: url))
            }
            metadata = StoreMetadataKey.standard(type: type, uuid: identifier, model: model)
            try backend.save(IncrementalStoreChanges(metadata: metadata))
        }
    }

    func close() throws {
        if metadataIsDirty && !options.isReadOnly { try backend.save(IncrementalStoreChanges(metadata: metadata)) }
        metadataIsDirty = false
        try backend.close()
    }

    // MARK: Import

    func beginImport() throws {}
    func importRecords(_ rows: [RowSnapshot]) throws { try incrementalImportRecords(rows) }
    func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        try incrementalImportRelationships(owners)
    }
    func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws {
        try backend.save(IncrementalStoreChanges(metadata: metadata))
        metadataIsDirty = false
    }

    // MARK: Records

    private func row(_ record: IncrementalStoreRecord) throws -> RowSnapshot {
        guard let entity = model.entitiesByName[record.reference.entityName] else {
            throw QuireError(
                .persistentStoreOperation, "The \(type) store returned a record of unknown entity '\(record.reference.entityName)'.",
                context: .init(file: url))
        }
        return try CustomAtomicStore.row(from: record.node, entity: entity, store: store) { reference in
            guard let target = model.entitiesByName[reference.entityName], reference.reference > 0 else {
                throw QuireError(
                    .persistentStoreOperation, "The \(type) store returned a reference to unknown entity '\(reference.entityName)'.",
                    context: .init(file: url))
            }
            return ObjectID(entity: target, store: store, primaryKey: reference.reference)
        }
    }

    func node(for id: ObjectID) -> RowSnapshot? {
        if let cached = requestCache[id] { return cached }
        guard let record = try? backend.record(for: id.storeReference), let row = try? row(record) else { return nil }
        requestCache[id] = row
        return row
    }

    func snapshot(for objectID: ObjectID) throws -> RowSnapshot? {
        guard objectID.primaryKey != nil, let record = try backend.record(for: objectID.storeReference) else { return nil }
        return try row(record)
    }

    func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        guard let row = try snapshot(for: objectID), relationship.slot < row.relationships.count else { return [] }
        return row.relationships[relationship.slot].objectIDs
    }

    // MARK: Fetching

    func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        !PredicateKeyScan.keys(of: predicate).contains { key in model.entities.contains { ($0.propertiesByName[key]?.isTransient) == true } }
    }

    func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot] {
        defer { requestCache = [:] }
        let entities = fetch.includesSubentities ? [fetch.entity] + fetch.entity.allSubentities : [fetch.entity]
        var rows: [RowSnapshot] = []
        for entity in entities where !entity.isAbstract {
            for reference in try backend.references(for: entity) {
                guard let record = try backend.record(for: StoreReference(entityName: entity.name, reference: reference)) else { continue }
                let row = try row(record)
                requestCache[row.objectID] = row
                rows.append(row)
            }
        }
        return try StoreNodeSourceFetch.evaluate(rows, fetch, source: self)
    }

    // MARK: Saving

    func save(_ request: SaveRequest) throws -> SaveResult {
        guard !options.isReadOnly else { throw readOnlyError() }
        var result = SaveResult()
        var permanent: [ObjectID] = []
        var byEntity: [ObjectIdentifier: [Int]] = [:]
        for (index, change) in request.inserted.enumerated() { byEntity[ObjectIdentifier(change.objectID.entity), default: []].append(index) }
        permanent = request.inserted.map(\.objectID)
        for positions in byEntity.values {
            let entity = request.inserted[positions[0]].objectID.entity
            let references = try backend.obtainPermanentReferences(for: entity, count: positions.count)
            guard references.count == positions.count, references.allSatisfy({ $0 > 0 }) else {
                throw QuireError(.persistentStoreSave, "The \(type) store did not hand out \(positions.count) references.", context: .init(file: url))
            }
            for (position, reference) in zip(positions, references) {
                permanent[position] = ObjectID(entity: entity, store: store, primaryKey: reference)
            }
        }
        result.permanentIDs = permanent
        let map = result.permanentIDsByTemporaryID(for: request)
        var changes = IncrementalStoreChanges()
        var conflicts: [ObjectID] = []
        for (change, id) in zip(request.inserted, permanent) {
            var row = RowSnapshot(objectID: id, version: 1, attributes: change.attributes, relationships: change.relationships)
            for index in row.relationships.indices { row.relationships[index].remap(map) }
            changes.inserted.append(record(of: row))
        }
        for change in request.updated {
            guard let existing = try snapshot(for: change.objectID), existing.version == change.version else {
                conflicts.append(change.objectID)
                continue
            }
            var row = existing
            row.version += 1
            row.attributes = change.attributes
            for index in change.relationships.indices where index < row.relationships.count && !change.relationships[index].isFault {
                var storage = change.relationships[index]
                storage.remap(map)
                row.relationships[index] = storage
            }
            changes.updated.append(record(of: row))
        }
        for change in request.deleted {
            guard let existing = try snapshot(for: change.objectID), existing.version == change.version else {
                conflicts.append(change.objectID)
                continue
            }
            changes.deleted.append(change.objectID.storeReference)
        }
        if !conflicts.isEmpty {
            throw QuireError(
                .persistentStoreSaveConflicts,
                "Could not save: \(conflicts.count) object(s) were changed or deleted in the \(type) store since read.",
                context: .init(file: url, object: conflicts.first?.uriRepresentation()))
        }
        if metadataIsDirty { changes.metadata = metadata }
        try backend.save(changes)
        metadataIsDirty = false
        return result
    }

    private func record(of row: RowSnapshot) -> IncrementalStoreRecord {
        let node = CustomAtomicStore.node(of: row)
        return IncrementalStoreRecord(reference: node.reference, version: node.version, attributes: node.attributes, relationships: node.relationships)
    }
}
