import QuireSupport
import Foundation

/// What answers a coordinator's requests for one store: the implementation behind a ``PersistentStore``.
///
/// Each store kind (SQLite, XML, binary, in-memory, custom) provides one; the coordinator reaches it only
/// through ``PersistentStore/backend`` and never names the class. Requirements with a sensible general
/// answer have one in the extension below (fetching IDs by fetching rows, batches by single requests); the
/// rest every backend answers itself, so no request of a store throws "unsupported" by accident.
///
/// A backend keeps its handle `unowned` (the handle owns the backend), and is used only under its
/// coordinator's lock.
package protocol PersistentStoreBackend: AnyObject {
    /// The handle this backend answers for.
    var store: PersistentStore { get }

    /// Opens or creates the store and reads its metadata.
    func load() throws
    /// Writes pending metadata and closes the store.
    func close() throws

    /// The rows of a fetch, sorted and limited as asked.
    func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot]
    /// Hands the rows of a fetch to `body` one at a time, in the order ``fetchRows(_:)`` returns them.
    /// Stores that read rows incrementally make no array of them: a row is used while it is still in the
    /// processor's cache. `body` must not start another request on this store.
    func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws
    /// Hands the rows of a fetch to `body` as ``visitRows(_:_:)`` does when the store evaluates the fetch's
    /// predicate itself (``canEvaluate(_:for:)``), deciding that and reading the rows in one step; returns false,
    /// having read nothing, when it does not.
    func visitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool
    /// ``visitRowsIfEvaluable(_:_:)`` with each row's values packed (``PackedRow``), as fetched objects keep them:
    /// the SQLite and PostgreSQL stores read columns straight into the packed form.
    func visitPackedRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void) throws -> Bool
    /// The IDs of a fetch.
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID]
    /// The number of objects a fetch matches.
    func count(_ fetch: StoreFetch) throws -> Int
    /// Whether the store evaluates a predicate on an entity itself; if not, the context filters in memory.
    func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool
    /// The rows of a dictionary fetch computed by the store (grouped, aggregated, filtered, sorted and
    /// limited), or nil when the store leaves it to the context.
    func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]?

    /// The row of one object, or nil when the record does not exist.
    func snapshot(for objectID: ObjectID) throws -> RowSnapshot?
    /// The row of one object to fire its fault with (``snapshot(for:)``, packed by stores that can read it
    /// packed), or nil when the record does not exist.
    func faultRow(for objectID: ObjectID) throws -> FaultRow?
    /// The rows of many objects (those whose records exist), in as few requests as the store can.
    func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot]
    /// The members of a to-many relationship of an object.
    func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID]
    /// The members of a to-many relationship of many objects, in as few requests as the store can.
    func relatedObjectIDs(of objectIDs: [ObjectID], relationship: RelationshipDescription) throws -> [ObjectID: [ObjectID]]
    /// Whether the store keeps a relationship's members apart from its inverse's, so that a damaged store can
    /// hold one side without the other (what `quire verify` checks and conversions refuse): true by default,
    /// as atomic stores keep both sides in each record; SQL stores keep a to-many with a to-one inverse, and a
    /// many-to-many, once (a foreign key, a join table), and only a one-to-one twice (a column on each side).
    func keepsInverseApart(_ relationship: RelationshipDescription) -> Bool

    /// Writes the changes that belong to this store, in one transaction or one atomic write.
    ///
    /// Every store kind locks optimistically: an updated or deleted record whose version is no longer the
    /// change's ``SaveRequest/Change/version`` (another context or coordinator saved it since it was read)
    /// fails the whole save, writing nothing, with ``QuireError/Code/persistentStoreSaveConflicts`` and one
    /// ``MergeConflict`` per such record in ``QuireError/conflicts`` carrying the record's row as the store has
    /// it now (nil when deleted). Contexts resolve them by their merge policy and save again.
    func save(_ request: SaveRequest) throws -> SaveResult

    /// Changes the store's location (`setURL(_:for:)`), keeping the old one when this throws: an atomic store
    /// writes itself at the new location with its external data files linked there; an SQLite store reopens
    /// at the new location, where its file must already be.
    func relocate(to url: URL) throws

    /// Renames the store's files (file, side files, external data) to a new location and goes on there: an
    /// SQLite store closes and reopens its connection; an atomic store, whose records are in memory, only
    /// takes the new location. Used by Save As, which writes the new store under a temporary name first.
    func rename(to url: URL, kind: StoreKind) throws

    /// Writes a consistent copy of the open store's file to a new path (SQLite: a copy of the file with its log
    /// checkpointed, or the backup API, as a rollback-journal database, so no `-wal` is needed beside the copy;
    /// single-file stores: a clone of the file as last written).
    func writeSnapshot(to destination: URL) throws

    /// Makes the store's file carry `model`, so that it opens without the application (Save As of a store to a
    /// copy of its file: a copy of a Mac store has only Core Data's model cache, or no model at all). SQLite
    /// writes `Z_QUIREMODEL`; the default does nothing (atomic stores write their model with every save).
    func embedModel(_ model: ManagedObjectModel) throws

    /// The folder of the store's external data files (nil for a store without a file).
    var externalDataFolder: ExternalDataFolder? { get }
    /// Whether the store keeps large binary values in files beside it.
    var keepsExternalDataFiles: Bool { get }
    /// The length the store recorded for an external data file, when the reference does not carry it.
    func recordedLength(ofExternalData name: String) -> Int64?
    /// The bytes behind an external data reference held by one of the store's objects (a file beside the
    /// store by default; a PostgreSQL store reads its chunks).
    func readExternalData(_ reference: ExternalDataReference, of objectID: ObjectID, key: String) throws -> Data
    /// Hands the bytes behind an external data reference to `body` a chunk at a time, in order, never holding
    /// them all (``readExternalDataChunks(_:of:key:_:)`` in ExternalDataChunks.swift by default).
    func readExternalData(
        _ reference: ExternalDataReference, of objectID: ObjectID, key: String, chunks body: (Data) throws -> Void) throws
}

/// A store that can be the target of Save As and migration: records are copied into it with their final IDs.
package protocol ImportingStoreBackend: PersistentStoreBackend {
    /// Whether primary keys are unique across the whole store (atomic stores, like Core Data's XML store's
    /// `nextObjectID`) rather than within each entity hierarchy (SQLite).
    var keysAreStoreWide: Bool { get }
    /// Starts copying records into the new, empty store.
    func beginImport() throws
    /// Adds records with their final IDs and versions; to-many relationships follow separately.
    func importRecords(_ rows: [RowSnapshot]) throws
    /// Sets the members of to-many relationships of imported records.
    func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws
    /// Which of two passes writes a to-many relationship (0 or 1).
    func importPass(for relationship: RelationshipDescription) -> Int
    /// Makes the imported records durable, with the highest key of each entity hierarchy.
    func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws
}

extension PersistentStoreBackend {
    // The handle's state, read and written as the backend's own.

    /// The store's type.
    package var type: StoreType { store.type }
    /// Where the store lives.
    package var url: URL? { store.url }
    /// The store's options.
    package var options: StoreOptions { store.options }
    /// The store's model.
    package var model: ManagedObjectModel { store.model }
    /// The model configuration the store holds.
    package var configurationName: String? { store.configurationName }
    /// The entities the store holds.
    package var entities: [EntityDescription] { store.entities }
    /// The store's UUID.
    package var identifier: String {
        get { store.identifier }
        set { store.identifier = newValue }
    }
    /// The store's metadata.
    package var metadata: [String: PropertyListValue] {
        get { store.metadata }
        set { store.metadata = newValue }
    }
    /// Whether the metadata changed since it was last written.
    package var metadataIsDirty: Bool {
        get { store.metadataIsDirty }
        set { store.metadataIsDirty = newValue }
    }
    /// Whether the store holds objects of an entity.
    package func holds(_ entity: EntityDescription) -> Bool { store.holds(entity) }
    /// The error for an unsupported request.
    package func unsupported(_ what: String) -> QuireError { store.unsupported(what) }
    /// See ``PersistentStore/checkTypeAndUUID(_:file:)``.
    package func checkTypeAndUUID(_ metadata: [String: PropertyListValue], file: URL) throws -> String {
        try store.checkTypeAndUUID(metadata, file: file)
    }
    /// See ``PersistentStore/incompatibleModelError(_:)``.
    package func incompatibleModelError(_ file: URL) -> QuireError { store.incompatibleModelError(file) }
    /// See ``PersistentStore/readOnlyError()``.
    package func readOnlyError() -> QuireError { store.readOnlyError() }

    // General answers a backend may improve on.

    package func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws {
        for row in try fetchRows(fetch) { try body(row) }
    }
    package func visitRowsIfEvaluable(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws -> Bool {
        if let predicate = fetch.predicate, !canEvaluate(predicate, for: fetch.entity) { return false }
        try visitRows(fetch, body)
        return true
    }
    package func visitPackedRowsIfEvaluable(
        _ fetch: StoreFetch, _ body: (consuming PackedRowSnapshot) throws -> Void
    ) throws -> Bool {
        try visitRowsIfEvaluable(fetch) { row in try body(PackedRowSnapshot(row)) }
    }
    package func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] { try fetchRows(fetch).map(\.objectID) }
    package func count(_ fetch: StoreFetch) throws -> Int { try fetchObjectIDs(fetch).count }
    package func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool { false }
    package func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? { nil }
    package func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] {
        try objectIDs.compactMap { try snapshot(for: $0) }
    }
    package func faultRow(for objectID: ObjectID) throws -> FaultRow? { try snapshot(for: objectID).map(FaultRow.arrays) }
    package func relatedObjectIDs(of objectIDs: [ObjectID], relationship: RelationshipDescription) throws -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs { result[id] = try relatedObjectIDs(of: id, relationship: relationship) }
        return result
    }
    package var externalDataFolder: ExternalDataFolder? { url.map { ExternalDataFolder(storeURL: $0, kind: store.kind) } }
    package func rename(to url: URL, kind: StoreKind) throws {
        guard let old = self.url else {
            store.url = url
            return
        }
        try kind.moveFiles(from: old, to: url)
        store.url = url
    }
    package func writeSnapshot(to destination: URL) throws {
        guard let url else { throw unsupported("snapshot") }
        try FileClone.clone(url, to: destination)
    }
    package func embedModel(_ model: ManagedObjectModel) throws {}
    package var keepsExternalDataFiles: Bool { url != nil && !options.storesExternalDataInline }
    package func recordedLength(ofExternalData name: String) -> Int64? { nil }

    package func keepsInverseApart(_ relationship: RelationshipDescription) -> Bool { true }

    /// Reads the bytes of an external data reference held by one of the store's objects.
    package func readExternalData(_ reference: ExternalDataReference, of objectID: ObjectID, key: String) throws -> Data {
        guard let folder = externalDataFolder else {
            throw QuireError(
                .fileReadNoSuchFile, "The external data of '\(key)' of \(objectID) cannot be read: the store has no folder.",
                context: .init(entity: objectID.entity.name, key: key, object: objectID.uriRepresentation()))
        }
        return try folder.read(
            reference, expectedLength: reference.length ?? recordedLength(ofExternalData: reference.uuid), object: objectID,
            key: key)
    }
}

extension ImportingStoreBackend {
    package var keysAreStoreWide: Bool { false }
    package func importPass(for relationship: RelationshipDescription) -> Int { 0 }
}
