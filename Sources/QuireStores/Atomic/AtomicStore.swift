import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What an atomic store's file holds once read: the metadata, the next primary key, and every record.
package struct AtomicStoreImage {
    package var metadata: [String: PropertyListValue]
    /// The next primary key to hand out; keys are unique across the whole store (Core Data's
    /// `nextObjectID`), not per entity hierarchy as in SQLite.
    package var nextKey: Int64
    /// Every record by primary key, packed (see ``AtomicRecordTable``); to-many relationships are loaded
    /// (never `.fault`).
    package var nodes: AtomicRecordTable
    /// The number of records of each entity, by entity number, when the decoder counted them (a count
    /// then reads no record).
    package var entityCounts: [Int]? = nil
}

/// The base of the stores that load a whole graph and write it whole (XML, binary, in-memory, custom
/// atomic stores): it keeps the records in memory, evaluates fetches there with ``QueryPredicate`` and
/// ``SortKey``, and writes the file with a temporary file, fsync and rename.
///
/// Subclasses say how bytes become an ``AtomicStoreImage`` and back.
///
/// Used only under the coordinator's lock.
package class AtomicStore: ImportingStoreBackend, StoreNodeSource {
    /// The handle this backend answers for. `unowned(unsafe)`: the handle owns its backend and is the only
    /// way to reach it, so the handle outlives every use; no reference counting on the per-row paths.
    package unowned(unsafe) let store: PersistentStore

    package init(store: PersistentStore) {
        self.store = store
        nodes = AtomicRecordTable(store: store)
    }

    /// Every record by primary key, packed (see ``AtomicRecordTable``).
    package var nodes: AtomicRecordTable {
        didSet { entityCounts = nil }
    }
    /// The number of records of each entity, by entity number, while known: from the decoder, or from the
    /// last count; any change of ``nodes`` forgets it.
    private var entityCounts: [Int]?
    var nextKey: Int64 = 1
    /// The size and modification time of the file as last read or written, to notice another writer.
    private(set) var fileStamp: FileStamp?
    /// The watch for other writers of the file, while the coordinator keeps one (AtomicStore+WriteWatch.swift).
    var writeWatch: AtomicWriteWatch?
    /// Names of transient properties, which predicates on the cache cannot read (they hold no values).
    private lazy var transientNames: Set<String> = Set(
        model.entities.flatMap { $0.properties.filter(\.isTransient).map(\.name) })

    /// Whether the records are still in the file only: a streamed import (Save As) wrote them there, and
    /// ``loadPendingRecords()`` reads them on first use.
    package internal(set) var recordsPending = false
    /// The file being written by a streamed import.
    var recordStream: (any AtomicRecordStream)?

    /// Whether the store lives in a file (false for the in-memory store).
    var persistsToFile: Bool { url != nil }

    /// The file's URL; only called when ``persistsToFile``.
    package var fileURL: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    // MARK: Subclass hooks

    /// Decodes a whole file.
    package func decode(_ data: Data) throws -> AtomicStoreImage { throw unsupported("load") }

    /// Encodes the whole store as the chunks of a file.
    package func encode(_ image: AtomicStoreImage) throws -> [Data] { throw unsupported("save") }

    /// Whether ``makeRecordStream(counts:nextKey:)`` writes this kind of file as a stream.
    var streamsRecords: Bool { false }

    /// Starts writing the store's file record by record (Save As into the store), with the store's metadata.
    func makeRecordStream(counts: [Int], nextKey: Int64) throws -> (any AtomicRecordStream)? { nil }

    /// Reads the file's bytes (subclasses may bound the size): mapped when it can be (see ``MappedFile``;
    /// store files are only ever replaced by rename, so a mapping never sees its file shrink), read otherwise.
    package func readFile() throws -> Data {
        if let mapped = MappedFile.map(fileURL) { return mapped }
        do {
            return try Data(contentsOf: fileURL)
        } catch {
            throw QuireError(
                .fileReadNoPermission, "The store '\(fileURL.path)' cannot be read.", context: .init(file: fileURL),
                underlying: QuireUnderlyingError(error))
        }
    }

    // MARK: Loading

    package func load() throws {
        guard persistsToFile else {
            createEmpty()
            return
        }
        var status = stat()
        if stat(fileURL.path, &status) != 0 || status.st_size == 0 {
            if status.st_size == 0 && stat(fileURL.path, &status) == 0 && options.isReadOnly {
                throw QuireError(
                    .fileReadCorruptFile, "The store '\(fileURL.path)' is empty.", context: .init(file: fileURL))
            }
            guard !options.isReadOnly else {
                throw QuireError(
                    .fileReadNoSuchFile, "There is no store at '\(fileURL.path)' to open read-only.",
                    context: .init(file: fileURL))
            }
            createEmpty()
            try writeFile()
            return
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw QuireError(
                .fileReadCorruptFile, "The store path '\(fileURL.path)' is not a regular file.", context: .init(file: fileURL))
        }
        if !options.isReadOnly, let refusal = StoreFileAccess.writeRefusal(fileURL.path, status, modeBits: false) {
            throw QuireError(
                .fileWriteNoPermission,
                "The store '\(fileURL.path)' is a read-only file (\(refusal.reason)); add it with the read-only option to read it.",
                context: .init(file: fileURL), underlying: refusal.error)
        }
        let image = try decode(try readFile())
        try checkMetadata(image.metadata)
        metadata = image.metadata
        nextKey = image.nextKey
        nodes = image.nodes
        entityCounts = image.entityCounts
        if let key = nodes.keys.max(), key >= nextKey { nextKey = key + 1 }
        fileStamp = FileStamp(fileURL)
    }

    private func createEmpty() {
        metadata = StoreMetadataKey.standard(type: type, uuid: identifier, model: model)
        nodes.removeAll()
        nextKey = 1
    }

    /// Whether loading refuses a file whose `NSStoreModelVersionHashes` are not the model's (true but for files
    /// read with a model of someone else's entities, such as Xcode's mapping models, whose hashes follow Xcode's
    /// private model and change with it).
    package var checksModelVersionHashes = true

    /// Checks that the file's metadata names this store type and this model.
    func checkMetadata(_ metadata: [String: PropertyListValue]) throws {
        let uuid = try checkTypeAndUUID(metadata, file: fileURL)
        let storedHashes = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.compactMapValues(\.dataValue)
        if checksModelVersionHashes, let storedHashes, !model.hasVersionHashes(storedHashes) { throw incompatibleModelError(fileURL) }
        identifier = uuid
    }

    // MARK: Writing

    package var image: AtomicStoreImage { AtomicStoreImage(metadata: metadata, nextKey: nextKey, nodes: nodes) }

    /// Writes the whole store to its file atomically (nothing for the in-memory store).
    func writeFile() throws {
        guard persistsToFile else { return }
        try loadPendingRecords()
        if options.storesExternalDataInline { try inlineExternalData() }
        try AtomicFileWriter.write(try encode(image), to: fileURL)
        fileStamp = FileStamp(fileURL)
        metadataIsDirty = false
    }

    /// Writes what a save changed (the keys of the records it wrote or deleted): the whole file here; a
    /// store with a change log appends the changes instead.
    func writeChanges(of keys: [Int64]) throws { try writeFile() }

    /// Remembers the file as this store just wrote it in place, so that ``checkFileUnchanged()`` still tells
    /// this store's writes from another writer's.
    func noteFileWritten() { fileStamp = FileStamp(fileURL) }

    /// Throws a conflict when another process rewrote the file since this store read or wrote it.
    func checkFileUnchanged() throws {
        guard persistsToFile, let fileStamp, FileStamp(fileURL) != fileStamp else { return }
        throw QuireError(
            .persistentStoreSaveConflicts,
            "Could not save: the store '\(fileURL.path)' was changed by another writer since it was read.",
            context: .init(file: fileURL))
    }

    package func save(_ request: SaveRequest) throws -> SaveResult { try atomicSave(request) }

    /// Writes the store whole at a new location, its external data files linked into the new folder; back at
    /// the old location on failure.
    package func relocate(to url: URL) throws {
        guard let old = store.url else {
            store.url = url
            return
        }
        let from = ExternalDataFolder(storeURL: old, kind: store.kind)
        let to = ExternalDataFolder(storeURL: url, kind: store.kind)
        store.url = url
        do {
            try loadPendingRecords()
            var names = Set<String>()
            nodes.forEach { node in
                for value in node.attributes { if case .externalData(let reference) = value { names.insert(reference.uuid) } }
            }
            if !names.isEmpty { try to.createIfNeeded() }
            for name in names.sorted() { try to.link(name, from: from) }
            try writeFile()
        } catch {
            store.url = old
            throw error
        }
    }

    package var keysAreStoreWide: Bool { true }
    package func importPass(for relationship: RelationshipDescription) -> Int { 0 }
    package func beginImport() throws { atomicBeginImport() }
    package func importRecords(_ rows: [RowSnapshot]) throws { try atomicImportRecords(rows) }
    package func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        atomicImportRelationships(owners)
    }
    package func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws { try atomicFinishImport() }

    /// The external data files of the save in progress.
    var blobWrites: ExternalDataWrites?
    /// The entity last asked about by ``externalStorageAttributes(of:)`` and its answer (saves come in runs of
    /// one entity).
    private var lastExternalStorageAttributes: (entity: EntityDescription, attributes: [AttributeDescription])?

    /// The attribute values a record keeps, for values being saved: data above the threshold moves to a
    /// file beside the store, unless the store keeps external data inline (then files are read back in).
    package func storedAttributes(_ values: [AttributeValue], of id: ObjectID) throws -> [AttributeValue] {
        let entity = id.entity
        let external = externalStorageAttributes(of: entity)
        guard !external.isEmpty else { return values }
        var result = values
        for attribute in external where attribute.slot < result.count {
            if options.storesExternalDataInline {
                if case .externalData(let reference) = result[attribute.slot] {
                    result[attribute.slot] = .data(try readExternalData(reference, of: id, key: attribute.name))
                }
            } else if let writes = blobWrites {
                result[attribute.slot] = try writes.stored(result[attribute.slot], external: true)
            }
        }
        return result
    }

    /// The attributes of an entity that allow external storage, worked out once per entity (a save asks for
    /// each object it writes).
    private func externalStorageAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        if let last = lastExternalStorageAttributes, last.entity === entity { return last.attributes }
        let attributes = entity.allAttributes.filter(\.allowsExternalBinaryDataStorage)
        lastExternalStorageAttributes = (entity, attributes)
        return attributes
    }

    /// Reads every external data file into the records, for a store that keeps its data inline.
    func inlineExternalData() throws {
        var external: [RowSnapshot] = []
        nodes.forEach { node in
            if node.attributes.contains(where: { if case .externalData = $0 { true } else { false } }) { external.append(node) }
        }
        for var node in external {
            guard let key = node.objectID.primaryKey else { continue }
            node.attributes = try storedAttributes(node.attributes, of: node.objectID)
            nodes[key] = node
        }
    }

    /// Removes the external data files a save left unreferenced: those the saved records referred to before
    /// the save (`released`, the records as they were) that no record refers to now. Files the store never
    /// referred to are not its to remove. A store that keeps its data inline read every file of its folder in,
    /// and removes them all.
    func didSaveExternalData(releasedBy released: [RowSnapshot]) {
        guard let folder = externalDataFolder, persistsToFile else { return }
        if options.storesExternalDataInline {
            if !folder.fileNames().isEmpty { folder.collect(keeping: []) }
            return
        }
        var candidates = Set<String>()
        for node in released {
            for value in node.attributes { if case .externalData(let reference) = value { candidates.insert(reference.uuid) } }
        }
        guard !candidates.isEmpty else { return }
        var referenced = Set<String>()
        nodes.forEach { node in
            for value in node.attributes { if case .externalData(let reference) = value { referenced.insert(reference.uuid) } }
        }
        folder.remove(candidates.subtracting(referenced))
    }

    package func close() throws {
        stopWatchingForWrites()
        discardStreamedImport()
        if metadataIsDirty && !options.isReadOnly { try writeFile() }
        // Packed records are two allocations: freeing them takes no time.
        nodes.removeAll()
    }

    // MARK: Faults

    package func snapshot(for objectID: ObjectID) throws -> RowSnapshot? {
        try loadPendingRecords()
        guard let key = objectID.primaryKey, let node = nodes[key], node.objectID.entity.rootEntity === objectID.entity.rootEntity
        else { return nil }
        return Self.withToManyFaults(node)
    }

    package func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] {
        try loadPendingRecords()
        return objectIDs.compactMap { id in id.primaryKey.flatMap { nodes[$0] } }
    }

    package func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        try loadPendingRecords()
        guard let key = objectID.primaryKey, let node = nodes[key], relationship.slot < node.relationships.count else {
            return []
        }
        return node.relationships[relationship.slot].objectIDs
    }

    // MARK: Fetching

    package func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool {
        transientNames.isEmpty || !PredicateKeyScan.keys(of: predicate).contains { transientNames.contains($0) }
    }

    package func node(for id: ObjectID) -> RowSnapshot? { id.primaryKey.flatMap { nodes[$0] } }

    /// The records of a fetch's entities, filtered by its predicate and sorted, before offset and limit.
    private func matchingNodes(_ fetch: StoreFetch, sorted: Bool) throws -> [RowSnapshot] {
        try loadPendingRecords()
        let numbers = fetch.includesSubentities ? fetch.entity.hierarchyEntityNumbers : [fetch.entity.entityNumber]
        var wanted = [Bool](repeating: false, count: model.entitiesByNumber.count + 1)
        for number in numbers where number < wanted.count { wanted[number] = true }
        let rows = nodes.records { $0 < wanted.count && wanted[$0] }
        var unsorted = fetch
        if !sorted { unsorted.sortKeys = [] }
        return try StoreNodeSourceFetch.evaluate(rows, unsorted, source: self, window: false)
    }

    private func window<T>(_ items: [T], _ fetch: StoreFetch) -> [T] {
        let start = min(fetch.offset, items.count)
        let end = fetch.limit > 0 ? min(items.count, start + fetch.limit) : items.count
        return start == 0 && end == items.count ? items : Array(items[start..<end])
    }

    package func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot] {
        window(try matchingNodes(fetch, sorted: true), fetch).map(Self.withToManyFaults)
    }

    package func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] {
        window(try matchingNodes(fetch, sorted: true), fetch).map(\.objectID)
    }

    /// The number of records of each entity, by entity number (counted once after each change).
    private func countsByEntity() -> [Int] {
        if let entityCounts { return entityCounts }
        var counts = [Int](repeating: 0, count: model.entitiesByNumber.count + 1)
        nodes.forEachEntityNumber { _, number in
            if number < counts.count { counts[number] += 1 }
        }
        entityCounts = counts
        return counts
    }

    package func count(_ fetch: StoreFetch) throws -> Int {
        try loadPendingRecords()
        if fetch.predicate == nil || fetch.predicate == .true {
            let counts = countsByEntity()
            let numbers = fetch.includesSubentities ? fetch.entity.hierarchyEntityNumbers : [fetch.entity.entityNumber]
            let total = numbers.reduce(0) { $0 + ($1 < counts.count ? counts[$1] : 0) }
            let afterOffset = max(0, total - fetch.offset)
            return fetch.limit > 0 ? min(afterOffset, fetch.limit) : afterOffset
        }
        return window(try matchingNodes(fetch, sorted: false), fetch).count
    }
}

/// The size, modification time and inode of a file, to notice that another process rewrote it.
struct FileStamp: Equatable {
    let size: Int64
    let seconds: Int
    let nanoseconds: Int
    let inode: UInt64

    init?(_ url: URL) {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        size = Int64(status.st_size)
        seconds = Int(status.st_mtim.tv_sec)
        nanoseconds = Int(status.st_mtim.tv_nsec)
        inode = UInt64(status.st_ino)
    }
}
