import QuireSupport
import Foundation

/// A store attached to a coordinator (`NSPersistentStore`): its type, location, identifier and metadata.
///
/// Stores are created by `PersistentStoreCoordinator.addPersistentStore(type:configuration:at:options:)`.
/// This is the handle users hold; what answers the coordinator's requests is the store's
/// `PersistentStoreBackend`, made by its kind's `StoreKind` (as NIO separates a `Channel` from its
/// `ChannelCore`).
///
/// `@unchecked Sendable`: a store's mutable state is touched only under its coordinator's lock.
public final class PersistentStore: @unchecked Sendable, CustomStringConvertible {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`): they are
    // touched only under the coordinator's lock (or before the store is added), one access at a time.
    /// The store's type.
    public let type: StoreType
    /// What the store's kind is: how its files are named, kept, copied and moved.
    package let kind: StoreKind
    /// Where the store lives (`nil` for in-memory stores).
    @exclusivity(unchecked) public package(set) var url: URL?
    /// The model configuration whose entities the store holds (`nil` for all).
    public let configurationName: String?
    /// The options the store was added with.
    public let options: StoreOptions
    /// The store's UUID (`NSStoreUUID`), used in object URIs.
    @exclusivity(unchecked) public package(set) var identifier: String = UUID().uuidString
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, model version hashes, and user keys).
    @exclusivity(unchecked) public package(set) var metadata: [String: PropertyListValue] = [:]
    /// Whether the metadata changed since the store last wrote it (written with the next save or on close).
    @exclusivity(unchecked) package var metadataIsDirty = false
    /// Whether writes throw.
    public var isReadOnly: Bool { options.isReadOnly }
    /// The coordinator the store is attached to (typed by the `Quire` module's `persistentStoreCoordinator`).
    @exclusivity(unchecked) package weak var coordinatorReference: AnyObject?
    /// The model the store's objects belong to.
    package let model: ManagedObjectModel
    /// The number object IDs carry to name this store (never reused in the process; see ``StoreHandles``).
    @usableFromInline package let token: UInt64
    /// What the store's permanent IDs retain: its token and its model (see ``ObjectIDOwner``).
    @usableFromInline package let idOwner: ObjectIDOwner

    /// What answers the coordinator's requests. Set once, by the initializer, to the backend its kind made
    /// for this handle; implicitly unwrapped only because the backend needs the finished handle to be made.
    /// Never written after the initializer, so no access can overlap a write: no dynamic exclusivity checks on
    /// the request paths.
    @exclusivity(unchecked) package private(set) var backend: (any PersistentStoreBackend)!

    /// Makes the handle of a store of a kind and the backend, made by the kind, that answers for it.
    package init(
        kind: StoreKind, url: URL?, configurationName: String?, options: StoreOptions, model: ManagedObjectModel
    ) throws {
        self.type = kind.type
        self.kind = kind
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.model = model
        self.token = StoreHandles.shared.makeToken()
        self.idOwner = ObjectIDOwner(token: token, model: model)
        self.backend = try kind.makeBackend(self)
        StoreHandles.shared.register(self)
    }

    deinit {
        idOwner.noteStoreGone(identifier: identifier)
        StoreHandles.shared.unregister(token)
    }

    /// The entities the store holds (those of its configuration).
    package var entities: [EntityDescription] { model.entities(forConfigurationName: configurationName) }

    /// Whether the store holds objects of an entity.
    package func holds(_ entity: EntityDescription) -> Bool {
        configurationName == nil || entities.contains { $0 === entity }
    }

    /// The error for a request the store's kind does not support.
    package func unsupported(_ what: String) -> QuireError {
        QuireError(
            .persistentStoreUnsupportedRequestType, "The \(type) store does not support \(what) requests.",
            context: .init(file: url))
    }

    /// Checks that a store file's metadata names this store's type and a UUID, and returns the UUID.
    package func checkTypeAndUUID(_ metadata: [String: PropertyListValue], file: URL) throws -> String {
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
    package func incompatibleModelError(_ file: URL) -> QuireError {
        QuireError(
            .persistentStoreIncompatibleVersionHash,
            "The store '\(file.path)' was written with another version of the model; "
                + "its entity version hashes differ from the model's.",
            context: .init(file: file))
    }

    /// The error for a write to a store added read-only.
    package func readOnlyError() -> QuireError {
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
    /// Core Data's SHA-512 digest of the model's entity names and version hashes (base64; Core Data 1044 and later).
    public static let modelVersionHashesDigest = "NSStoreModelVersionHashesDigest"
    /// Core Data's SHA-256 checksum of the model's entity version hashes (base64; Core Data 1344 and later).
    public static let modelVersionChecksum = "NSStoreModelVersionChecksumKey"
    /// Core Data's SQLite auto-vacuum level, a string ("2").
    public static let autoVacuumLevel = "_NSAutoVacuumLevel"
    /// Quire's persistent history of an XML, binary, custom atomic or in-memory store (a dictionary; Core Data
    /// records history in SQLite stores only and ignores this key).
    public static let persistentHistory = "QuirePersistentHistory"

    /// The keys a store keeps when new metadata leaves them out: what the store and its model say of themselves.
    package static let storeKeys = [
        storeUUID, modelVersionHashes, modelVersionHashesVersion, modelVersionIdentifiers, persistenceFrameworkVersion,
        modelVersionHashesDigest, modelVersionChecksum, autoVacuumLevel, persistentHistory,
    ]

    /// New metadata for a store: the given keys, with the store's type, and the UUID, model version keys and
    /// Core Data's own keys (``storeKeys``) kept from `existing` when the new dictionary leaves them out.
    package static func merged(
        _ metadata: [String: PropertyListValue], existing: [String: PropertyListValue], type: StoreType
    ) -> [String: PropertyListValue] {
        var result = metadata
        result[storeType] = .string(type.rawValue)
        for key in storeKeys where result[key] == nil {
            result[key] = existing[key]
        }
        return result
    }

    /// The metadata Quire writes for a store of a model, with Core Data's digest and checksum of its hashes.
    package static func standard(type: StoreType, uuid: String, model: ManagedObjectModel) -> [String: PropertyListValue] {
        let hashes = model.entityVersionHashesByName
        return [
            storeType: .string(type.rawValue),
            storeUUID: .string(uuid),
            modelVersionHashes: .dictionary(hashes.mapValues { .data($0) }),
            modelVersionHashesDigest: .string(CoreDataVersionHash.digest(hashes)),
            modelVersionChecksum: .string(CoreDataVersionHash.checksum(hashes)),
            modelVersionHashesVersion: .integer(3),
            modelVersionIdentifiers: .array(model.versionIdentifiers.sorted().map { .string($0) }),
            persistenceFrameworkVersion: .integer(Int64(quireFrameworkVersion)),
        ]
    }

    /// The Core Data version (`NSPersistenceFrameworkVersion`) Quire writes for the stores it creates: Core Data
    /// 1344 (macOS 14, iOS 17), whose SQLite layout, index and constraint names, persistent-history tables and
    /// metadata keys (the hashes' digest and checksum) new SQLite stores follow (see the SQLiteStoreFormat
    /// article). Stores Quire wrote before 2026-12 say 1.
    package static let quireFrameworkVersion = 1344
}
