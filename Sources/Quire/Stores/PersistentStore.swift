import Foundation

/// A store attached to a coordinator (`NSPersistentStore`): its type, location, identifier and metadata.
///
/// Stores are created by ``PersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``.
/// Every store type subclasses this class and implements the requests the coordinator makes.
///
/// `@unchecked Sendable`: a store's mutable state is touched only under its coordinator's lock.
public class PersistentStore: @unchecked Sendable, CustomStringConvertible {
    /// The store's type.
    public let type: StoreType
    /// Where the store lives (`nil` for in-memory stores).
    public internal(set) var url: URL?
    /// The model configuration whose entities the store holds (`nil` for all).
    public let configurationName: String?
    /// The options the store was added with.
    public let options: StoreOptions
    /// The store's UUID (`NSStoreUUID`), used in object URIs.
    public internal(set) var identifier: String = UUID().uuidString
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, model version hashes, and user keys).
    public internal(set) var metadata: [String: PropertyListValue] = [:]
    /// Whether the metadata changed since the store last wrote it (written with the next save or on close).
    var metadataIsDirty = false
    /// Whether writes throw.
    public var isReadOnly: Bool { options.isReadOnly }

    /// The coordinator the store is attached to.
    public internal(set) weak var persistentStoreCoordinator: PersistentStoreCoordinator?
    let model: ManagedObjectModel

    init(type: StoreType, url: URL?, configurationName: String?, options: StoreOptions, model: ManagedObjectModel) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.model = model
    }

    /// The entities the store holds (those of its configuration).
    var entities: [EntityDescription] { model.entities(forConfigurationName: configurationName) }

    /// Whether the store holds objects of an entity.
    func holds(_ entity: EntityDescription) -> Bool {
        configurationName == nil || entities.contains { $0 === entity }
    }

    // MARK: Requests (overridden by each store type)

    /// Opens or creates the store and reads its metadata.
    func load() throws { throw unsupported("load") }
    /// The rows of a fetch, sorted and limited as asked.
    func fetchRows(_ fetch: StoreFetch) throws -> [RowSnapshot] { throw unsupported("fetch") }
    /// Hands the rows of a fetch to `body` one at a time, in the order ``fetchRows(_:)`` returns them.
    /// Stores that read rows incrementally override it to make no array of them: a row is used while it is
    /// still in the processor's cache. `body` must not start another request on this store.
    func visitRows(_ fetch: StoreFetch, _ body: (consuming RowSnapshot) throws -> Void) throws {
        for row in try fetchRows(fetch) { try body(row) }
    }
    /// The IDs of a fetch.
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> [ObjectID] { try fetchRows(fetch).map(\.objectID) }
    /// The number of objects a fetch matches.
    func count(_ fetch: StoreFetch) throws -> Int { try fetchObjectIDs(fetch).count }
    /// Whether the store evaluates a predicate on an entity itself; if not, the context filters in memory.
    func canEvaluate(_ predicate: QueryPredicate, for entity: EntityDescription) -> Bool { false }
    /// The rows of a dictionary fetch computed by the store (grouped, aggregated, filtered, sorted and
    /// limited), or nil when the store leaves it to the context.
    func fetchDictionaries(_ request: DictionaryFetch) throws -> [[DictionaryValue]]? { nil }
    /// The row of one object, or nil when the record does not exist.
    func snapshot(for objectID: ObjectID) throws -> RowSnapshot? { throw unsupported("fault") }
    /// The members of a to-many relationship of an object.
    func relatedObjectIDs(of objectID: ObjectID, relationship: RelationshipDescription) throws -> [ObjectID] {
        throw unsupported("relationship fault")
    }
    /// The rows of many objects (those whose records exist), in as few requests as the store can.
    func snapshots(for objectIDs: [ObjectID]) throws -> [RowSnapshot] {
        try objectIDs.compactMap { try snapshot(for: $0) }
    }
    /// The members of a to-many relationship of many objects, in as few requests as the store can.
    func relatedObjectIDs(of objectIDs: [ObjectID], relationship: RelationshipDescription) throws -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs { result[id] = try relatedObjectIDs(of: id, relationship: relationship) }
        return result
    }
    /// Writes the changes that belong to this store, in one transaction or one atomic write.
    ///
    /// Every store type locks optimistically: an updated or deleted record whose version is no longer the
    /// change's ``SaveRequest/Change/version`` (another context or coordinator saved it since it was read)
    /// fails the whole save, writing nothing, with ``QuireError/Code/persistentStoreSaveConflicts`` and one
    /// ``MergeConflict`` per such record in ``QuireError/conflicts`` carrying the record's row as the store has
    /// it now (nil when deleted). Contexts resolve them by their merge policy and save again. SQLite keeps the
    /// version in `Z_OPT`; an atomic store keeps one per object in its cache.
    func save(_ request: SaveRequest) throws -> SaveResult { throw unsupported("save") }
    /// Writes pending metadata and closes the store.
    func close() throws {}

    // MARK: Import (the target of Save As)

    /// Whether primary keys are unique across the whole store (atomic stores, like Core Data's XML store's
    /// `nextObjectID`) rather than within each entity hierarchy (SQLite).
    var keysAreStoreWide: Bool { false }
    /// Starts copying records into the new, empty store.
    func beginImport() throws { throw unsupported("import") }
    /// Adds records with their final IDs and versions; to-many relationships follow separately.
    func importRecords(_ rows: [RowSnapshot]) throws { throw unsupported("import") }
    /// Sets the members of to-many relationships of imported records.
    func importRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        throw unsupported("import")
    }
    /// Which of two passes writes a to-many relationship (0 or 1).
    func importPass(for relationship: RelationshipDescription) -> Int { 0 }
    /// Makes the imported records durable, with the highest key of each entity hierarchy.
    func finishImport(maximumKeys: [ObjectIdentifier: Int64]) throws { throw unsupported("import") }

    // MARK: External binary data

    /// The folder of the store's external data files (nil for a store without a file).
    var externalDataFolder: ExternalDataFolder? { url.map(ExternalDataFolder.init(storeURL:)) }

    /// Whether the store keeps large binary values in files beside it (not for in-memory stores, nor for
    /// stores added with ``StoreOptions/storesExternalDataInline``).
    var keepsExternalDataFiles: Bool { url != nil && !options.storesExternalDataInline }

    /// The length the store recorded for an external data file, when the reference does not carry it.
    func recordedLength(ofExternalData name: String) -> Int64? { nil }

    /// Reads the bytes of an external data reference held by one of the store's objects.
    func readExternalData(_ reference: ExternalDataReference, of objectID: ObjectID, key: String) throws -> Data {
        guard let folder = externalDataFolder else {
            throw QuireError(
                .fileReadNoSuchFile, "The external data of '\(key)' of \(objectID) cannot be read: the store has no folder.",
                context: .init(entity: objectID.entity.name, key: key, object: objectID.uriRepresentation()))
        }
        return try folder.read(
            reference, expectedLength: reference.length ?? recordedLength(ofExternalData: reference.uuid), object: objectID,
            key: key)
    }

    func unsupported(_ what: String) -> QuireError {
        QuireError(
            .persistentStoreUnsupportedRequestType, "The \(type) store does not support \(what) requests.",
            context: .init(file: url))
    }

    /// Checks that a store file's metadata names this store's type and a UUID, and returns the UUID.
    func checkTypeAndUUID(_ metadata: [String: PropertyListValue], file: URL) throws -> String {
        let storedType = metadata[StoreMetadataKey.storeType]?.stringValue
        guard storedType == type.rawValue else {
            throw QuireError(
                .persistentStoreTypeMismatch, "The store '\(file.path)' says its type is '\(storedType ?? "none")', not \(type).",
                context: .init(file: file))
        }
        guard let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue, !uuid.isEmpty else {
            throw QuireError(
                .persistentStoreIncompatibleSchema, "The store '\(file.path)' has no NSStoreUUID in its metadata.",
                context: .init(file: file))
        }
        return uuid
    }

    /// The error for a store written with another version of the model.
    func incompatibleModelError(_ file: URL) -> QuireError {
        QuireError(
            .persistentStoreIncompatibleVersionHash,
            "The store '\(file.path)' was written with another version of the model; "
                + "its entity version hashes differ from the model's.",
            context: .init(file: file))
    }

    func readOnlyError() -> QuireError {
        QuireError(
            .persistentStoreOperation,
            "The store at '\(url?.path ?? "memory")' was added read-only; it cannot be saved.",
            context: .init(file: url))
    }

    /// The type and location.
    public var description: String { "<\(type) store \(identifier) at \(url?.path ?? "memory")>" }
}

/// Core Data's store metadata keys.
public enum StoreMetadataKey {
    /// The store's type: `SQLite`, `XML`, `Binary`, `InMemory`.
    public static let storeType = "NSStoreType"
    /// The store's UUID.
    public static let storeUUID = "NSStoreUUID"
    /// The version hash of each entity of the model the store was written with (name to 32-byte data).
    public static let modelVersionHashes = "NSStoreModelVersionHashes"
    /// The version of the hashing scheme (3, as in Core Data).
    public static let modelVersionHashesVersion = "NSStoreModelVersionHashesVersion"
    /// The model's version identifiers.
    public static let modelVersionIdentifiers = "NSStoreModelVersionIdentifiers"
    /// The framework version that wrote the store.
    public static let persistenceFrameworkVersion = "NSPersistenceFrameworkVersion"

    /// New metadata for a store: the given keys, with the store's type, and the UUID and model version keys
    /// kept from `existing` when the new dictionary leaves them out.
    static func merged(
        _ metadata: [String: PropertyListValue], existing: [String: PropertyListValue], type: StoreType
    ) -> [String: PropertyListValue] {
        var result = metadata
        result[storeType] = .string(type.rawValue)
        for key in [storeUUID, modelVersionHashes, modelVersionHashesVersion, modelVersionIdentifiers, persistenceFrameworkVersion]
        where result[key] == nil {
            result[key] = existing[key]
        }
        return result
    }

    /// The metadata Quire writes for a store of a model.
    static func standard(type: StoreType, uuid: String, model: ManagedObjectModel) -> [String: PropertyListValue] {
        [
            storeType: .string(type.rawValue),
            storeUUID: .string(uuid),
            modelVersionHashes: .dictionary(model.entityVersionHashesByName.mapValues { .data($0) }),
            modelVersionHashesVersion: .integer(3),
            modelVersionIdentifiers: .array(model.versionIdentifiers.sorted().map { .string($0) }),
            persistenceFrameworkVersion: .integer(1),
        ]
    }
}
