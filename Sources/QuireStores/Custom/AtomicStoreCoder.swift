import QuireCore
import Foundation

/// One record of an atomic store, as a custom ``AtomicStoreCoder`` reads and writes it
/// (`NSAtomicStoreCacheNode`).
public struct AtomicStoreNode: Hashable, Sendable, Codable {
    /// The record's entity and number.
    public var reference: StoreReference
    /// The record's version: 1 when inserted, one more with each save that changes it.
    public var version: Int64
    /// The values of the persistent attributes that are not nil, by name.
    public var attributes: [String: AttributeValue]
    /// The related records of the persistent relationships that are not empty, by name (in order for
    /// ordered relationships).
    public var relationships: [String: [StoreReference]]

    /// Creates a node.
    public init(
        reference: StoreReference, version: Int64 = 1, attributes: [String: AttributeValue] = [:],
        relationships: [String: [StoreReference]] = [:]
    ) {
        self.reference = reference
        self.version = version
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// Everything an atomic store's file holds.
public struct AtomicStoreContents: Sendable {
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, model version hashes, the application's keys).
    public var metadata: [String: PropertyListValue]
    /// The next reference number Quire hands out; reference numbers are unique across the whole store.
    public var nextReference: Int64
    /// Every record.
    public var nodes: [AtomicStoreNode]

    /// Creates contents.
    public init(metadata: [String: PropertyListValue], nextReference: Int64, nodes: [AtomicStoreNode]) {
        self.metadata = metadata
        self.nextReference = nextReference
        self.nodes = nodes
    }
}

/// A custom atomic store format (Core Data's `NSAtomicStore` subclasses): it turns a whole file into records
/// and back. Quire does the rest: it keeps the records in memory, evaluates fetches, tracks versions, and
/// writes the file atomically (temporary file, fsync, rename).
///
/// ```swift
/// struct JSONStore: AtomicStoreCoder {
///     func decode(_ data: Data, from url: URL, model: ManagedObjectModel) throws -> AtomicStoreContents { … }
///     func encode(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws -> Data { … }
/// }
/// PersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: StoreType(rawValue: "JSON"))
/// try coordinator.addPersistentStore(type: StoreType(rawValue: "JSON"), at: url)
/// ```
public protocol AtomicStoreCoder: Sendable {
    /// Creates a coder.
    init()

    /// Reads a whole store file.
    ///
    /// - Throws: An error naming the file and what is wrong when the bytes are not a store of this format;
    ///   Quire passes a ``QuireError`` through and wraps any other error as
    ///   ``QuireError/Code/fileReadCorruptFile``.
    func decode(_ data: Data, from url: URL, model: ManagedObjectModel) throws -> AtomicStoreContents

    /// Writes a whole store.
    func encode(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws -> Data

    /// Whether a file's first bytes (up to 512) are a store of this format, so stores added without a type
    /// are recognized. The default recognizes nothing.
    static func recognizes(_ head: Data) -> Bool
}

extension AtomicStoreCoder {
    /// Recognizes nothing.
    public static func recognizes(_ head: Data) -> Bool { false }
}

/// Adapts a custom ``AtomicStoreCoder`` into an atomic store.
///
/// Used only under the coordinator's lock.
package final class CustomAtomicStore: AtomicStore {
    let coder: any AtomicStoreCoder

    init(coder: any AtomicStoreCoder, store: PersistentStore) {
        self.coder = coder
        super.init(store: store)
    }

    package override func decode(_ data: Data) throws -> AtomicStoreImage {
        let contents: AtomicStoreContents
        do {
            contents = try coder.decode(data, from: fileURL, model: model)
        } catch let error as QuireError {
            throw error
        } catch {
            throw QuireError(
                .fileReadCorruptFile, "The \(type) store '\(fileURL.path)' cannot be read: \(error).", context: .init(file: fileURL),
                underlying: QuireUnderlyingError(error))
        }
        // A file written with another model version is told apart before its records are read with this model
        // (whose entities may have other names), so that the coordinator migrates it instead of refusing it as corrupt.
        try checkMetadata(contents.metadata)
        return try Self.image(from: contents, store: store, file: fileURL)
    }

    package override func encode(_ image: AtomicStoreImage) throws -> [Data] {
        [try coder.encode(Self.contents(of: image), model: model)]
    }

    /// Records in Quire's form from a custom store's nodes.
    static func image(from contents: AtomicStoreContents, store: PersistentStore, file: URL?) throws -> AtomicStoreImage {
        let model = store.model
        let byName = model.entitiesByName
        var entityByKey: [Int64: EntityDescription] = [:]
        func corrupt(_ message: String) -> QuireError {
            QuireError(.fileReadCorruptFile, "The \(store.type) store '\(file?.path ?? "memory")' is invalid: \(message).", context: .init(file: file))
        }
        for node in contents.nodes {
            guard let entity = byName[node.reference.entityName], !entity.isAbstract else {
                throw corrupt("entity '\(node.reference.entityName)' is not a concrete entity of the model")
            }
            guard node.reference.reference > 0, entityByKey.updateValue(entity, forKey: node.reference.reference) == nil else {
                throw corrupt("reference \(node.reference.reference) is not positive or is used twice")
            }
        }
        var nodes: [Int64: RowSnapshot] = [:]
        nodes.reserveCapacity(contents.nodes.count)
        for node in contents.nodes {
            guard let entity = entityByKey[node.reference.reference] else { continue }
            let row = try row(from: node, entity: entity, store: store) { reference in
                guard let target = byName[reference.entityName], entityByKey[reference.reference] === target else {
                    throw corrupt("\(node.reference) refers to \(reference), which does not exist")
                }
                return ObjectID(entity: target, store: store, primaryKey: reference.reference)
            }
            nodes[node.reference.reference] = row
        }
        let next = max(contents.nextReference, (nodes.keys.max() ?? 0) + 1)
        return AtomicStoreImage(metadata: contents.metadata, nextKey: next, nodes: AtomicRecordTable(store: store, rows: nodes))
    }

    /// A record's row from a custom node, checking attribute values against the model.
    static func row(
        from node: AtomicStoreNode, entity: EntityDescription, store: PersistentStore,
        resolve: (StoreReference) throws -> ObjectID
    ) throws -> RowSnapshot {
        var attributes = [AttributeValue](repeating: .null, count: entity.allAttributes.count)
        for (name, value) in node.attributes {
            guard let attribute = entity.attributesByName[name], !attribute.isTransient else { continue }
            do {
                attributes[attribute.slot] = try ValueCoercion.coerce(value, to: attribute)
            } catch {
                throw QuireError(
                    .fileReadCorruptFile,
                    "The \(store.type) store holds a value of the wrong type for '\(entity.name).\(name)' in \(node.reference).",
                    context: .init(file: store.url, entity: entity.name, key: name))
            }
        }
        var relationships = entity.allRelationships.map { $0.isTransient ? RelationshipStorage.fault : .empty(for: $0) }
        for relationship in entity.allRelationships where !relationship.isTransient {
            let ids = try (node.relationships[relationship.name] ?? []).map(resolve)
            if !relationship.isToMany {
                relationships[relationship.slot] = .toOne(ids.first)
            } else {
                relationships[relationship.slot] = relationship.isOrdered ? .ordered(.init(ids)) : .toMany(Set(ids))
            }
        }
        return RowSnapshot(
            objectID: ObjectID(entity: entity, store: store, primaryKey: node.reference.reference), version: node.version,
            attributes: attributes, relationships: relationships)
    }

    /// A custom node from a record's row.
    static func node(of row: RowSnapshot) -> AtomicStoreNode {
        let entity = row.objectID.entity
        var attributes: [String: AttributeValue] = [:]
        for attribute in entity.allAttributes where !attribute.isTransient && attribute.slot < row.attributes.count {
            let value = row.attributes[attribute.slot]
            if !value.isNull { attributes[attribute.name] = value }
        }
        var relationships: [String: [StoreReference]] = [:]
        for relationship in entity.allRelationships where !relationship.isTransient && relationship.slot < row.relationships.count {
            let ids = row.relationships[relationship.slot].objectIDs
            if !ids.isEmpty { relationships[relationship.name] = ids.map(\.storeReference) }
        }
        return AtomicStoreNode(reference: row.objectID.storeReference, version: row.version, attributes: attributes, relationships: relationships)
    }

    static func contents(of image: AtomicStoreImage) -> AtomicStoreContents {
        AtomicStoreContents(
            metadata: image.metadata, nextReference: image.nextKey,
            nodes: image.nodes.sortedKeys().compactMap { image.nodes[$0].map(node(of:)) })
    }
}
