import QuireCore
import Foundation

/// One record as an ``IncrementalStoreBackend`` hands it over.
public struct IncrementalStoreRecord: Hashable, Sendable {
    /// The record's entity and number.
    public var reference: StoreReference
    /// The record's version: 1 when inserted, one more with each save that changes it.
    public var version: Int64
    /// The values of the persistent attributes that are not nil, by name.
    public var attributes: [String: AttributeValue]
    /// The related records of the persistent relationships that are not empty, by name (both sides of a
    /// relationship are stored; ordered relationships in order).
    public var relationships: [String: [StoreReference]]

    /// Creates a record.
    public init(
        reference: StoreReference, version: Int64, attributes: [String: AttributeValue] = [:],
        relationships: [String: [StoreReference]] = [:]
    ) {
        self.reference = reference
        self.version = version
        self.attributes = attributes
        self.relationships = relationships
    }

    package var node: AtomicStoreNode {
        AtomicStoreNode(reference: reference, version: version, attributes: attributes, relationships: relationships)
    }
}

/// The changes of one save, for an ``IncrementalStoreBackend`` to apply all at once or not at all.
public struct IncrementalStoreChanges: Sendable {
    /// New records, with references from ``IncrementalStoreBackend/obtainPermanentReferences(for:count:)``
    /// (or, when the store is the target of a migration, the references Quire chose; they are unique within
    /// each entity hierarchy and the backend must hand out higher ones afterwards).
    public var inserted: [IncrementalStoreRecord] = []
    /// Changed records, whole, with their new versions.
    public var updated: [IncrementalStoreRecord] = []
    /// Removed records.
    public var deleted: [StoreReference] = []
    /// The metadata to keep, when it changed.
    public var metadata: [String: PropertyListValue]?

    /// Creates a set of changes.
    public init(
        inserted: [IncrementalStoreRecord] = [], updated: [IncrementalStoreRecord] = [], deleted: [StoreReference] = [],
        metadata: [String: PropertyListValue]? = nil
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.metadata = metadata
    }
}

/// A custom incremental store (Core Data's `NSIncrementalStore` subclasses): it answers for one record at
/// a time and applies saves; Quire asks it for what fetches and faults need, evaluates predicates and sort
/// keys over what it returns, checks versions (optimistic locking) and keeps both sides of relationships.
///
/// ```swift
/// final class FolderStore: IncrementalStoreBackend {
///     init(url: URL?, options: StoreOptions, model: ManagedObjectModel) throws { … }
///     func loadMetadata() throws -> [String: PropertyListValue]? { … }
///     …
/// }
/// PersistentStoreCoordinator.registerStoreClass(FolderStore.self, forStoreType: StoreType(rawValue: "Folder"))
/// ```
///
/// A backend is used only under its coordinator's lock, one call at a time.
public protocol IncrementalStoreBackend: AnyObject {
    /// Creates the backend of a store being added (nothing is read yet).
    init(url: URL?, options: StoreOptions, model: ManagedObjectModel) throws

    /// Opens the store and returns its metadata, or nil when the store is new; Quire then makes the
    /// metadata and saves it with ``save(_:)``.
    func loadMetadata() throws -> [String: PropertyListValue]?

    /// The reference numbers of every record of exactly this entity (not its sub-entities).
    func references(for entity: EntityDescription) throws -> [Int64]

    /// One record, or nil when it does not exist.
    func record(for reference: StoreReference) throws -> IncrementalStoreRecord?

    /// New reference numbers for records of an entity, unique within its entity hierarchy.
    func obtainPermanentReferences(for entity: EntityDescription, count: Int) throws -> [Int64]

    /// Applies a save all at once, or throws and changes nothing.
    func save(_ changes: IncrementalStoreChanges) throws

    /// Releases what the store holds open. The default does nothing.
    func close() throws
}

extension IncrementalStoreBackend {
    /// Does nothing.
    public func close() throws {}
}
